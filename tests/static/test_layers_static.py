"""paddle.nn Layers and functionals inside a static Program: the Layer's eager Parameters
become persistable Variables bound to the Layer, so static training updates the Layer."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from tests.static_util import static_guard


def _model():
    paddle.seed(5)
    return paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(),
                                paddle.nn.Linear(8, 3))


def _softmax_ce(logits, onehot):
    return (paddle.logsumexp(logits, axis=1) - (logits * onehot).sum(axis=1)).sum() / 6.0


def test_layer_loss_and_gradients_equal_eager():
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((6, 4)).astype("float32")
    yv = np.eye(3, dtype="float32")[rng.integers(0, 3, 6)]
    model = _model()
    main = static.Program()
    with static_guard(main, static.Program()):
        x = static.data("x", [6, 4], "float32")
        y = static.data("y", [6, 3], "float32")
        loss = _softmax_ce(model(x), y)
        pairs = static.append_backward(loss)
    assert {p.name for p, _ in pairs} == {p.name for p in model.parameters()}
    got = static.Executor().run(main, feed={"x": xv, "y": yv},
                                fetch_list=[loss] + [g for _, g in pairs])
    eager_loss = _softmax_ce(model(paddle.to_tensor(xv)), paddle.to_tensor(yv))
    eager_loss.backward()
    np.testing.assert_allclose(got[0], eager_loss.numpy(), rtol=1e-6)
    by_name = {p.name: p for p in model.parameters()}
    for (p, _), g in zip(pairs, got[1:]):
        np.testing.assert_allclose(g, by_name[p.name].grad.numpy(), rtol=1e-5, atol=1e-7)


def test_static_update_writes_back_to_the_layer():
    model = paddle.nn.Linear(2, 1)
    before = model.weight.numpy().copy()
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [1, 2], "float32")
        loss = model(x).sum()
        for p, g in static.append_backward(loss):
            p.subtract_(g)
    static.Executor().run(main, feed={"x": np.ones((1, 2), "float32")})
    np.testing.assert_allclose(model.weight.numpy(), before - 1.0, rtol=1e-6)


def test_cross_entropy_builds_on_variables():
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [2, 3], "float32")
        y = static.data("y", [2, 1], "int64")
        loss = paddle.nn.functional.cross_entropy(x, y)
    assert getattr(loss, "_is_variable", False)


def test_batch_norm_running_stats_written_back_from_a_program():
    import sampan as paddle
    from sampan import nn, static
    paddle.enable_static()
    try:
        main, start = static.Program(), static.Program()
        with static_guard(main, start):
            x = static.data("x", [-1, 3, 4, 4], "float32")
            bn = nn.BatchNorm2D(3)
            y = bn(x)
        exe = static.Executor()
        exe.run(start)
        xv = np.random.default_rng(0).normal(2.0, 1.0, (8, 3, 4, 4)).astype("float32")
        exe.run(main, feed={"x": xv}, fetch_list=[y])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(bn._mean.numpy(), 0.1 * xv.mean(axis=(0, 2, 3)), rtol=1e-5)

"""Static Programs and to_static on a device place (the fake device, on every machine): the
Executor computes on its place, keeps parameters there, returns NumPy fetches, and gives the
same numbers as the CPU."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan.backend.fake import FakeArray, FakePlace
from sampan.framework import place as _place
from tests.static_util import static_guard

FAKE = FakePlace(0)


@pytest.fixture
def on_fake():
    old = _place.current_place()
    _place.set_place(FAKE)
    try:
        yield
    finally:
        _place.set_place(old)


def _mlp_program():
    paddle.seed(0)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [None, 4], "float32")
        y = paddle.static.data("y", [None, 1], "int64")
        h = paddle.static.nn.fc(x, 8, activation="relu")
        out = paddle.static.nn.fc(h, 3)
        loss = paddle.nn.functional.cross_entropy(out, y)
        paddle.optimizer.Adam(0.01).minimize(loss)
    return main, startup, out, loss


def _train(place, steps=3):
    main, startup, out, loss = _mlp_program()
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(place)
    rng = np.random.default_rng(0)
    losses = []
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for _ in range(steps):
            feed = {"x": rng.standard_normal((5, 4)).astype("float32"),
                    "y": rng.integers(0, 3, (5, 1))}
            lv, ov = exe.run(main, feed=feed, fetch_list=[loss, out])
            losses.append(lv)
    return losses, ov, scope


def test_static_training_on_device_equals_cpu():
    cpu_losses, cpu_out, cpu_scope = _train(paddle.CPUPlace())
    losses, out, scope = _train(FAKE)
    assert all(isinstance(v, np.ndarray) for v in losses + [out])  # return_numpy: NumPy
    np.testing.assert_allclose(losses, cpu_losses, rtol=1e-5)
    np.testing.assert_allclose(out, cpu_out, rtol=1e-5, atol=1e-6)
    assert {type(v) for v in scope._vars.values()} == {FakeArray}  # parameters stay there
    name = next(n for n in scope.local_var_names() if n.endswith(".w_0"))
    got = scope.get(name)   # the public read is a host copy
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, cpu_scope.get(name), rtol=1e-5, atol=1e-6)


def test_executor_follows_current_place_and_returns_device_tensors(on_fake):
    main, startup, out, _ = _mlp_program()
    exe = paddle.static.Executor()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        x = paddle.to_tensor(np.ones((2, 4), "float32"))   # a device tensor as feed
        res, = exe.run(main, feed={"x": x, "y": np.zeros((2, 1), "int64")}, fetch_list=[out],
                       return_numpy=False)
    assert res.place == FAKE and isinstance(res._data, FakeArray)
    assert res.shape == [2, 3]


def test_executor_place_strings_and_host_places():
    main, startup, out, _ = _mlp_program()
    feed = {"x": np.ones((2, 4), "float32"), "y": np.zeros((2, 1), "int64")}
    for place in ("cpu", paddle.CUDAPinnedPlace()):
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(place)
            exe.run(startup)
            res, = exe.run(main, feed=feed, fetch_list=[out])
        assert isinstance(res, np.ndarray) and all(
            isinstance(v, np.ndarray) for v in scope._vars.values())
    with pytest.raises(ValueError, match="Executor: place must be .*'tpu'"):
        paddle.static.Executor("tpu")


def _cond_program():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [3], "float32")
        i = paddle.full([1], 0, "int64")
        n = paddle.full([1], 3, "int64")
        _, acc = paddle.static.nn.while_loop(lambda i, a: i < n,
                                             lambda i, a: [i + 1, a * 2.0 + 1.0], [i, x])
        out = paddle.static.nn.cond(acc.sum() > 10.0, lambda: acc - 1.0, lambda: acc + 1.0)
    return main, out


def test_control_flow_blocks_run_on_device():
    main, out = _cond_program()
    x = np.array([1.0, -2.0, 3.0], "float32")
    want, = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": x},
                                                          fetch_list=[out])
    got, = paddle.static.Executor(FAKE).run(main, feed={"x": x}, fetch_list=[out])
    np.testing.assert_allclose(got, want)
    np.testing.assert_allclose(want, (x * 8 + 7) - 1.0)


def _to_static_train(place):
    old = _place.current_place()
    _place.set_place(place)
    try:
        paddle.seed(0)
        net = paddle.nn.Sequential(paddle.nn.Conv2D(3, 4, 3, padding=1, stride=2),
                                   paddle.nn.BatchNorm2D(4), paddle.nn.ReLU(),
                                   paddle.nn.Flatten(), paddle.nn.Linear(4 * 3 * 3, 5))
        static_net = paddle.jit.to_static(net)
        opt = paddle.optimizer.Momentum(0.1, parameters=net.parameters())
        x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 6, 6))
                             .astype("float32"))
        for _ in range(2):
            loss = static_net(x).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
        assert loss.place == place
        assert {p.place for p in net.parameters()} == {place}
        return [p.numpy() for p in net.state_dict().values()]
    finally:
        _place.set_place(old)


def test_to_static_training_on_device_equals_cpu():
    for got, want in zip(_to_static_train(FAKE), _to_static_train(paddle.CPUPlace())):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

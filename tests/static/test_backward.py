"""append_backward / gradients: values equal eager autograd; names, sums, no_grad_set."""
from __future__ import annotations

import numpy as np
import pytest

import sampan as paddle
from sampan import static
from sampan.utils import unique_name
from tests.static_util import static_guard


def _mlp_static(xv, w1v, w2v):
    main, startup = static.Program(), static.Program()
    with unique_name.guard(), static_guard(main, startup):
        x = static.data("x", list(xv.shape), "float64")
        w1 = static.create_parameter(list(w1v.shape), "float64", name="w1")
        w2 = static.create_parameter(list(w2v.shape), "float64", name="w2")
        h = paddle.maximum(paddle.matmul(x, w1), paddle.zeros([1], "float64"))
        loss = paddle.mean(paddle.tanh(paddle.matmul(h, w2)) ** 2)
        pairs = static.append_backward(loss)
    scope = static.Scope()
    scope.set("w1", w1v)
    scope.set("w2", w2v)
    exe = static.Executor()
    fetch = [loss] + [g for _, g in pairs]
    return main, pairs, exe.run(main, feed={"x": xv}, fetch_list=fetch, scope=scope)


def test_mlp_gradients_equal_eager():
    rng = np.random.default_rng(0)
    xv, w1v, w2v = (rng.standard_normal(s) for s in ((5, 4), (4, 6), (6, 3)))
    main, pairs, (loss, g1, g2) = _mlp_static(xv, w1v, w2v)
    assert [(p.name, g.name) for p, g in pairs] == [("w1", "w1@GRAD"), ("w2", "w2@GRAD")]
    w1, w2 = paddle.to_tensor(w1v), paddle.to_tensor(w2v)
    w1.stop_gradient = w2.stop_gradient = False
    h = paddle.maximum(paddle.matmul(paddle.to_tensor(xv), w1), paddle.zeros([1], "float64"))
    eager_loss = paddle.mean(paddle.tanh(paddle.matmul(h, w2)) ** 2)
    eager_loss.backward()
    np.testing.assert_allclose(loss, eager_loss.numpy(), rtol=1e-12)
    np.testing.assert_allclose(g1, w1.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(g2, w2.grad.numpy(), rtol=1e-10, atol=1e-12)
    main.verify()


def test_contributions_are_summed_with_add_n():
    main = static.Program()
    with unique_name.guard(), static_guard(main):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        y = (paddle.sin(x) * x).sum()
        (gx,) = static.gradients(y, [x])
    assert gx.name == "x@GRAD"
    assert [op.type for op in main.global_block().ops].count("add_n") == 1
    xv = np.array([0.1, 0.5, 2.0])
    (g,) = static.Executor().run(main, feed={"x": xv}, fetch_list=[gx])
    np.testing.assert_allclose(g, np.cos(xv) * xv + np.sin(xv))


def test_no_grad_set_and_stop_gradient_block_the_path():
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [2], "float64")
        x.stop_gradient = False
        a = x * 2.0
        b = x * 3.0
        c = x * 5.0
        c.stop_gradient = True
        y = (a + b + c).sum()
        (g_none,) = static.gradients(y, [x], no_grad_set={a.name})
    (g,) = static.Executor().run(main, feed={"x": np.ones(2)}, fetch_list=[g_none])
    np.testing.assert_allclose(g, [3.0, 3.0])


def test_unreachable_input_gives_none_and_target_gradients_scale():
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [2], "float64")
        z = static.data("z", [2], "float64")
        y = x * x
        gx, gz = static.gradients([y], [x, z], target_gradients=[paddle.full([2], 2.0,
                                                                             "float64")])
    assert gz is None
    (g,) = static.Executor().run(main, feed={"x": np.array([1.0, 3.0]),
                                             "z": np.zeros(2)}, fetch_list=[gx])
    np.testing.assert_allclose(g, [4.0, 12.0])


def test_double_grad_through_gradients_of_gradients():
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [3], "float64")
        x.stop_gradient = False
        y = (x ** 3).sum()
        (dx,) = static.gradients(y, [x])
        (ddx,) = static.gradients(dx.sum(), [x])
    xv = np.array([1.0, -2.0, 0.5])
    d1, d2 = static.Executor().run(main, feed={"x": xv}, fetch_list=[dx, ddx])
    np.testing.assert_allclose(d1, 3 * xv ** 2)
    np.testing.assert_allclose(d2, 6 * xv)


def test_broadcast_grad_is_reduced_to_the_input_shape():
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [None, 3], "float32")
        b = static.create_parameter([3], "float32", name="b_bcast", is_bias=True)
        loss = (x + b).sum()
        ((_, gb),) = static.append_backward(loss, parameter_list=[b])
    assert gb.shape == [3] and gb.dtype == paddle.float32
    scope = static.Scope()
    scope.set("b_bcast", np.zeros(3, "float32"))
    (g,) = static.Executor().run(main, feed={"x": np.ones((4, 3), "float32")},
                                 fetch_list=[gb], scope=scope)
    np.testing.assert_allclose(g, [4.0, 4.0, 4.0])


def test_sgd_training_loop_with_inplace_parameter_update():
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((16, 2))
    yv = xv @ np.array([[2.0], [-1.0]])
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [None, 2], "float64")
        y = static.data("y", [None, 1], "float64")
        w = static.create_parameter([2, 1], "float64", name="w_sgd")
        loss = ((paddle.matmul(x, w) - y) ** 2).sum() / 16.0
        ((_, gw),) = static.append_backward(loss)
        w.subtract_(gw * 0.1)
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        losses = [exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])[0]
                  for _ in range(100)]
        final = static.global_scope().get("w_sgd")
    assert losses[-1] < 1e-6 < losses[0]
    np.testing.assert_allclose(final, [[2.0], [-1.0]], atol=1e-3)


def test_append_backward_errors():
    with pytest.raises(AssertionError, match="only supported in static graph mode"):
        static.append_backward(paddle.ones([1]))
    # Paddle 3.3.1 accepts a loss of several elements (seeded with ones)
    main = static.Program()
    with static_guard(main):
        x = static.data("x", [2, 2], "float32")
        x.stop_gradient = False
        y = static.data("y", [2], "float32")
        pairs = static.append_backward(x * 3.0, parameter_list=[x, y])
        assert pairs[1][1] is None  # y does not reach the loss: (y, None), as Paddle 3
        got, = static.Executor().run(main, feed={"x": np.ones((2, 2), "float32")},
                                     fetch_list=[pairs[0][1]])
    np.testing.assert_allclose(got, np.full((2, 2), 3.0))

"""broadcast_to / expand in a static Program with the target shape read when it runs (a 1-D
int Variable, or a list holding 1-element Variables), its gradient, and Paddle's static
argument checks."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard


def test_shape_variables_are_read_at_run_time_with_gradient():
    a = np.arange(6, dtype="float32").reshape(3, 1, 2)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [3, 1, 2], "float32")
        x.stop_gradient = False
        shape = paddle.static.data("shape", [4], "int32")
        rows = paddle.static.data("rows", [1], "int64")
        out1 = paddle.broadcast_to(x, shape=shape)
        out2 = paddle.expand(x, shape=[rows, -1, 4, -1])
        assert out1.shape == [-1, -1, -1, -1] and out2.shape == [-1, 3, 4, 2]
        grad, = paddle.static.gradients([out1.sum() + out2.sum()], [x])
    exe = paddle.static.Executor()
    for lead in (2, 5):
        r1, r2, g = exe.run(main, feed={"x": a, "shape": np.array([lead, 3, 4, 2], "int32"),
                                        "rows": np.array([lead])},
                            fetch_list=[out1, out2, grad])
        want = np.broadcast_to(a, (lead, 3, 4, 2))
        np.testing.assert_array_equal(r1, want)
        np.testing.assert_array_equal(r2, want)
        np.testing.assert_array_equal(g, np.full((3, 1, 2), 2 * lead * 4, "float32"))


def test_run_time_shape_that_does_not_fit_x_is_refused():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [3, 2], "float32")
        out = paddle.broadcast_to(x, paddle.static.data("s", [2], "int64"))
    with pytest.raises(ValueError, match="expand"):
        paddle.static.Executor().run(main, feed={"x": np.ones((3, 2), "float32"),
                                                 "s": np.array([4, 2])}, fetch_list=[out])


def test_static_argument_checks():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", [-1, 4], "bool")
        with pytest.raises(TypeError, match="broadcast_to: shape must be a list, tuple or "
                                            "Variable, got int"):
            paddle.broadcast_to(x, 1)
        x.stop_gradient = False
        with pytest.raises(ValueError, match="broadcast_to: a bool x must have "
                                             "stop_gradient=True"):
            paddle.broadcast_to(x, [2, 4])
        with pytest.raises(TypeError, match="expand: x must be a Variable or Tensor"):
            paddle.expand(np.ones((2, 2)), [2, 2])

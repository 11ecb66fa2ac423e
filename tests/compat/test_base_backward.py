"""paddle.base.backward: calc_gradient (one input -> its gradient itself) and the grad-name
helpers (cases from Paddle's test_backward)."""
import numpy as np
import pytest

import sampan as paddle
from sampan.base import backward
from tests.static_util import static_guard


@pytest.mark.parametrize("name,want", [
    ("x@GRAD", "x"), ("x@GRAD@GRAD", "x"), ("x@GRAD@RENAME@1", "x"),
    ("x@GRAD_slice_0@GRAD", "x@GRAD_slice_0"), ("grad/grad/x@GRAD@RENAME@block0@1@GRAD", "x"),
    ("plain", "plain")])
def test_strip_grad_suffix(name, want):
    assert backward._strip_grad_suffix_(name) == want
    assert backward._strip_grad_suffix_(backward._append_grad_suffix_("w")) == "w"


def test_calc_gradient_single_and_many():
    main = paddle.static.Program()
    with static_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2], "float32")
        y = paddle.static.data("y", [2], "float32")
        x.stop_gradient = y.stop_gradient = False
        loss = paddle.sum(x * x * y)
        gx = backward.calc_gradient(loss, x)
        both = backward.calc_gradient(loss, [x, y])
        feed = {"x": np.array([1.0, 2.0], "float32"), "y": np.array([3.0, 4.0], "float32")}
        got = paddle.static.Executor().run(main, feed=feed, fetch_list=[gx] + list(both))
    np.testing.assert_allclose(got[0], [6.0, 16.0])
    np.testing.assert_allclose(got[1], [6.0, 16.0])
    np.testing.assert_allclose(got[2], [1.0, 4.0])

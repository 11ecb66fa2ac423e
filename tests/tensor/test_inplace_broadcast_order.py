"""Elementwise in-place forms check that x keeps its shape under broadcasting before the op's
own checks (Paddle's order): a float x for an integer-only op with a y that would grow x is a
ValueError about the shape, not a TypeError about the dtype."""
import pytest

import sampan as paddle


@pytest.mark.parametrize("api", ["bitwise_left_shift_", "bitwise_right_shift_", "gcd_",
                                 "lcm_", "add_"])
def test_shape_error_comes_before_dtype_error(api):
    x = paddle.randn([4, 5])
    y = paddle.ones([3, 4, 5], dtype="int32")
    with pytest.raises(ValueError, match=rf"{api}: the broadcast shape \[3, 4, 5\] of x "
                                         rf"\[4, 5\]"):
        getattr(paddle, api)(x, y)


def test_both_operands_broadcasting_is_refused_and_x_unchanged():
    x = paddle.ones([1, 3], dtype="int64")
    with pytest.raises(ValueError, match=r"gcd_: the broadcast shape \[2, 3\]"):
        paddle.gcd_(x, paddle.ones([2, 1], dtype="int64"))
    assert x.shape == [1, 3] and x.numpy().tolist() == [[1, 1, 1]]


def test_broadcast_of_y_into_x_still_works_and_dtype_errors_remain():
    x = paddle.to_tensor([[1, 2], [3, 4]], dtype="int32")
    paddle.bitwise_left_shift_(x, paddle.to_tensor([1, 2], dtype="int32"))
    assert x.numpy().tolist() == [[2, 8], [6, 16]]
    with pytest.raises(TypeError, match="bitwise_left_shift"):
        paddle.bitwise_left_shift_(paddle.randn([2]), paddle.ones([2], dtype="int32"))


@pytest.mark.parametrize("x,y", [(1, 2), (None, None), (paddle.ones([2]), 1.0)])
def test_where_inplace_needs_two_tensors(x, y):
    cond = paddle.to_tensor([True, False])
    with pytest.raises(ValueError, match="where_: x and y must both be given as Tensors"):
        paddle.where_(cond, x, y)

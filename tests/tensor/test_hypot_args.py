"""hypot / hypot_ take Tensors only (a Python number is a TypeError); pow's y is a number or a
Tensor (an ndarray, a str or a NumPy int scalar is a TypeError), as in Paddle."""
import numpy as np
import pytest

import sampan as paddle


@pytest.mark.parametrize("api", ["hypot", "hypot_"])
def test_number_operand_is_type_error(api):
    x = paddle.to_tensor([3.0, 5.0])
    with pytest.raises(TypeError, match="hypot: y must be a Tensor, got float"):
        getattr(paddle, api)(x, 3.8)
    with pytest.raises(TypeError, match=f"{api}: x must be a Tensor, got float"):
        getattr(paddle, api)(3.8, x)


def test_tensor_operands():
    got = paddle.hypot(paddle.to_tensor([3.0, 5.0]), paddle.to_tensor([4.0, 12.0]))
    np.testing.assert_allclose(got.numpy(), [5.0, 13.0])


@pytest.mark.parametrize("y", [np.ones(3), "2", np.int8(2)])
def test_pow_exponent_kinds(y):
    with pytest.raises(TypeError, match="pow: y must be a Python int/float or a Tensor"):
        paddle.pow(paddle.to_tensor([1.0, 2.0, 3.0]), y)
    np.testing.assert_allclose(paddle.pow(paddle.to_tensor([2.0]), 3).numpy(), [8.0])

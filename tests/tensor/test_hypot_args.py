"""hypot / hypot_ take Tensors only: a Python number for x or y is a TypeError (Paddle)."""
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

"""Tensor.set_tensor (Paddle 3.x), checked against Paddle 3.3.1."""
import numpy as np
import pytest

import sampan as paddle


def test_set_tensor_replaces_value_shape_and_dtype_by_a_copy():
    a = paddle.to_tensor([1., 2.])
    b = paddle.to_tensor([[3., 4., 5.]], dtype="float64")
    assert a.set_tensor(b) is None
    assert a.shape == [1, 3] and a.dtype == paddle.float64
    b[0, 0] = 9.
    np.testing.assert_array_equal(a.numpy(), [[3., 4., 5.]])


def test_set_tensor_keeps_stop_gradient_and_checks_type():
    a = paddle.to_tensor([1., 2.], stop_gradient=False)
    a.set_tensor(paddle.ones([3]))
    assert a.stop_gradient is False and a.shape == [3]
    with pytest.raises(ValueError, match="'value' .* must be Tensor, but got ndarray"):
        a.set_tensor(np.ones(2))

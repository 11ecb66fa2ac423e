"""paddle.autograd.jacobian / hessian."""
import numpy as np
import pytest

import sampan as paddle


def test_jacobian_of_elementwise_square():
    x = paddle.to_tensor(np.array([1.0, 2.0, 3.0]), stop_gradient=False)
    J = paddle.autograd.jacobian(x * x, x)
    assert J.shape == [3, 3]
    np.testing.assert_allclose(J[:].numpy(), np.diag(2 * x.numpy()))


def test_batched_jacobian():
    x = paddle.to_tensor(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    J = paddle.autograd.jacobian(x * 3.0, x, batch_axis=0)
    assert J.shape == [2, 3, 3]
    np.testing.assert_allclose(J[0].numpy(), 3 * np.eye(3))


def test_hessian_of_cubic():
    x = paddle.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
    H = paddle.autograd.hessian((x * x * x).sum(), x)
    np.testing.assert_allclose(H[:].numpy(), np.diag(6 * x.numpy()))
    with pytest.raises(ValueError, match="one element"):
        paddle.autograd.hessian(x * x, x)

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


def test_jacobian_over_sequences_nests_like_paddle():
    x1 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    x2 = paddle.to_tensor([3.0, 4.0, 5.0], stop_gradient=False)
    y = x1.sum() * x2
    J = paddle.autograd.jacobian(y, (x1, x2))
    assert isinstance(J, tuple) and len(J) == 2
    assert J[0].shape == [3, 2] and type(J[0].shape) is list
    np.testing.assert_allclose(J[0][:].numpy(), np.tile(x2.numpy()[:, None], (1, 2)))
    np.testing.assert_allclose(J[1][:].numpy(), np.eye(3) * 3.0)
    JJ = paddle.autograd.jacobian((y, x1 * x1), (x1, x2))
    assert len(JJ) == 2 and all(len(row) == 2 for row in JJ)
    np.testing.assert_allclose(JJ[1][0][:].numpy(), np.diag([2.0, 4.0]))
    unused = JJ[1][1][:]   # x1 * x1 does not depend on x2: zeros, x2's stop_gradient
    np.testing.assert_allclose(unused.numpy(), np.zeros((2, 3)))
    assert unused.stop_gradient is False
    Jy = paddle.autograd.jacobian([y, x1 * x1], x1)
    assert len(Jy) == 2 and Jy[1].shape == [2, 2]


def test_hessian_over_a_sequence_gives_blocks():
    x1 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    x2 = paddle.to_tensor([3.0, 4.0, 5.0], stop_gradient=False)
    y = (x1 * x1).sum() * x2.sum()     # d2y/dx1dx2[i, j] = 2 * x1[i]
    H = paddle.autograd.hessian(y, (x1, x2))
    assert [[h.shape for h in row] for row in H] == [[[2, 2], [2, 3]], [[3, 2], [3, 3]]]
    np.testing.assert_allclose(H[0][1][:].numpy(), [[2.0] * 3, [4.0] * 3])
    np.testing.assert_allclose(H[1][0][:].numpy(), [[2.0, 4.0]] * 3)
    np.testing.assert_allclose(H[0][0][:].numpy(), np.eye(2) * 2 * 12.0)
    np.testing.assert_allclose(H[1][1][:].numpy(), np.zeros((3, 3)))
    with pytest.raises(TypeError, match="hessian: ys must be one Tensor"):
        paddle.autograd.hessian([y], x1)


def test_batched_hessian():
    b = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    H = paddle.autograd.hessian((b * b * b).sum(-1), b, batch_axis=0)
    np.testing.assert_allclose(H[:].numpy(), [np.diag([6.0, 12.0]), np.diag([18.0, 24.0])])

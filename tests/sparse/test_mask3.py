"""paddle.sparse.mask_as and SparseCooTensor.is_coalesced (Paddle 3.x); values recorded
from Paddle 3.3.1."""
import numpy as np
import pytest

import sampan as paddle


def _coo():
    indices = paddle.to_tensor([[0, 1, 0], [1, 0, 1]])
    return paddle.sparse.sparse_coo_tensor(indices, paddle.to_tensor([1., 2., 3.]), [2, 2])


def test_is_coalesced_as_paddle():
    coo = _coo()
    assert coo.is_coalesced() is False          # new tensors: False, even with unique indices
    assert coo.coalesce().is_coalesced() is True
    unique = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1., 2.], [2, 2])
    assert unique.is_coalesced() is False
    dense = paddle.to_tensor([[0., 1.], [2., 0.]])
    assert dense.to_sparse_coo(2).is_coalesced() is True
    with pytest.raises(TypeError, match="only a sparse COO tensor"):
        dense.to_sparse_csr().is_coalesced()
    with pytest.raises(TypeError, match="only a sparse COO tensor"):
        dense.is_coalesced()


def test_mask_as_coo_and_csr():
    x = paddle.to_tensor([[1., 2.], [3., 4.]])
    mask = _coo().coalesce()
    out = paddle.sparse.mask_as(x, mask)
    assert out.is_sparse_coo()
    np.testing.assert_array_equal(out.indices().numpy(), [[0, 1], [1, 0]])
    np.testing.assert_array_equal(out.values().numpy(), [2., 3.])
    csr = paddle.sparse.mask_as(x, mask.to_sparse_csr())
    assert csr.is_sparse_csr()
    np.testing.assert_array_equal(csr.crows().numpy(), [0, 1, 2])
    np.testing.assert_array_equal(csr.cols().numpy(), [1, 0])
    np.testing.assert_array_equal(csr.values().numpy(), [2., 3.])


def test_mask_as_keeps_zero_entries_and_dense_dims():
    x = paddle.to_tensor([[0., 5.], [6., 0.]])
    mask = paddle.sparse.sparse_coo_tensor([[0, 1], [0, 1]], [1., 1.], [2, 2])
    np.testing.assert_array_equal(paddle.sparse.mask_as(x, mask).values().numpy(), [0., 0.])
    x3 = paddle.arange(8, dtype="float32").reshape([2, 2, 2])
    hybrid = paddle.sparse.sparse_coo_tensor([[1]], [[[1., 1.], [1., 1.]]], [2, 2, 2])
    np.testing.assert_array_equal(paddle.sparse.mask_as(x3, hybrid).values().numpy(),
                                  [[[4., 5.], [6., 7.]]])


def test_mask_as_gradient_reaches_x():
    x = paddle.to_tensor([[1., 2.], [3., 4.]], stop_gradient=False)
    paddle.sparse.mask_as(x, _coo().coalesce()).values().sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0., 1.], [1., 0.]])


def test_mask_as_errors():
    with pytest.raises(ValueError, match=r"x \(shape \[3\]\) and mask \(shape \[2, 2\]\)"):
        paddle.sparse.mask_as(paddle.ones([3]), _coo())
    with pytest.raises(TypeError, match="mask must be a SparseCooTensor"):
        paddle.sparse.mask_as(paddle.ones([2, 2]), paddle.ones([2, 2]))
    with pytest.raises(TypeError, match="x must be a dense Tensor"):
        paddle.sparse.mask_as(_coo(), _coo())

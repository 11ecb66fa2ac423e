"""paddle.sparse tensors: creation, accessors, conversions, coalesce, errors (numbers and
layouts recorded from Paddle 3.3.1 on CPU)."""
import numpy as np
import pytest

import sampan as paddle
from sampan import sparse

I = [[0, 1, 1, 2], [1, 0, 2, 1]]
V = [1.0, 2.0, 3.0, 4.0]
DENSE = np.array([[0, 1, 0], [2, 0, 3], [0, 4, 0]], np.float32)


def coo(stop_gradient=True):
    return sparse.sparse_coo_tensor(I, V, [3, 3], stop_gradient=stop_gradient)


def test_coo_accessors():
    x = coo(False)
    assert x.is_sparse() and x.is_sparse_coo() and not x.is_sparse_csr()
    assert x.shape == [3, 3] and x.nnz() == 4 and str(x.dtype) == "paddle.float32"
    assert x.indices().numpy().tolist() == I and str(x.indices().dtype) == "paddle.int64"
    assert x.values().numpy().tolist() == V and not x.stop_gradient
    np.testing.assert_array_equal(x.to_dense().numpy(), DENSE)
    assert "indices=[[0, 1, 1, 2],\n                [1, 0, 2, 1]], " in repr(x)


def test_csr_from_coo_matches_paddle():
    c = coo().to_sparse_csr()
    assert c.is_sparse_csr()
    # Paddle 3.3.1: crows [0, 1, 3, 4], cols [1, 0, 2, 1], values [1, 2, 3, 4]
    assert c.crows().numpy().tolist() == [0, 1, 3, 4]
    assert c.cols().numpy().tolist() == [1, 0, 2, 1]
    assert c.values().numpy().tolist() == V
    np.testing.assert_array_equal(c.to_dense().numpy(), DENSE)
    back = c.to_sparse_coo()
    assert back.indices().numpy().tolist() == I


def test_batched_csr_round_trip():
    rng = np.random.RandomState(0)
    dense = rng.randn(2, 3, 4) * (rng.rand(2, 3, 4) > 0.5)
    x = paddle.to_tensor(dense)
    c = x.to_sparse_csr()
    assert c.crows().shape == [2 * 4]
    np.testing.assert_allclose(c.to_dense().numpy(), dense)
    built = sparse.sparse_csr_tensor(c.crows(), c.cols(), c.values(), [2, 3, 4])
    np.testing.assert_allclose(built.to_dense().numpy(), dense)


def test_dense_to_coo_with_dense_dims_and_grad():
    data = np.array([[[0., 0.], [1., 2.]], [[3., 0.], [0., 0.]]])
    x = paddle.to_tensor(data, stop_gradient=False)
    s = x.to_sparse_coo(2)
    assert s.indices().numpy().tolist() == [[0, 1], [1, 0]]  # Paddle: rows with any non-zero
    assert s.values().shape == [2, 2] and s.shape == [2, 2, 2]
    np.testing.assert_array_equal(s.to_dense().numpy(), data)
    (s.values() * paddle.to_tensor([1.0, 10.0])).sum().backward()
    want = np.zeros_like(data)
    want[0, 1] = want[1, 0] = [1, 10]
    np.testing.assert_array_equal(x.grad.numpy(), want)
    assert not x.is_sparse_coo() and not x.is_sparse()


def test_coalesce_matches_paddle():
    dup = sparse.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1., 2., 3.], [2, 2],
                                   stop_gradient=False)
    c = sparse.coalesce(dup)
    assert c.indices().numpy().tolist() == [[0, 1], [1, 0]]  # Paddle 3.3.1
    assert c.values().numpy().tolist() == [2.0, 4.0]
    (c.values() * paddle.to_tensor([1.0, 5.0])).sum().backward()
    assert dup.grad.values().numpy().tolist() == [5.0, 1.0, 5.0]
    np.testing.assert_array_equal(dup.to_dense().numpy(), [[0, 2], [4, 0]])


def test_grad_is_sparse_with_pattern():
    x = coo(False)
    (x.to_dense() * paddle.to_tensor(np.arange(9.0, dtype="float32").reshape(3, 3))
     ).sum().backward()
    g = x.grad
    assert g.is_sparse_coo() and g.indices().numpy().tolist() == I
    assert g.values().numpy().tolist() == [1.0, 3.0, 5.0, 7.0]


def test_default_shape_and_dtype():
    x = sparse.sparse_coo_tensor([[0, 4]], [1, 2])
    assert x.shape == [5] and str(x.dtype) == "paddle.int64"
    y = sparse.sparse_coo_tensor([[0, 4]], [1.0, 2.0], dtype="float64")
    assert str(y.dtype) == "paddle.float64"


def test_creation_errors():
    with pytest.raises(ValueError, match="sparse_coo_tensor: indices out of range"):
        sparse.sparse_coo_tensor(I, V, [2, 3])
    with pytest.raises(ValueError, match="sparse_coo_tensor: values must have nnz=4"):
        sparse.sparse_coo_tensor(I, V[:3], [3, 3])
    with pytest.raises(TypeError, match="sparse_coo_tensor: indices must hold integers"):
        sparse.sparse_coo_tensor([[0.5]], [1.0], [2])
    with pytest.raises(ValueError, match="sparse_csr_tensor: crows must have 4"):
        sparse.sparse_csr_tensor([0, 1, 3], [1, 0, 2], [1., 2., 3.], [3, 3])
    with pytest.raises(ValueError, match="start at 0 and not decrease"):
        sparse.sparse_csr_tensor([0, 2, 1, 3], [1, 0, 2], [1., 2., 3.], [3, 3])
    with pytest.raises(ValueError, match="cols out of range"):
        sparse.sparse_csr_tensor([0, 1, 2, 3], [1, 0, 3], [1., 2., 3.], [3, 3])
    with pytest.raises(ValueError, match="to_sparse_coo: sparse_dim"):
        paddle.ones([2, 2]).to_sparse_coo(3)
    with pytest.raises(TypeError, match="coalesce: x must be a sparse COO"):
        sparse.coalesce(paddle.ones([2]))

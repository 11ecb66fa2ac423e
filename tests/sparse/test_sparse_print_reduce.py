"""Sparse tensors print as Paddle 3.3.1 does; sparse.sum over the only sparse dim;
sparse.reshape with 0 (copy the input size) in the shape. Expected text/numbers were
recorded from Paddle 3.3.1."""
import pytest

import sampan as paddle

COO_TEXT = (
    "Tensor(shape=[3, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True, \n"
    "       indices=[[0, 1, 2],\n"
    "                [1, 0, 2]], \n"
    "       values=[1.        , 2.        , 3.50000000])")
CSR_TEXT = (
    "Tensor(shape=[2, 3, 4], dtype=paddle.float32, place=Place(cpu), stop_gradient=True, \n"
    "       crows=[0 , 3 , 7 , 11, 0 , 4 , 8 , 12], \n"
    "       cols=[1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2,\n"
    "             3], \n"
    "       values=[1. , 2. , 3. , 4. , 5. , 6. , 7. , 8. , 9. , 10., 11., 12., 13.,\n"
    "               14., 15., 16., 17., 18., 19., 20., 21., 22., 23.])")
HYBRID_TEXT = (
    "Tensor(shape=[2, 2], dtype=paddle.float32, place=Place(cpu), stop_gradient=True, \n"
    "       indices=[[0, 1]], \n"
    "       values=[[-2.,  0.],\n"
    "               [ 1.,  2.]])")


def test_print_coo_csr_and_hybrid():
    x = paddle.sparse.sparse_coo_tensor([[0, 1, 2], [1, 0, 2]], [1.0, 2.0, 3.5], [3, 3])
    assert str(x) == COO_TEXT
    assert str(paddle.arange(24.0).reshape([2, 3, 4]).to_sparse_csr()) == CSR_TEXT
    assert repr(paddle.to_tensor([[-2.0, 0.0], [1.0, 2.0]]).to_sparse_coo(1)) == HYBRID_TEXT


@pytest.mark.parametrize("kw, shape, indices, values", [
    ({"axis": 0}, [1, 2], [[0]], [[-1.0, 2.0]]),
    ({"axis": 0, "keepdim": True}, [1, 2], [[0]], [[-1.0, 2.0]]),
    ({"axis": -1}, [2], [[0, 1]], [-2.0, 3.0]),
    ({"axis": 1, "keepdim": True}, [2, 1], [[0, 1]], [[-2.0], [3.0]]),
])
def test_sum_with_one_sparse_dim(kw, shape, indices, values):
    x = paddle.to_tensor([[-2.0, 0.0], [1.0, 2.0]]).to_sparse_coo(1)
    out = paddle.sparse.sum(x, **kw)
    assert out.shape == shape
    assert out.indices().numpy().tolist() == indices
    assert out.values().numpy().tolist() == values


@pytest.mark.parametrize("shape, want", [
    ([0, -1, 4], [2, 3, 4]), ([2, 0, 0], [2, 3, 4]), ([6, 4], [6, 4])])
def test_reshape_zero_copies_input_size(shape, want):
    x = paddle.arange(24.0).reshape([2, 3, 4]).to_sparse_coo(2)
    out = paddle.sparse.reshape(x, shape)
    assert out.shape == want
    assert out.to_dense().numpy().tolist() == x.to_dense().reshape(want).numpy().tolist()


def test_reshape_zero_with_all_sparse_dims_and_errors():
    dense = paddle.arange(36).reshape([6, 2, 3])
    out = paddle.sparse.reshape(dense.to_sparse_coo(3), [1, 0, 2, -1, 3])
    assert out.shape == [1, 2, 2, 3, 3]
    x = paddle.arange(24.0).reshape([2, 3, 4]).to_sparse_coo(2)
    with pytest.raises(ValueError, match=r"cannot reshape \[2, 3, 4\] \(dense dims \[4\]\)"):
        paddle.sparse.reshape(x, [3, 0, 4])
    with pytest.raises(ValueError, match=r"shape\[3\] is 0"):
        paddle.sparse.reshape(x, [1, 2, 3, 0])

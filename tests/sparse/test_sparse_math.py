"""paddle.sparse math: results and layouts recorded from Paddle 3.3.1 (CPU); products (which
Paddle 3.3.1 has no CPU kernel for) against NumPy; gradients against central differences."""
import numpy as np
import pytest

import sampan as paddle
from sampan import sparse
from tests.gradcheck import numeric_grad

I = [[0, 1, 1, 2], [1, 0, 2, 1]]
V = [1.0, 2.0, 3.0, 4.0]
DENSE = np.array([[0, 1, 0], [2, 0, 3], [0, 4, 0]], np.float64)
UNION = [[0, 1, 1, 2, 2], [1, 0, 2, 1, 2]]
# Paddle 3.3.1, x = coo(I, V), y = coo([[0, 2, 2], [1, 1, 2]], [5, 6, 7]), both [3, 3]
PADDLE_BINARY = {"add": [6.0, 2.0, 3.0, 10.0, 7.0], "subtract": [-4.0, 2.0, 3.0, -2.0, -7.0],
                 "multiply": [5.0, 0.0, 0.0, 24.0, 0.0]}
PADDLE_DIVIDE = [np.nan, 0.2, np.nan, np.inf, np.nan, np.inf, np.nan, 0.6666667, 0.0]


def xy(fmt="coo", dtype="float32"):
    x = sparse.sparse_coo_tensor(I, V, [3, 3], dtype=dtype)
    y = sparse.sparse_coo_tensor([[0, 2, 2], [1, 1, 2]], [5.0, 6.0, 7.0], [3, 3], dtype=dtype)
    return (x, y) if fmt == "coo" else (x.to_sparse_csr(), y.to_sparse_csr())


@pytest.mark.parametrize("name", sorted(PADDLE_BINARY))
def test_binary_matches_paddle(name):
    x, y = xy()
    out = getattr(sparse, name)(x, y)
    assert out.indices().numpy().tolist() == UNION
    assert out.values().numpy().tolist() == PADDLE_BINARY[name]
    outc = getattr(sparse, name)(*xy("csr"))
    assert outc.is_sparse_csr()
    np.testing.assert_array_equal(outc.to_dense().numpy(), out.to_dense().numpy())


def test_divide_matches_paddle():
    out = sparse.divide(*xy())
    assert out.nnz() == 9
    np.testing.assert_allclose(out.values().numpy(), PADDLE_DIVIDE, rtol=1e-6)
    assert sparse.divide(xy()[0], 2.0).values().numpy().tolist() == [0.5, 1.0, 1.5, 2.0]


def test_binary_grad():
    x, y = xy(dtype="float64")
    x.stop_gradient = y.stop_gradient = False
    sparse.multiply(sparse.add(x, y), x).to_dense().sum().backward()
    # d/dx of (x + y) * x = 2x + y on x's entries, d/dy = x on y's entries
    np.testing.assert_allclose(x.grad.values().numpy(), [2 + 5, 4, 6, 8 + 6])
    np.testing.assert_allclose(y.grad.values().numpy(), [1, 4, 0])


def test_unary_on_values():
    x = sparse.sparse_coo_tensor(I, [0.1, 0.2, 0.3, 0.4], [3, 3])
    for name in ("abs", "asin", "asinh", "atan", "atanh", "deg2rad", "expm1", "log1p", "neg",
                 "rad2deg", "sin", "sinh", "sqrt", "square", "tan", "tanh"):
        out = getattr(sparse, name)(x)
        want = getattr(paddle, name)(x.values()).numpy()
        np.testing.assert_allclose(out.values().numpy(), want, err_msg=name)
        assert out.indices().numpy().tolist() == I
    assert sparse.isnan(x).values().numpy().tolist() == [False] * 4
    # Paddle 3.3.1: pow 2 and sqrt of V
    assert sparse.pow(xy()[0], 2).values().numpy().tolist() == [1.0, 4.0, 9.0, 16.0]
    np.testing.assert_allclose(sparse.sqrt(xy()[0].to_sparse_csr()).values().numpy(),
                               [1.0, 1.4142135, 1.7320508, 2.0], rtol=1e-6)


def test_cast_matches_paddle():
    out = sparse.cast(xy()[0], "int32", "float64")
    assert str(out.indices().dtype) == "paddle.int32" and str(out.dtype) == "paddle.float64"
    with pytest.raises(TypeError, match="index_dtype"):
        sparse.cast(xy()[0], "float32")


def test_shape_functions_match_paddle():
    x = xy()[0]
    t = sparse.transpose(x, [1, 0])
    assert t.indices().numpy().tolist() == [[1, 0, 2, 1], [0, 1, 1, 2]]  # Paddle 3.3.1
    r = sparse.reshape(x, [9, 1])
    assert r.indices().numpy().tolist() == [[1, 3, 5, 7], [0, 0, 0, 0]]
    assert sparse.reshape(x, [-1, 9]).shape == [1, 9]
    s = sparse.slice(x, [0, 1], [1, 0], [3, 2])
    assert s.shape == [2, 2] and s.indices().numpy().tolist() == [[0, 1], [0, 1]]
    assert s.values().numpy().tolist() == [2.0, 4.0]
    np.testing.assert_array_equal(sparse.transpose(x.to_sparse_csr(), [1, 0]).to_dense(),
                                  DENSE.T)
    with pytest.raises(ValueError, match="paddle.sparse.reshape: cannot reshape"):
        sparse.reshape(x, [4, 2])


def test_sum_matches_paddle():
    x = xy()[0]
    full = sparse.sum(x)
    assert full.shape == [1] and full.values().numpy().tolist() == [10.0]
    s1 = sparse.sum(x, axis=1)
    assert s1.shape == [3] and s1.indices().numpy().tolist() == [[0, 1, 2]]
    assert s1.values().numpy().tolist() == [1.0, 5.0, 4.0]
    s0 = sparse.sum(x, axis=0, keepdim=True)
    assert s0.shape == [1, 3] and s0.indices().numpy().tolist() == [[0, 0, 0], [0, 1, 2]]
    assert s0.values().numpy().tolist() == [2.0, 5.0, 3.0]


def _num_check(fn, values: np.ndarray, analytic: np.ndarray) -> None:
    np.testing.assert_allclose(analytic, numeric_grad(fn, values), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fmt", ["coo", "csr"])
def test_matmul_sparse_dense_and_grads(fmt):
    rng = np.random.RandomState(1)
    d = rng.randn(3, 2)
    w = rng.randn(3, 2)

    def loss(vals, dense):
        x = sparse.sparse_coo_tensor(I, vals, [3, 3], stop_gradient=False)
        x = x if fmt == "coo" else x.to_sparse_csr()
        y = paddle.to_tensor(dense, stop_gradient=False)
        out = sparse.matmul(x, y)
        return x, y, out, (out * paddle.to_tensor(w)).sum()

    vals = np.array(V)
    x, y, out, total = loss(vals, d)
    np.testing.assert_allclose(out.numpy(), DENSE @ d)
    total.backward()
    _num_check(lambda v: float(loss(v, d)[3]), vals, x.grad.values().numpy())
    _num_check(lambda m: float(loss(vals, m)[3]), d, y.grad.numpy())


def test_batched_matmul_and_sparse_sparse():
    rng = np.random.RandomState(2)
    a = rng.randn(2, 3, 4) * (rng.rand(2, 3, 4) > 0.4)
    b = rng.randn(2, 4, 5)
    xs = paddle.to_tensor(a).to_sparse_coo(3)
    np.testing.assert_allclose(sparse.matmul(xs, paddle.to_tensor(b)).numpy(), a @ b)
    bs = b * (rng.rand(2, 4, 5) > 0.5)
    for conv in ("to_sparse_coo", "to_sparse_csr"):
        left = getattr(xs, conv)()
        right = getattr(paddle.to_tensor(bs).to_sparse_coo(3), conv)()
        out = sparse.matmul(left, right)
        assert out.is_sparse_csr() == (conv == "to_sparse_csr")
        np.testing.assert_allclose(out.to_dense().numpy(), a @ bs)
    with pytest.raises(ValueError, match="paddle.sparse.matmul: y must be a dense Tensor"):
        sparse.matmul(xs, paddle.ones([2, 3, 5]))


def test_masked_matmul_mv_addmm():
    rng = np.random.RandomState(3)
    a, b = rng.randn(3, 4), rng.randn(4, 3)
    x, y = paddle.to_tensor(a, stop_gradient=False), paddle.to_tensor(b)
    mask = xy("csr", "float64")[0]
    out = sparse.masked_matmul(x, y, mask)
    assert out.is_sparse_csr()
    np.testing.assert_allclose(out.to_dense().numpy(), (a @ b) * (DENSE != 0))
    out.values().sum().backward()
    want = (DENSE != 0) @ b.T  # d/dx of sum over the mask of x @ y
    np.testing.assert_allclose(x.grad.numpy(), want)
    sp = xy(dtype="float64")[0]
    vec = rng.randn(3)
    np.testing.assert_allclose(sparse.mv(sp, paddle.to_tensor(vec)).numpy(), DENSE @ vec)
    inp, dy = rng.randn(3, 2), rng.randn(3, 2)
    got = sparse.addmm(paddle.to_tensor(inp), sp, paddle.to_tensor(dy), 0.5, 2.0)
    np.testing.assert_allclose(got.numpy(), 0.5 * inp + 2.0 * DENSE @ dy)
    all_sparse = sparse.addmm(sp, sp, sp, 1.0, 1.0)
    np.testing.assert_allclose(all_sparse.to_dense().numpy(), DENSE + DENSE @ DENSE)


def test_errors_name_the_api():
    x, y = xy()
    with pytest.raises(TypeError, match=r"paddle.sparse.sin: x must be a sparse"):
        sparse.sin(paddle.ones([2]))
    with pytest.raises(ValueError, match=r"paddle.sparse.add: x and y must be sparse"):
        sparse.add(x, sparse.sparse_coo_tensor([[0]], [1.0], [2]))
    with pytest.raises(ValueError, match="paddle.sparse.mv"):
        sparse.mv(x, paddle.ones([3, 1]))
    with pytest.raises(ValueError, match="paddle.sparse.transpose: perm"):
        sparse.transpose(x, [0, 0])
    assert sparse.is_same_shape(x, paddle.ones([3, 3]))


def test_pca_lowrank():
    x = sparse.sparse_coo_tensor([[0, 1, 2], [0, 1, 2]], [3.0, 2.0, 1.0], [3, 3],
                                 dtype="float64")
    u, s, v = sparse.pca_lowrank(x, q=2, center=False)
    np.testing.assert_allclose(s.numpy(), [3.0, 2.0], rtol=1e-6)

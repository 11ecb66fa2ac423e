"""paddle.sparse binary math: elementwise add/subtract/multiply/divide of sparse tensors and
the products matmul, masked_matmul, addmm, mv. Products gather the dense operand's rows per
stored entry and scatter-add the results (index_select / index_add), so storage stays sparse
and gradients reach both the values and the dense operand. Imports framework and tensor."""
from __future__ import annotations

from typing import Optional

import numpy as np

from .. import tensor as T
from ..framework.tensor import Tensor
from .tensor import SparseCooTensor, SparseCsrTensor, _linear, _Sparse, coalesce
from .unary import check_sparse

__all__ = ["add", "subtract", "multiply", "divide", "matmul", "masked_matmul", "addmm", "mv"]


def _as_coo(x: _Sparse) -> SparseCooTensor:
    return coalesce(x.to_sparse_coo())


def _on_pattern(x: SparseCooTensor, lin: np.ndarray) -> Tensor:
    """x's values placed on the sorted positions `lin` (zeros where x has no entry)."""
    mine = _linear(x._idx, x.shape[:x._sdim])
    pos = np.searchsorted(lin, mine).astype(np.int64)
    zeros = T.zeros([lin.size] + x.values().shape[1:], dtype=x.dtype)
    return T.index_add(zeros, Tensor(pos), 0, x.values()) if mine.size else zeros


def _elementwise(api: str, fn, x, y):
    check_sparse(api, x)
    if isinstance(y, (int, float)) and api in ("multiply", "divide"):
        return x._with_values(fn(x.values(), y))
    check_sparse(api, y, "y")
    if x.shape != y.shape or type(x) is not type(y):
        raise ValueError(f"paddle.sparse.{api}: x and y must be sparse tensors of one format "
                         f"and shape, got {type(x).__name__}{list(x.shape)} and "
                         f"{type(y).__name__}{list(y.shape)}")
    cx, cy = _as_coo(x), _as_coo(y)
    if cx._sdim != cy._sdim:
        raise ValueError(f"paddle.sparse.{api}: x and y must have one sparse_dim, got "
                         f"{cx._sdim} and {cy._sdim}")
    dims = cx.shape[:cx._sdim]
    if api == "divide":  # Paddle 3.3.1 divides on every position (0/0 = nan, x/0 = inf)
        lin = np.arange(int(np.prod(dims)), dtype=np.int64)
    else:
        lin = np.union1d(_linear(cx._idx, dims), _linear(cy._idx, dims))
    vals = fn(_on_pattern(cx, lin), _on_pattern(cy, lin))
    out = SparseCooTensor(np.stack(np.unravel_index(lin, dims)), vals, cx.shape, True)
    return out.to_sparse_csr() if isinstance(x, SparseCsrTensor) else out


def add(x: _Sparse, y: _Sparse, name: Optional[str] = None) -> _Sparse:
    """x + y of two sparse tensors of one format and shape (the union of their patterns).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3])
        >>> y = paddle.sparse.sparse_coo_tensor([[1, 2]], [3.0, 4.0], [3])
        >>> paddle.sparse.add(x, y).values().numpy().tolist()
        [1.0, 5.0, 4.0]
    """
    return _elementwise("add", T.add, x, y)


def subtract(x: _Sparse, y: _Sparse, name: Optional[str] = None) -> _Sparse:
    """x - y on the union of the patterns (see `add`)."""
    return _elementwise("subtract", T.subtract, x, y)


def multiply(x: _Sparse, y, name: Optional[str] = None) -> _Sparse:
    """x * y on the union of the patterns, or x's values times a Python scalar y."""
    return _elementwise("multiply", T.multiply, x, y)


def divide(x: _Sparse, y, name: Optional[str] = None) -> _Sparse:
    """x / y on every position (as Paddle: 0/0 gives nan), or x's values over a scalar."""
    return _elementwise("divide", T.divide, x, y)


def _batched(api: str, x: SparseCooTensor):
    """(batch, rows, cols) index arrays of a coalesced 2-D/3-D COO tensor without dense dims."""
    if x.ndim not in (2, 3) or x._sdim != x.ndim:
        raise ValueError(f"paddle.sparse.{api}: x must be a 2-D or 3-D sparse tensor without "
                         f"dense dims, got shape {list(x.shape)}")
    idx = x._idx
    batch = idx[0] if x.ndim == 3 else np.zeros(idx.shape[1], np.int64)
    return batch, idx[-2], idx[-1]


def _sparse_dense(api: str, x: _Sparse, y: Tensor) -> Tensor:
    coo = x.to_sparse_coo()
    b, r, c = _batched(api, coo)
    *bs, m, k = coo.shape
    if not isinstance(y, Tensor) or y.ndim != coo.ndim or y.shape[-2] != k or \
            y.shape[:-2] != bs:
        raise ValueError(f"paddle.sparse.{api}: y must be a dense Tensor of shape "
                         f"{bs + [k, -1]} for x of shape {list(coo.shape)}, got "
                         f"{getattr(y, 'shape', type(y).__name__)}")
    n = y.shape[-1]
    nb = bs[0] if bs else 1
    rows_of_y = T.index_select(T.reshape(y, [nb * k, n]), Tensor(b * k + c), 0)
    scaled = rows_of_y * T.unsqueeze(coo.values(), -1)
    out = T.index_add(T.zeros([nb * m, n], dtype=scaled.dtype), Tensor(b * m + r), 0, scaled)
    return T.reshape(out, bs + [m, n])


def matmul(x, y, name: Optional[str] = None):
    """Sparse x times dense y -> dense; sparse times sparse -> sparse of x's format.

    x is 2-D [M, K] or batched 3-D [B, M, K]; y is [.., K, N].

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> paddle.sparse.matmul(x, paddle.ones([2, 1])).numpy().tolist()
        [[2.0], [3.0]]
    """
    check_sparse("matmul", x)
    if not isinstance(y, _Sparse):
        return _sparse_dense("matmul", x, y)
    if type(x) is not type(y):
        raise ValueError("paddle.sparse.matmul: sparse x and y must have one format (COO/CSR)")
    dense = _sparse_dense("matmul", x, y.to_dense())
    cx, cy = _as_coo(x), _as_coo(y)
    pattern = _product_pattern(cx, cy)
    flat = T.reshape(dense, [-1])
    lin = _linear(pattern, dense.shape)
    out = SparseCooTensor(pattern, T.index_select(flat, Tensor(lin), 0), dense.shape, True)
    return out.to_sparse_csr() if isinstance(x, SparseCsrTensor) else out


def _product_pattern(x: SparseCooTensor, y: SparseCooTensor) -> np.ndarray:
    """Sorted coordinates where the product of the patterns of x and y is structurally
    non-zero (a boolean matrix product over the index arrays)."""
    xb, xr, xc = _batched("matmul", x)
    yb, yr, yc = _batched("matmul", y)
    nb = x.shape[0] if x.ndim == 3 else 1
    m, k, n = x.shape[-2], x.shape[-1], y.shape[-1]
    a = np.zeros((nb, m, k), bool)
    a[xb, xr, xc] = True
    b = np.zeros((nb, k, n), bool)
    b[yb, yr, yc] = True
    hit = np.matmul(a.astype(np.int64), b.astype(np.int64)) > 0
    coords = np.stack(np.nonzero(hit))
    return coords if x.ndim == 3 else coords[1:]


def masked_matmul(x: Tensor, y: Tensor, mask: _Sparse, name: Optional[str] = None):
    """(x @ y) evaluated only where `mask` stores an entry; sparse like mask.

    Examples:
        >>> import sampan as paddle
        >>> mask = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 1.0], [2, 2])
        >>> out = paddle.sparse.masked_matmul(paddle.ones([2, 3]), paddle.ones([3, 2]), mask)
        >>> out.values().numpy().tolist()
        [3.0, 3.0]
    """
    check_sparse("masked_matmul", mask, "mask")
    coo = mask.to_sparse_coo()
    b, r, c = _batched("masked_matmul", coo)
    *bs, m, n = coo.shape
    if x.shape[:-1] != bs + [m] or y.shape[:-2] + y.shape[-1:] != bs + [n] or \
            x.shape[-1] != y.shape[-2]:
        raise ValueError(f"paddle.sparse.masked_matmul: x {list(x.shape)} @ y "
                         f"{list(y.shape)} must have "
                         f"mask's shape {list(coo.shape)}")
    nb, k = (bs[0] if bs else 1), x.shape[-1]
    xr = T.index_select(T.reshape(x, [nb * m, k]), Tensor(b * m + r), 0)
    yt = T.reshape(T.transpose(y, list(range(y.ndim - 2)) + [y.ndim - 1, y.ndim - 2]),
                   [nb * n, k])
    yc = T.index_select(yt, Tensor(b * n + c), 0)
    out = coo._with_values(T.sum(xr * yc, axis=-1))
    return out.to_sparse_csr() if isinstance(mask, SparseCsrTensor) else out


def addmm(input, x, y, beta: float = 1.0, alpha: float = 1.0, name: Optional[str] = None):
    """beta * input + alpha * (x @ y): dense input with sparse x and dense y gives a dense
    result; all three sparse gives a sparse one.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> paddle.sparse.addmm(paddle.ones([2, 1]), x, paddle.ones([2, 1]), 0.5, 2.0).numpy()
        array([[4.5],
               [6.5]], dtype=float32)
    """
    product = matmul(x, y)
    if isinstance(input, _Sparse):
        return add(multiply(input, float(beta)), multiply(product, float(alpha)))
    if isinstance(product, _Sparse):
        product = product.to_dense()
    return input * beta + product * alpha


def mv(x: _Sparse, vec: Tensor, name: Optional[str] = None) -> Tensor:
    """Sparse matrix [M, N] times dense vector [N] -> dense [M].

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [2.0, 3.0], [2, 2])
        >>> paddle.sparse.mv(x, paddle.to_tensor([1.0, 10.0])).numpy().tolist()
        [20.0, 3.0]
    """
    check_sparse("mv", x)
    if x.ndim != 2 or not isinstance(vec, Tensor) or vec.ndim != 1:
        raise ValueError(f"paddle.sparse.mv: x must be a 2-D sparse tensor and vec a 1-D "
                         f"Tensor, got {list(x.shape)} and {getattr(vec, 'shape', vec)}")
    return T.squeeze(_sparse_dense("mv", x, T.unsqueeze(vec, -1)), -1)

"""paddle.sparse unary math and shape functions: elementwise functions on the stored values
(pattern kept), cast, pow, reshape, transpose, slice, sum. Imports framework and tensor only."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .. import tensor as T
from ..framework.tensor import Tensor
from .tensor import SparseCooTensor, SparseCsrTensor, _linear, _Sparse, coalesce

_ELEMENTWISE = ("abs", "asin", "asinh", "atan", "atanh", "deg2rad", "expm1", "isnan", "log1p",
                "neg", "rad2deg", "sin", "sinh", "sqrt", "square", "tan", "tanh")
__all__ = list(_ELEMENTWISE) + ["cast", "pow", "reshape", "transpose", "slice", "sum",
                                "is_same_shape"]


def check_sparse(api: str, x, arg: str = "x") -> _Sparse:
    if not isinstance(x, _Sparse):
        raise TypeError(f"paddle.sparse.{api}: {arg} must be a sparse COO or CSR tensor, got "
                        f"{type(x).__name__}")
    return x


def _make(fname: str):
    fn = getattr(T, fname)

    def op(x: _Sparse, name: Optional[str] = None) -> _Sparse:
        return check_sparse(fname, x)._with_values(fn(x.values()))

    op.__name__ = fname
    op.__doc__ = (f"{fname} of each stored value of a sparse COO/CSR tensor (the pattern is "
                  f"kept; the implicit zeros are not evaluated).\n\n    Examples:\n"
                  f"        >>> import sampan as paddle\n"
                  f"        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1]], [0.25, 1.0], [3])\n"
                  f"        >>> paddle.sparse.{fname}(x).shape\n        paddle.Size([3])\n")
    return op


for _name in _ELEMENTWISE:
    globals()[_name] = _make(_name)


def pow(x: _Sparse, factor: float, name: Optional[str] = None) -> _Sparse:
    """x ** factor on the stored values.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 2]], [2.0, 3.0], [3])
        >>> paddle.sparse.pow(x, 2).values().numpy().tolist()
        [4.0, 9.0]
    """
    return check_sparse("pow", x)._with_values(T.pow(x.values(), factor))


def cast(x: _Sparse, index_dtype=None, value_dtype=None, name: Optional[str] = None):
    """Cast the indices (kept int64 internally, reported in `index_dtype`) and the values.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 2]], [2.0, 3.0], [3])
        >>> str(paddle.sparse.cast(x, value_dtype='float64').dtype)
        'paddle.float64'
    """
    check_sparse("cast", x)
    out = x._with_values(T.cast(x.values(), value_dtype)) if value_dtype is not None else x
    if index_dtype is not None:
        name_ = str(index_dtype).replace("paddle.", "")
        if name_ not in ("int8", "int16", "int32", "int64", "uint8"):
            raise TypeError(f"paddle.sparse.cast: index_dtype must be an integer dtype, got "
                            f"{index_dtype}")
        out = out._with_values(out.values())
        out._index_dtype = name_
    return out


def _coo_in(api: str, x) -> tuple:
    check_sparse(api, x)
    return (x.to_sparse_coo(), True) if isinstance(x, SparseCsrTensor) else (x, False)


def _coo_out(out: SparseCooTensor, was_csr: bool):
    return out.to_sparse_csr() if was_csr and out.ndim in (2, 3) else out


def reshape(x: _Sparse, shape: Sequence[int], name: Optional[str] = None) -> _Sparse:
    """Reshape the sparse dims of x; values are unchanged. As in paddle.reshape, a 0 copies
    x's size at that position and one -1 is inferred.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
        >>> paddle.sparse.reshape(x, [4, 1]).indices().numpy().tolist()
        [[1, 2], [0, 0]]
    """
    coo, was_csr = _coo_in("reshape", x)
    sdim = coo._sdim
    dense = coo.shape[sdim:]
    shape = [int(s) for s in shape]
    for i, s in enumerate(shape):
        if s == 0:
            if i >= coo.ndim:
                raise ValueError(f"paddle.sparse.reshape: shape[{i}] is 0 (copy the input "
                                 f"size) but x has only {coo.ndim} dims")
            shape[i] = coo.shape[i]
    known = int(np.prod([s for s in shape if s != -1]))
    total = int(np.prod(coo.shape))
    if shape.count(-1) == 1 and known and total % known == 0:
        shape[shape.index(-1)] = total // known
    if int(np.prod(shape)) != total or (dense and shape[len(shape) - len(dense):] != dense):
        raise ValueError(f"paddle.sparse.reshape: cannot reshape {list(coo.shape)} (dense dims "
                         f"{list(dense)}) to {shape}")
    new_sparse = shape[:len(shape) - len(dense)]
    lin = _linear(coo._idx, coo.shape[:sdim])
    idx = np.stack(np.unravel_index(lin, new_sparse))
    return _coo_out(SparseCooTensor(idx, coo.values(), shape, coo._coalesced), was_csr)


def transpose(x: _Sparse, perm: Sequence[int], name: Optional[str] = None) -> _Sparse:
    """Permute the dims of x (its sparse dims among themselves).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 3])
        >>> paddle.sparse.transpose(x, [1, 0]).shape
        paddle.Size([3, 2])
    """
    coo, was_csr = _coo_in("transpose", x)
    perm = [int(p) % coo.ndim for p in perm]
    sdim = coo._sdim
    if sorted(perm) != list(range(coo.ndim)) or perm[sdim:] != list(range(sdim, coo.ndim)):
        raise ValueError(f"paddle.sparse.transpose: perm {perm} must permute the {sdim} "
                         f"sparse dims of shape {list(coo.shape)}")
    out = SparseCooTensor(coo._idx[perm[:sdim]], coo.values(), [coo.shape[p] for p in perm])
    return _coo_out(out, was_csr)


def slice(x: _Sparse, axes: Sequence[int], starts: Sequence[int], ends: Sequence[int],
          name: Optional[str] = None) -> _Sparse:
    """Keep the entries with starts <= index < ends along `axes` (sparse dims).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
        >>> paddle.sparse.slice(x, [0], [1], [2]).values().numpy().tolist()
        [2.0]
    """
    coo, was_csr = _coo_in("slice", x)
    if not len(axes) == len(starts) == len(ends):
        raise ValueError(f"paddle.sparse.slice: axes, starts and ends must have one length, "
                         f"got {len(axes)}, {len(starts)}, {len(ends)}")
    idx = coo._idx.copy()
    keep = np.ones(idx.shape[1], bool)
    shape = coo.shape
    for axis, start, end in zip(axes, starts, ends):
        axis = int(axis) % coo.ndim
        if axis >= coo._sdim:
            raise ValueError(f"paddle.sparse.slice: axis {axis} is a dense dim of "
                             f"{list(coo.shape)}")
        n = shape[axis]
        start = min(max(start + n if start < 0 else start, 0), n)
        end = min(max(end + n if end < 0 else end, start), n)
        keep &= (idx[axis] >= start) & (idx[axis] < end)
        idx[axis] -= start
        shape[axis] = end - start
    pos = np.flatnonzero(keep).astype(np.int64)
    vals = T.index_select(coo.values(), Tensor(pos), 0)
    return _coo_out(SparseCooTensor(idx[:, pos], vals, shape, coo._coalesced), was_csr)


def sum(x: _Sparse, axis=None, dtype=None, keepdim: bool = False,
        name: Optional[str] = None) -> _Sparse:
    """Sum over `axis` (None: all), returning a sparse tensor (shape [1] for a full sum).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1, 1], [1, 0, 2]], [1., 2., 3.], [2, 3])
        >>> paddle.sparse.sum(x, axis=1).values().numpy().tolist()
        [1.0, 5.0]
    """
    coo, was_csr = _coo_in("sum", x)
    vals = coo.values() if dtype is None else T.cast(coo.values(), dtype)
    if axis is None:
        total = T.reshape(T.sum(vals), [1])
        shape = [1] * coo.ndim if keepdim else [1]
        out = SparseCooTensor(np.zeros((len(shape), 1), np.int64), total, shape, True)
        return _coo_out(out, was_csr and keepdim)
    axis = int(axis) % coo.ndim
    sdim = coo._sdim
    if axis >= sdim:
        out = SparseCooTensor(coo._idx, T.sum(vals, axis=axis - sdim + 1, keepdim=keepdim),
                              _drop(coo.shape, axis, keepdim), coo._coalesced)
        return _coo_out(out, was_csr)
    idx = coo._idx.copy()
    if sdim == 1:
        # NOTE: Paddle keeps the only sparse dim, as size 1, even without keepdim
        return SparseCooTensor(np.zeros((1, 1), np.int64), T.sum(vals, axis=0, keepdim=True),
                               _drop(coo.shape, axis, True), True)
    if keepdim:
        idx[axis] = 0
    else:
        idx = np.delete(idx, axis, axis=0)
    out = SparseCooTensor(idx, vals, _drop(coo.shape, axis, keepdim))
    return _coo_out(coalesce(out), was_csr and keepdim)


def _drop(shape: list, axis: int, keepdim: bool) -> list:
    return shape[:axis] + ([1] if keepdim else []) + shape[axis + 1:]


def is_same_shape(x, y) -> bool:
    """Whether two tensors (sparse or dense) have the same shape.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0]], [1.0], [2])
        >>> paddle.sparse.is_same_shape(x, paddle.ones([2]))
        True
    """
    return list(x.shape) == list(y.shape)

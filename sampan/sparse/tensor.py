"""Sparse COO and CSR tensors: the classes, creation, conversions and coalesce.

Index bookkeeping (patterns, orderings) is plain NumPy on the index arrays, which carry no
gradient; every value is computed with sampan tensor functions, so gradients reach the values
(and any dense operand) through the ordinary tape. Imports framework and tensor only.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from .. import tensor as T
from ..framework import dtype as _dt
from ..framework.printing import format_data
from ..framework.size import _Shape
from ..framework.tensor import Tensor


class _Sparse:
    """What COO and CSR tensors share: shape, values and their gradient state."""
    _values: Tensor
    _shape: list
    _index_dtype = "int64"  # what indices()/crows()/cols() report (sparse.cast)

    def is_sparse(self) -> bool:
        return True

    def is_dense(self) -> bool:
        return False

    def is_sparse_coo(self) -> bool:
        return isinstance(self, SparseCooTensor)

    def is_sparse_csr(self) -> bool:
        return isinstance(self, SparseCsrTensor)

    @property
    def shape(self) -> list:
        return _Shape(self._shape)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def place(self):
        return self._values.place

    @property
    def stop_gradient(self) -> bool:
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value: bool) -> None:
        self._values.stop_gradient = value

    def values(self) -> Tensor:
        """The stored values: [nnz, *dense dims] for COO, [nnz] for CSR."""
        return self._values

    def nnz(self) -> int:
        """The number of stored entries."""
        return int(self._values.shape[0])

    @property
    def grad(self):
        """The gradient, sparse with this tensor's pattern (None before backward)."""
        g = self._values.grad
        return None if g is None else self._with_values(g)

    def clear_grad(self) -> None:
        self._values.clear_grad()

    def detach(self):
        return self._with_values(self._values.detach())

    def numpy(self) -> np.ndarray:
        """The dense array (Paddle's sparse Tensor.numpy returns the dense values)."""
        return self.to_dense().numpy()

    def astype(self, dtype):
        return self._with_values(T.cast(self._values, dtype))

    def __repr__(self) -> str:
        """Paddle's layout: the header, then each part (indices or crows/cols, values) on
        its own lines, formatted as a dense tensor's values."""
        pad = " " * 7
        parts = ", \n".join(f"{pad}{k}={format_data(v.numpy(), len(pad) + len(k) + 1)}"
                            for k, v in self._parts())
        return (f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, place={self.place}, "
                f"stop_gradient={self.stop_gradient}, \n{parts})")


class SparseCooTensor(_Sparse):
    """A COO tensor: indices [sparse_dim, nnz] (int64) and values [nnz, *dense dims]."""

    def __init__(self, indices: np.ndarray, values: Tensor, shape: Sequence[int],
                 coalesced: bool = False) -> None:
        self._idx = np.asarray(indices, dtype=np.int64).reshape(len(indices), -1)
        self._values = values
        self._shape = [int(s) for s in shape]
        self._coalesced = coalesced

    def _with_values(self, values: Tensor) -> "SparseCooTensor":
        return SparseCooTensor(self._idx, values, self._shape, self._coalesced)

    def _parts(self):
        return [("indices", self.indices()), ("values", self._values)]

    @property
    def _sdim(self) -> int:
        return self._idx.shape[0]

    def sparse_dim(self) -> int:
        """The number of sparse dims (rows of indices)."""
        return self._idx.shape[0]

    def dense_dim(self) -> int:
        """The number of dense dims (trailing dims of values)."""
        return self.ndim - self._idx.shape[0]

    def indices(self) -> Tensor:
        """The indices as an int64 Tensor [sparse_dim, nnz]."""
        return Tensor(self._idx.astype(self._index_dtype))

    def to_dense(self) -> Tensor:
        """The dense Tensor (duplicate entries summed); differentiable in the values."""
        sdim = self._sdim
        rows = int(np.prod(self._shape[:sdim], dtype=np.int64))
        flat = T.zeros([rows] + self._shape[sdim:], dtype=self.dtype)
        if self.nnz():
            flat = T.index_add(flat, Tensor(_linear(self._idx, self._shape[:sdim])), 0,
                               self._values)
        return T.reshape(flat, self._shape)

    def coalesce(self) -> "SparseCooTensor":
        return coalesce(self)

    def is_coalesced(self) -> bool:
        """Whether the indices are known sorted and unique: True after coalesce() or a
        conversion, False for a newly created tensor (as in Paddle)."""
        return bool(self._coalesced)

    def to_sparse_coo(self, sparse_dim: Optional[int] = None) -> "SparseCooTensor":
        return self

    def to_sparse_csr(self) -> "SparseCsrTensor":
        """The CSR form of a 2-D or 3-D COO tensor without dense dims."""
        if self.ndim not in (2, 3) or self._sdim != self.ndim:
            raise ValueError(f"to_sparse_csr: needs a 2-D or 3-D tensor with no dense dims, "
                             f"got shape {list(self.shape)} with sparse_dim {self._sdim}")
        c = coalesce(self)
        *batch, m, _ = self._shape
        rows = _linear(c._idx[:-1], self._shape[:-1])
        counts = np.bincount(rows, minlength=int(np.prod(self._shape[:-1])))
        counts = counts.reshape(-1, m)
        crows = np.concatenate([np.zeros((counts.shape[0], 1), np.int64),
                                np.cumsum(counts, axis=1)], axis=1).reshape(-1)
        return SparseCsrTensor(crows, c._idx[-1], c._values, self._shape)


class SparseCsrTensor(_Sparse):
    """A CSR tensor of 2 or 3 dims: crows [(batch*)(rows+1)], cols [nnz], values [nnz]."""

    def __init__(self, crows: np.ndarray, cols: np.ndarray, values: Tensor,
                 shape: Sequence[int]) -> None:
        self._crows = np.asarray(crows, dtype=np.int64).reshape(-1)
        self._cols = np.asarray(cols, dtype=np.int64).reshape(-1)
        self._values = values
        self._shape = [int(s) for s in shape]

    def _with_values(self, values: Tensor) -> "SparseCsrTensor":
        return SparseCsrTensor(self._crows, self._cols, values, self._shape)

    def _parts(self):
        return [("crows", self.crows()), ("cols", self.cols()), ("values", self._values)]

    def crows(self) -> Tensor:
        """Compressed row offsets (int64), one run of rows+1 per batch."""
        return Tensor(self._crows.astype(self._index_dtype))

    def cols(self) -> Tensor:
        """Column index of each stored value (int64)."""
        return Tensor(self._cols.astype(self._index_dtype))

    def to_sparse_coo(self, sparse_dim: Optional[int] = None) -> SparseCooTensor:
        """The COO form (same value order)."""
        m = self._shape[-2]
        counts = np.diff(self._crows.reshape(-1, m + 1), axis=1).reshape(-1)
        flat_rows = np.repeat(np.arange(counts.size), counts)
        rows = np.stack(np.unravel_index(flat_rows, self._shape[:-1]))
        return SparseCooTensor(np.concatenate([rows, self._cols[None]]), self._values,
                               self._shape, coalesced=True)

    def to_sparse_csr(self) -> "SparseCsrTensor":
        return self

    def is_coalesced(self) -> bool:
        raise TypeError("Tensor.is_coalesced: only a sparse COO tensor has it; got a sparse "
                        f"CSR tensor of shape {list(self.shape)}")

    def sparse_dim(self) -> int:
        return 2 if len(self._shape) == 2 else 3

    def dense_dim(self) -> int:
        return 0

    def to_dense(self) -> Tensor:
        return self.to_sparse_coo().to_dense()


def _linear(idx: np.ndarray, dims: Sequence[int]) -> np.ndarray:
    """Row-major linear position of each index column within `dims`."""
    if idx.shape[0] == 0:
        return np.zeros(idx.shape[1], np.int64)
    return np.ravel_multi_index(tuple(idx), tuple(dims)).astype(np.int64)


def _values_of(api: str, values, dtype, stop_gradient: bool) -> Tensor:
    if isinstance(values, Tensor):
        if dtype is not None and values.dtype != _dt.to_dtype(dtype):
            values = T.cast(values, dtype)
        if values.stop_gradient and not stop_gradient:
            values = Tensor(values.numpy(), stop_gradient=False)
        return values
    try:
        return T.to_tensor(values, dtype=dtype, stop_gradient=stop_gradient)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{api}: values must be array-like, got {type(values).__name__} "
                        f"({e})") from None


def _index_array(api: str, arg: str, value) -> np.ndarray:
    arr = np.asarray(value.numpy() if isinstance(value, Tensor) else value)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"{api}: {arg} must hold integers, got dtype {arr.dtype}")
    return arr.astype(np.int64)


def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None,
                      stop_gradient: bool = True) -> SparseCooTensor:
    """Build a COO sparse tensor from indices [sparse_dim, nnz] and values [nnz, ...].

    Args:
        indices (list|ndarray|Tensor): integer coordinates, one row per sparse dim.
        values (list|ndarray|Tensor): one value (or dense block) per column of indices.
        shape (list, optional): the dense shape; default the smallest that holds the indices.
        dtype (str, optional): dtype of the values.
        stop_gradient (bool, optional): default True.

    Returns:
        SparseCooTensor.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
        >>> x.to_dense().numpy().tolist()
        [[0.0, 1.0], [2.0, 0.0]]
    """
    api = "sparse_coo_tensor"
    idx = _index_array(api, "indices", indices)
    if idx.ndim != 2:
        raise ValueError(f"{api}: indices must be 2-D [sparse_dim, nnz], got shape "
                         f"{list(idx.shape)}")
    vals = _values_of(api, values, dtype, stop_gradient)
    if vals.ndim < 1 or vals.shape[0] != idx.shape[1]:
        raise ValueError(f"{api}: values must have nnz={idx.shape[1]} rows, got shape "
                         f"{list(vals.shape)}")
    if shape is None:
        shape = [int(m) + 1 for m in idx.max(axis=1)] + vals.shape[1:]
    shape = [int(s) for s in shape]
    if len(shape) != idx.shape[0] + vals.ndim - 1:
        raise ValueError(f"{api}: shape {shape} must have sparse_dim ({idx.shape[0]}) + dense "
                         f"dims ({vals.ndim - 1}) entries")
    if idx.size and ((idx < 0).any() or (idx.max(axis=1) >= shape[:idx.shape[0]]).any()):
        raise ValueError(f"{api}: indices out of range for shape {shape}")
    return SparseCooTensor(idx, vals, shape)


def sparse_csr_tensor(crows, cols, values, shape, dtype=None, place=None,
                      stop_gradient: bool = True) -> SparseCsrTensor:
    """Build a 2-D or 3-D CSR sparse tensor.

    Args:
        crows (list|ndarray|Tensor): row offsets, rows+1 per batch, starting at 0.
        cols (list|ndarray|Tensor): column of each value.
        values (list|ndarray|Tensor): the nnz values.
        shape (list): [rows, cols] or [batch, rows, cols].
        dtype (str, optional): dtype of the values.
        stop_gradient (bool, optional): default True.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_csr_tensor([0, 1, 2], [1, 0], [1.0, 2.0], [2, 2])
        >>> x.to_dense().numpy().tolist()
        [[0.0, 1.0], [2.0, 0.0]]
    """
    api = "sparse_csr_tensor"
    crows = _index_array(api, "crows", crows).reshape(-1)
    cols = _index_array(api, "cols", cols).reshape(-1)
    vals = _values_of(api, values, dtype, stop_gradient)
    shape = [int(s) for s in shape]
    if len(shape) not in (2, 3):
        raise ValueError(f"{api}: shape must have 2 or 3 dims, got {shape}")
    batch = shape[0] if len(shape) == 3 else 1
    if crows.size != batch * (shape[-2] + 1):
        raise ValueError(f"{api}: crows must have {batch * (shape[-2] + 1)} entries for "
                         f"shape {shape}, got {crows.size}")
    runs = crows.reshape(batch, -1)
    if (runs[:, 0] != 0).any() or (np.diff(runs, axis=1) < 0).any():
        raise ValueError(f"{api}: each run of crows must start at 0 and not decrease")
    if runs[:, -1].sum() != cols.size or vals.ndim != 1 or vals.shape[0] != cols.size:
        raise ValueError(f"{api}: cols ({cols.size}) and values ({list(vals.shape)}) "
                         f"must both hold "
                         f"the {int(runs[:, -1].sum())} entries crows describes")
    if cols.size and (cols.min() < 0 or cols.max() >= shape[-1]):
        raise ValueError(f"{api}: cols out of range for shape {shape}")
    return SparseCsrTensor(crows, cols, vals, shape)


def coalesce(x: SparseCooTensor, name=None) -> SparseCooTensor:
    """Sort the entries of a COO tensor row-major and sum duplicates.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[1, 0, 1], [0, 1, 0]], [1., 2., 3.], [2, 2])
        >>> paddle.sparse.coalesce(x).values().numpy().tolist()
        [2.0, 4.0]
    """
    if not isinstance(x, SparseCooTensor):
        raise TypeError(f"coalesce: x must be a sparse COO tensor, got {type(x).__name__}")
    if x._coalesced:
        return x
    dims = x._shape[:x._sdim]
    lin = _linear(x._idx, dims)
    uniq, inverse = np.unique(lin, return_inverse=True)
    if uniq.size == lin.size and (np.diff(lin) > 0).all():
        return SparseCooTensor(x._idx, x._values, x._shape, coalesced=True)
    vals = T.index_add(T.zeros([uniq.size] + list(x._values.shape[1:]), dtype=x.dtype),
                       Tensor(inverse.reshape(-1).astype(np.int64)), 0, x._values)
    idx = np.stack(np.unravel_index(uniq, dims)) if dims else np.zeros((0, uniq.size))
    return SparseCooTensor(idx, vals, x._shape, coalesced=True)


def to_sparse_coo(x: Tensor, sparse_dim: int) -> SparseCooTensor:
    """Tensor.to_sparse_coo: the COO form of a dense tensor (entries that are not all zero
    over the dense dims); the values stay differentiable in `x`."""
    if not isinstance(sparse_dim, int) or not 0 < sparse_dim <= x.ndim:
        raise ValueError(f"to_sparse_coo: sparse_dim must be in [1, {x.ndim}], "
                         f"got {sparse_dim!r}")
    dims = x.shape[:sparse_dim]
    flat = T.reshape(x, [int(np.prod(dims))] + x.shape[sparse_dim:])
    data = flat.numpy().reshape(flat.shape[0], -1)
    lin = np.flatnonzero((data != 0).any(axis=1))
    vals = T.index_select(flat, Tensor(lin.astype(np.int64)), 0)
    return SparseCooTensor(np.stack(np.unravel_index(lin, dims)), vals, x.shape,
                           coalesced=True)


def to_sparse_csr(x: Tensor) -> SparseCsrTensor:
    """Tensor.to_sparse_csr: the CSR form of a 2-D or 3-D dense tensor."""
    if x.ndim not in (2, 3):
        raise ValueError(f"to_sparse_csr: x must be 2-D or 3-D, got shape {list(x.shape)}")
    return to_sparse_coo(x, x.ndim).to_sparse_csr()


def _dense_is_sparse(x: Tensor) -> bool:
    return False


def _dense_sparse_dim(x: Tensor) -> int:
    return 0


def _dense_to_dense(x: Tensor) -> Tensor:
    return x


# Tensor methods Paddle's dense Tensor has for sparse work (bound by sampan/__init__)
DENSE_METHODS = {"to_sparse_coo": to_sparse_coo, "to_sparse_csr": to_sparse_csr,
                 "is_sparse_coo": _dense_is_sparse, "is_sparse_csr": _dense_is_sparse,
                 "sparse_dim": _dense_sparse_dim, "to_dense": _dense_to_dense}

"""paddle.nn.functional.sparse_attention: attention restricted to a CSR sparsity layout.

Paddle has only a CUDA kernel; here the CSR layout becomes a dense boolean mask and the
attention is a masked softmax over dense scores, written in sampan ops (so gradients, double
gradients and static mode come for free). Costs O(seq_len ** 2) like dense attention.
"""
from __future__ import annotations

import math

from ... import tensor as T
from ...framework.tensor import Tensor, is_variable

__all__ = ["sparse_attention"]

_API = "sparse_attention"
# scores outside the layout: far below any real score, finite so fully masked rows give
# a uniform softmax that the mask then zeroes (no NaN in values or gradients)
_MASKED = -1e30


def _concrete(t) -> bool:
    return isinstance(t, Tensor) and not is_variable(t)


def _check_inputs(query, key, value, offset, columns, key_padding_mask, attn_mask) -> None:
    for arg, x in (("query", query), ("key", key), ("value", value)):
        if not hasattr(x, "dtype") or x.dtype.kind != "f":
            raise TypeError(f"{_API}: {arg} must be a float32 or float64 Tensor, got "
                            f"{getattr(getattr(x, 'dtype', None), 'name', type(x).__name__)}")
        if x.ndim != 4:
            raise ValueError(f"{_API}: {arg} must be 4-D [batch_size, num_heads, seq_len, "
                             f"head_dim], got shape {list(x.shape)}")
    if not list(query.shape) == list(key.shape) == list(value.shape):
        raise ValueError(f"{_API}: query, key and value must have the same shape, got "
                         f"{list(query.shape)}, {list(key.shape)} and {list(value.shape)}")
    batch, heads, seq, _ = query.shape
    for arg, x, want in (("sparse_csr_offset", offset, [batch, heads, seq + 1]),
                         ("sparse_csr_columns", columns, None)):
        if x.dtype.kind not in "iu" or x.ndim != 3:
            raise ValueError(f"{_API}: {arg} must be a 3-D int tensor, got shape "
                             f"{list(x.shape)} dtype {x.dtype.name}")
        if list(x.shape[:2]) != [batch, heads] or (want and list(x.shape) != want):
            shape = want or [batch, heads, "sparse_nnz"]
            raise ValueError(f"{_API}: {arg} must have shape {shape} for query shape "
                             f"{list(query.shape)}, got {list(x.shape)}")
    for arg, m, want in (("key_padding_mask", key_padding_mask, [batch, seq]),
                         ("attn_mask", attn_mask, [seq, seq])):
        if m is not None and list(m.shape) != want:
            raise ValueError(f"{_API}: {arg} must have shape {want}, got {list(m.shape)}")
    if _concrete(offset) and _concrete(columns):
        off, cols = offset.numpy(), columns.numpy()
        nnz = cols.shape[2]
        if off.size and ((off[..., 0] != 0).any() or (off[..., -1] != nnz).any() or
                         (off[..., 1:] < off[..., :-1]).any()):
            raise ValueError(f"{_API}: sparse_csr_offset rows must start at 0, be "
                             f"non-decreasing and end at sparse_nnz = {nnz}")
        if cols.size and (cols.min() < 0 or cols.max() >= seq):
            raise ValueError(f"{_API}: sparse_csr_columns must lie in [0, {seq}), got values "
                             f"in [{int(cols.min())}, {int(cols.max())}]")


def _layout_mask(offset: Tensor, columns: Tensor, seq: int) -> Tensor:
    """Dense bool [batch, heads, seq, seq] with True at the CSR positions."""
    batch, heads, nnz = columns.shape
    if nnz == 0 or seq == 0:
        return T.zeros([batch, heads, seq, seq], dtype="bool")
    position = T.expand(T.arange(0, nnz, dtype="int64"), [batch, heads, nnz])
    rows = T.searchsorted(T.cast(offset[:, :, 1:], "int64"), position, right=True)
    flat = rows * seq + T.cast(columns, "int64")
    dense = T.put_along_axis(T.zeros([batch, heads, seq * seq], dtype="float32"), flat, 1.0,
                             axis=2)
    return T.reshape(dense, [batch, heads, seq, seq]) > 0.5


def sparse_attention(query: Tensor, key: Tensor, value: Tensor, sparse_csr_offset: Tensor,
                     sparse_csr_columns: Tensor, key_padding_mask: Tensor | None = None,
                     attn_mask: Tensor | None = None, name: str | None = None) -> Tensor:
    """softmax(Q K^T / sqrt(head_dim)) V with the softmax of each row taken only over the
    columns listed for that row by the CSR layout (sparse_csr_offset, sparse_csr_columns),
    less the key positions where key_padding_mask is 0 and the (row, column) pairs where
    attn_mask is 0. A row left with no column gives zeros.

    Args:
        query, key, value (Tensor): float32/float64 [batch_size, num_heads, seq_len,
            head_dim].
        sparse_csr_offset (Tensor): int [batch_size, num_heads, seq_len + 1]: row r's
            columns are sparse_csr_columns[..., offset[r]:offset[r + 1]].
        sparse_csr_columns (Tensor): int [batch_size, num_heads, sparse_nnz].
        key_padding_mask (Tensor, optional): [batch_size, seq_len]; 0 masks a key position.
        attn_mask (Tensor, optional): [seq_len, seq_len]; 0 masks a (query, key) pair.

    Returns:
        Tensor: [batch_size, num_heads, seq_len, head_dim], the query's dtype.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.nn.functional.sparse_attention import sparse_attention
        >>> q = paddle.to_tensor([[[[0.0, 1.0], [2.0, 3.0], [0.0, 1.0], [2.0, 3.0]]]])
        >>> offset = paddle.to_tensor([[[0, 2, 4, 6, 8]]], dtype="int32")
        >>> columns = paddle.to_tensor([[[0, 1, 0, 1, 2, 3, 2, 3]]], dtype="int32")
        >>> out = sparse_attention(q, q, q, offset, columns)
        >>> [round(v, 4) for v in out[0, 0, 0].tolist()]
        [1.6089, 2.6089]
    """
    _check_inputs(query, key, value, sparse_csr_offset, sparse_csr_columns,
                  key_padding_mask, attn_mask)
    batch, heads, seq, dim = query.shape
    mask = _layout_mask(sparse_csr_offset, sparse_csr_columns, seq)
    if key_padding_mask is not None:
        keep = T.not_equal(key_padding_mask, T.zeros_like(key_padding_mask))
        mask = T.logical_and(mask, T.reshape(keep, [batch, 1, 1, seq]))
    if attn_mask is not None:
        keep = T.not_equal(attn_mask, T.zeros_like(attn_mask))
        mask = T.logical_and(mask, T.reshape(keep, [1, 1, seq, seq]))
    scores = T.matmul(query, key, transpose_y=True) * (1.0 / math.sqrt(dim) if dim else 1.0)
    scores = T.where(mask, scores, T.full_like(scores, _MASKED))
    top = T.max(scores, axis=-1, keepdim=True).detach()
    weights = T.exp(scores - top) * T.cast(mask, scores.dtype)
    total = T.sum(weights, axis=-1, keepdim=True)
    weights = weights / T.where(total > 0, total, T.ones_like(total))
    return T.matmul(weights, value)

"""paddle.incubate segment reductions and graph message passing (graph_send_recv) as
compositions of tensor ops: a one-hot [segments, rows] matrix selects each segment's rows, so
gradients, static mode and export come from the ops used. Imports tensor-level APIs only.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from .. import tensor as T

_POOLS = ("sum", "mean", "max", "min")


def _ids(api: str, arg: str, ids) -> np.ndarray:
    if not isinstance(ids, Tensor):
        raise TypeError(f"{api}: {arg} must be a Tensor, got {type(ids).__name__}")
    if str(ids.dtype).split(".")[-1] not in ("int32", "int64"):
        raise TypeError(f"{api}: {arg} must be int32 or int64, got {ids.dtype}")
    arr = np.asarray(ids.numpy())
    if arr.ndim != 1:
        raise ValueError(f"{api}: {arg} must be 1-D, got shape {list(arr.shape)}")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{api}: {arg} must be non-negative, got {int(arr.min())}")
    return arr


def _reduce(api: str, x: Tensor, ids: np.ndarray, n_out: int, pool: str) -> Tensor:
    """Rows of x (shape [N, ...]) reduced into n_out groups by ids; empty groups give 0."""
    if pool not in _POOLS:
        raise ValueError(f"{api}: pool_type/reduce_op must be one of {_POOLS}, got {pool!r}")
    if x.ndim < 1 or x.shape[0] != ids.shape[0]:
        raise ValueError(f"{api}: the first dim of data ({list(x.shape)}) must equal the "
                         f"length of the index ({ids.shape[0]})")
    sel = (np.arange(n_out)[:, None] == ids[None, :])          # [S, N]
    count = sel.sum(axis=1)
    rows = T.reshape(x, [x.shape[0], -1])                       # [N, D]
    if pool in ("sum", "mean"):
        out = T.matmul(T.to_tensor(sel.astype(x.numpy().dtype)), rows)
        if pool == "mean":
            div = np.maximum(count, 1).astype(x.numpy().dtype)[:, None]
            out = out / T.to_tensor(div)
    else:
        fill = -np.inf if pool == "max" else np.inf
        big = T.where(T.to_tensor(sel[:, :, None]), T.unsqueeze(rows, 0),
                      T.full([1, 1, 1], fill, dtype=x.dtype))
        out = T.amax(big, axis=1) if pool == "max" else T.amin(big, axis=1)
        out = T.where(T.to_tensor((count > 0)[:, None]), out, T.zeros_like(out))
    return T.reshape(out, [n_out] + list(x.shape[1:]))


def _segment(api: str, data: Tensor, segment_ids: Tensor, pool: str) -> Tensor:
    ids = _ids(api, "segment_ids", segment_ids)
    if ids.size and np.any(np.diff(ids) < 0):
        raise ValueError(f"{api}: segment_ids must be sorted ascending, got {ids.tolist()}")
    n_out = int(ids.max()) + 1 if ids.size else 0
    return _reduce(api, data, ids, n_out, pool)


def segment_sum(data: Tensor, segment_ids: Tensor, name=None) -> Tensor:
    """Sum of the rows of `data` that share a (sorted) segment id.

    Args:
        data (Tensor): float input of shape [N, ...].
        segment_ids (Tensor): sorted int32/int64 ids of shape [N].
        name (str, optional): unused.

    Returns:
        Tensor of shape [max(segment_ids) + 1, ...].

    Examples:
        >>> import sampan as paddle
        >>> data = paddle.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
        >>> ids = paddle.to_tensor([0, 0, 1], dtype='int32')
        >>> paddle.incubate.segment_sum(data, ids).numpy().tolist()
        [[4.0, 4.0, 4.0], [4.0, 5.0, 6.0]]
    """
    return _segment("segment_sum", data, segment_ids, "sum")


def segment_mean(data: Tensor, segment_ids: Tensor, name=None) -> Tensor:
    """Mean of the rows of `data` per segment (see segment_sum); empty segments give 0.

    Examples:
        >>> import sampan as paddle
        >>> data = paddle.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
        >>> ids = paddle.to_tensor([0, 0, 1], dtype='int32')
        >>> paddle.incubate.segment_mean(data, ids).numpy().tolist()
        [[2.0, 2.0, 2.0], [4.0, 5.0, 6.0]]
    """
    return _segment("segment_mean", data, segment_ids, "mean")


def segment_max(data: Tensor, segment_ids: Tensor, name=None) -> Tensor:
    """Elementwise maximum of the rows of `data` per segment; empty segments give 0.

    Examples:
        >>> import sampan as paddle
        >>> data = paddle.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
        >>> ids = paddle.to_tensor([0, 0, 1], dtype='int32')
        >>> paddle.incubate.segment_max(data, ids).numpy().tolist()
        [[3.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    """
    return _segment("segment_max", data, segment_ids, "max")


def segment_min(data: Tensor, segment_ids: Tensor, name=None) -> Tensor:
    """Elementwise minimum of the rows of `data` per segment; empty segments give 0.

    Examples:
        >>> import sampan as paddle
        >>> data = paddle.to_tensor([[1., 2., 3.], [3., 2., 1.], [4., 5., 6.]])
        >>> ids = paddle.to_tensor([0, 0, 1], dtype='int32')
        >>> paddle.incubate.segment_min(data, ids).numpy().tolist()
        [[1.0, 2.0, 1.0], [4.0, 5.0, 6.0]]
    """
    return _segment("segment_min", data, segment_ids, "min")


def graph_send_recv(x: Tensor, src_index: Tensor, dst_index: Tensor, pool_type: str = "sum",
                    out_size=None, name=None) -> Tensor:
    """Gather rows x[src_index] and reduce them into rows dst_index ("sum"/"mean"/"max"/"min").

    Args:
        x (Tensor): node features [N, ...].
        src_index, dst_index (Tensor): int32/int64 edge endpoints of equal length.
        pool_type (str): reduction, default "sum".
        out_size (int|Tensor, optional): rows of the output; default x.shape[0].

    Returns:
        Tensor of shape [out_size, ...]; rows no edge reaches are 0.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[0., 2., 3.], [1., 4., 5.], [2., 6., 7.]])
        >>> src = paddle.to_tensor([0, 1, 2, 0], dtype='int32')
        >>> dst = paddle.to_tensor([1, 2, 1, 0], dtype='int32')
        >>> paddle.incubate.graph_send_recv(x, src, dst).numpy().tolist()
        [[0.0, 2.0, 3.0], [2.0, 8.0, 10.0], [1.0, 4.0, 5.0]]
    """
    api = "graph_send_recv"
    src = _ids(api, "src_index", src_index)
    dst = _ids(api, "dst_index", dst_index)
    if src.shape != dst.shape:
        raise ValueError(f"{api}: src_index {list(src.shape)} and dst_index {list(dst.shape)} "
                         "must have the same shape")
    if isinstance(out_size, Tensor):
        out_size = int(out_size.numpy().reshape(-1)[0])
    n_out = x.shape[0] if out_size is None or out_size <= 0 else int(out_size)
    return _reduce(api, T.gather(x, T.to_tensor(src.astype("int64"))), dst, n_out,
                   pool_type.lower())

"""paddle.incubate: segment and graph ops, LookAhead / ModelAverage, identity_loss, the
softmax-mask fusions, and the subpackages nn (fused layers) and autograd (vjp/jvp).
"""
from __future__ import annotations

from ..framework.tensor import Tensor
from ..nn import functional as _F
from .. import tensor as _T
from . import autograd, nn  # noqa: F401
from .graph import graph_khop_sampler, graph_reindex, graph_sample_neighbors  # noqa: F401
from .optimizer import LookAhead, ModelAverage  # noqa: F401
from .segment import (graph_send_recv, segment_max, segment_mean, segment_min,  # noqa: F401
                      segment_sum)

__all__ = ["LookAhead", "ModelAverage", "graph_khop_sampler", "graph_reindex",
           "graph_sample_neighbors", "graph_send_recv", "identity_loss", "segment_max",
           "segment_mean", "segment_min", "segment_sum", "softmax_mask_fuse",
           "softmax_mask_fuse_upper_triangle"]

_REDUCTIONS = {0: "sum", 1: "mean", 2: "none", "sum": "sum", "mean": "mean", "none": "none"}


def identity_loss(x: Tensor, reduction="none") -> Tensor:
    """Mark x as a loss: reduction "sum"/0, "mean"/1 or "none"/2 (x unchanged).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1., 2., 3.])
        >>> float(paddle.incubate.identity_loss(x, reduction=1))
        2.0
    """
    how = _REDUCTIONS.get(reduction)
    if how is None:
        raise ValueError("identity_loss: reduction must be 'sum'/0, 'mean'/1 or 'none'/2, "
                         f"got {reduction!r}")
    return _T.sum(x) if how == "sum" else _T.mean(x) if how == "mean" else x


def softmax_mask_fuse(x: Tensor, mask: Tensor, name=None) -> Tensor:
    """softmax(x + mask) over the last axis; x [batch, heads, seq_q, seq_k], mask broadcast
    over heads ([batch, 1, seq_q, seq_k]).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.zeros([1, 1, 1, 2])
        >>> m = paddle.to_tensor([[[[0., -1e4]]]])
        >>> paddle.incubate.softmax_mask_fuse(x, m).numpy().round(3).tolist()
        [[[[1.0, 0.0]]]]
    """
    if x.ndim != 4 or mask.ndim != 4:
        raise ValueError(f"softmax_mask_fuse: x and mask must be 4-D, got {list(x.shape)} and "
                         f"{list(mask.shape)}")
    return _F.softmax(x + mask, -1)


def softmax_mask_fuse_upper_triangle(x: Tensor) -> Tensor:
    """Causal softmax: scores above the diagonal (key after query) are masked out.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.zeros([1, 1, 2, 2])
        >>> paddle.incubate.softmax_mask_fuse_upper_triangle(x).numpy().tolist()
        [[[[1.0, 0.0], [0.5, 0.5]]]]
    """
    if x.ndim != 4 or x.shape[-1] != x.shape[-2]:
        raise ValueError("softmax_mask_fuse_upper_triangle: x must be [batch, heads, seq, seq],"
                         f" got {list(x.shape)}")
    keep = _T.tril(_T.ones(x.shape[-2:], dtype="bool"))
    masked = _T.where(keep, x, _T.full([], float("-inf"), dtype=x.dtype))
    return _F.softmax(masked, -1)

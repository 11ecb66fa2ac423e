"""Public reductions and statistics (sum, mean, max, std, median, ...) over dispatch."""
from __future__ import annotations

from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY

__all__ = ["sum"]

_SUM = REGISTRY["sum"]


def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum of x over `axis` (int, list or None for all); bool/int32 sum to int64."""
    return dispatch(_SUM, (x,), {"axis": axis, "keepdim": keepdim,
                                 "dtype": None if dtype is None else str(dtype).replace(
                                     "paddle.", "")})

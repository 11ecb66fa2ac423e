"""Reductions: sum, mean, max, prod, ... over axes with keepdim.

Imports `framework` and `ops.opdef` only.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, norm_axis, register


def reduce_axes(api: str, axis, ndim: int) -> tuple:
    """Normalize `axis` (None, int, list/tuple) to a sorted tuple of non-negative axes."""
    if axis is None or axis == [] or axis == ():
        return tuple(range(ndim))
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = sorted({norm_axis(api, int(a), ndim) for a in axes})
    return tuple(a for a in out if a < ndim) if ndim else ()


def reduced_shape(shape: tuple, axes: tuple, keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def expand_back(g, x, axis, keepdim: bool):
    """Broadcast a reduced gradient `g` back to the shape of `x` (the vjp of reductions)."""
    if not keepdim:
        axes = reduce_axes("reduce", axis, x.ndim)
        if axes and g.ndim != x.ndim:
            g = call("reshape", g, shape=list(reduced_shape(tuple(x.shape), axes, True)))
    return call("expand_as", g, x)


@register
class Sum(OpDef):
    """Sum over `axis`; bool/int32 inputs sum to int64 unless `dtype` says otherwise."""

    name = "sum"
    attrs = {"axis": None, "keepdim": False, "dtype": None}
    onnx = "ReduceSum"

    def infer(self, x, axis=None, keepdim=False, dtype=None):
        axes = reduce_axes(self.name, axis, len(x.shape))
        if dtype is not None:
            out = _dt.convert_dtype(dtype)
        elif x.dtype.kind in "bui":
            out = _dt.int64
        else:
            out = x.dtype
        return x.with_shape(reduced_shape(x.shape, axes, keepdim)).with_dtype(out)

    def compute(self, xp, x, axis=None, keepdim=False, dtype=None):
        axes = reduce_axes(self.name, axis, x.ndim)
        if dtype is not None:
            npd = _dt.convert_dtype(dtype).np
        elif x.dtype.kind in "bui":
            npd = xp.int64
        else:
            npd = x.dtype
        return xp.sum(x, axis=axes, keepdims=keepdim, dtype=npd)

    def vjp(self, ctx, g):
        return (expand_back(g, ctx.x, ctx.axis, ctx.keepdim),)

"""Order statistics over axes: quantile/nanquantile (one kernel, five interpolations) and
the select ops kthvalue and mode, which return (values, int64 indices).
"""
from __future__ import annotations

import math

import numpy as np

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, TensorSpec, norm_axis, register
from .reduce import reduce_axes, reduced_shape, scatter_grad


_INTERPOLATIONS = ("linear", "lower", "higher", "nearest", "midpoint")


def _to_rows(xp, x, axes: tuple):
    """x with the `axes` moved last and flattened: (rows array (..., n), kept-axes perm)."""
    keep = [i for i in range(x.ndim) if i not in axes]
    perm = keep + list(axes)
    xt = xp.transpose(x, perm)
    n = math.prod(x.shape[a] for a in axes)
    return xt.reshape(xt.shape[:len(keep)] + (n,)), perm


def _from_rows(xp, rows, x_shape: tuple, perm: list):
    """Inverse of _to_rows for an array with the rows layout and x's element count."""
    xt = rows.reshape(tuple(x_shape[p] for p in perm))
    return xp.transpose(xt, [perm.index(i) for i in range(len(perm))])


def _positions(xp, q: float, valid, interpolation: str):
    """Sorted positions (lo, hi) and the weight of hi for quantile q of `valid` elements."""
    pos = q * (valid - 1).astype(xp.float64)
    lo = xp.floor(pos)
    hi = xp.ceil(pos)
    frac = pos - lo
    if interpolation == "lower":
        frac = xp.zeros_like(frac)
    elif interpolation == "higher":
        lo = hi
        frac = xp.zeros_like(frac)
    elif interpolation == "nearest":  # Paddle rounds half away from zero
        lo = hi = xp.floor(pos + 0.5)
        frac = xp.zeros_like(frac)
    elif interpolation == "midpoint":
        frac = xp.where(hi > lo, 0.5, 0.0)
    return lo.astype(xp.int64), hi.astype(xp.int64), frac


def quantile_kernel(xp, x, qs, axes, keepdim, interpolation, ignore_nan):
    """(values, lower indices, weights) of quantiles `qs` of x over `axes`, one per q."""
    out_np = _dt.promote_float(_dt.from_numpy(x.dtype)).np
    rows, perm = _to_rows(xp, x, axes)
    n = rows.shape[-1]
    order = xp.argsort(rows, axis=-1, kind="stable")  # nan sorts last
    srt = xp.take_along_axis(rows, order, axis=-1).astype(out_np)
    isnan = xp.isnan(srt) if srt.dtype.kind == "f" else xp.zeros(srt.shape, bool)
    nans = xp.sum(isnan, axis=-1, keepdims=True)
    valid = n - nans if ignore_nan else xp.full(nans.shape, n)
    bad = (valid == 0) if ignore_nan else (nans > 0) | (valid == 0)
    out_shape = reduced_shape(x.shape, axes, keepdim)
    values, indices, weights = [], [], []
    for q in qs:
        lo, hi, frac = _positions(xp, q, valid, interpolation)
        lo = xp.clip(lo, 0, max(n - 1, 0))
        hi = xp.clip(hi, 0, max(n - 1, 0))
        frac = xp.where(bad, 0.0, frac)
        if n:
            a = xp.take_along_axis(srt, lo, axis=-1)
            b = xp.take_along_axis(srt, hi, axis=-1)
            val = a + (b - a) * frac.astype(out_np) if interpolation != "lower" else a
        else:
            val = xp.zeros(lo.shape, out_np)
        val = xp.where(bad, xp.nan, val).astype(out_np)
        w_sorted = xp.zeros(srt.shape, out_np)
        if n:
            xp.put_along_axis(w_sorted, lo, xp.where(bad, 0.0, 1.0 - frac), axis=-1)
            hi_w = xp.take_along_axis(w_sorted, hi, axis=-1) + frac
            xp.put_along_axis(w_sorted, hi, hi_w, axis=-1)
        w_rows = xp.zeros_like(w_sorted)
        xp.put_along_axis(w_rows, order, w_sorted, axis=-1)
        if not ignore_nan:   # a slice with nan: the index of its first nan (Paddle)
            lo = xp.where(nans > 0, n - nans, lo)
        idx = xp.take_along_axis(order, lo, axis=-1) if n else xp.zeros(lo.shape, xp.int64)
        values.append(val.reshape(out_shape))
        indices.append(idx.astype(xp.int64).reshape(out_shape))
        weights.append(_from_rows(xp, w_rows, x.shape, perm))
    return values, indices, weights


class _Quantile(OpDef):
    """Quantiles of x over `axis` (None = all, int or list), one per q in `q` (a float, or a
    list giving a leading output dim). Outputs: the values (default float for ints), the
    index of the lower order statistic along the flattened reduced axes (int64, used by
    median(mode='min')), and the interpolation weight of every element of x (a
    non-differentiable output; the value is sum(weight * x) locally, so the vjp is
    g * weight and the second derivative is zero). Ties in x get the weight of the element
    that sorts first (stable sort)."""

    outputs = ("out", "index", "weight")
    attrs = {"q": 0.5, "axis": None, "keepdim": False, "interpolation": "linear"}
    nondiff_outputs = (1, 2)
    saves = ("weight",)
    ignore_nan = False

    def _check(self, ndim, q, axis, interpolation):
        if interpolation not in _INTERPOLATIONS:
            raise ValueError(f"{self.name}: interpolation must be one of "
                             f"{list(_INTERPOLATIONS)}, got {interpolation!r}")
        qs = q if isinstance(q, (list, tuple)) else [q]
        if not qs:
            raise ValueError(f"{self.name}: q must not be an empty list")
        for v in qs:
            if not 0 <= v <= 1:
                raise ValueError(f"{self.name}: q must be in the range [0, 1], got {v}")
        return list(qs), reduce_axes(self.name, axis, ndim)

    def infer(self, x, q=0.5, axis=None, keepdim=False, interpolation="linear"):
        qs, axes = self._check(len(x.shape), q, axis, interpolation)
        shape = reduced_shape(x.shape, axes, keepdim)
        lead = (len(qs),) if isinstance(q, (list, tuple)) else ()
        dtype = _dt.promote_float(x.dtype)
        return (TensorSpec(lead + shape, dtype), TensorSpec(lead + shape, _dt.int64),
                TensorSpec(lead + tuple(x.shape), dtype))

    def compute(self, xp, x, q=0.5, axis=None, keepdim=False, interpolation="linear"):
        qs, axes = self._check(x.ndim, q, axis, interpolation)
        vals, idx, ws = quantile_kernel(xp, x, qs, axes, keepdim, interpolation,
                                        self.ignore_nan)
        if isinstance(q, (list, tuple)):
            return xp.stack(vals), xp.stack(idx), xp.stack(ws)
        return vals[0], idx[0], ws[0]

    def vjp(self, ctx, g, g_index=None, g_weight=None):
        w = ctx.weight
        listed = isinstance(ctx.q, (list, tuple))
        x_shape = list(w.shape[1:] if listed else w.shape)
        axes = reduce_axes(self.name, ctx.axis, len(x_shape))
        keep = list(reduced_shape(tuple(x_shape), axes, True))
        g = call("reshape", g, shape=([len(ctx.q)] if listed else []) + keep)
        grad = call("expand_as", g, w) * w
        if listed:
            grad = call("sum", grad, axis=[0], keepdim=False, dtype=None)
        return (grad,)


@register
class Quantile(_Quantile):
    name = "quantile"


@register
class Nanquantile(_Quantile):
    name = "nanquantile"
    ignore_nan = True


class _Select(OpDef):
    """Base of ops that pick one element per slice along `axis`: (values, int64 indices).
    The gradient goes to the picked element (scattered by index)."""

    outputs = ("values", "indices")
    saves = ("x", "indices")

    def _axis(self, ndim, axis):
        return norm_axis(self.name, -1 if axis is None else int(axis), ndim)

    def infer(self, x, axis=-1, keepdim=False, **attrs):
        ax = self._axis(len(x.shape), axis)
        self._check_attrs(x, ax, **attrs)
        shape = reduced_shape(x.shape, (ax,) if x.shape else (), keepdim)
        return TensorSpec(shape, x.dtype), TensorSpec(shape, _dt.int64)

    def _check_attrs(self, x, ax, **attrs):
        pass

    def compute(self, xp, x, axis=-1, keepdim=False, **attrs):
        ax = self._axis(x.ndim, axis)
        self._check_attrs(x, ax, **attrs)
        if x.ndim == 0:
            return x.copy(), xp.zeros((), xp.int64)
        rows = xp.moveaxis(x, ax, -1)
        pos, order = self.pick(xp, rows, **attrs)
        vals = xp.take_along_axis(xp.take_along_axis(rows, order, -1), pos, -1)
        idx = xp.take_along_axis(order, pos, -1)
        if keepdim:
            return xp.moveaxis(vals, -1, ax), xp.moveaxis(idx, -1, ax).astype(xp.int64)
        return vals[..., 0], idx[..., 0].astype(xp.int64)

    def vjp(self, ctx, g, g_idx=None):
        x = ctx.x
        if x.ndim == 0:
            return (g,)
        ax = self._axis(x.ndim, ctx.axis)
        idx = ctx.indices
        if not ctx.keepdim:
            shape = list(x.shape)
            shape[ax] = 1
            g = call("reshape", g, shape=shape)
            idx = call("reshape", idx, shape=shape)
        return (scatter_grad(g, idx, x, ax),)


@register
class Kthvalue(_Select):
    """The k-th smallest element (k from 1) along `axis` and its index; ties keep the
    first index in a stable sort."""

    name = "kthvalue"
    attrs = {"k": 1, "axis": -1, "keepdim": False}

    def onnx(self, b, node):   # the last of TopK(k, smallest); ONNX ties keep the lower index
        x, nd = node.inputs[0], len(node.specs[0].shape)
        if nd == 0:
            return [b.op("Identity", [x]), b.const(np.asarray(0, np.int64))]
        ax, k = self._axis(nd, node["axis"]), int(node["k"])
        vals, idx = b.op("TopK", [x, b.ints([k])], n_out=2, axis=ax, largest=0, sorted=1)
        outs = [b.slice_axis(t, ax, k - 1, k) for t in (vals, idx)]
        return outs if node["keepdim"] else [b.squeeze_axes(t, [ax]) for t in outs]

    def _check_attrs(self, x, ax, k=1):
        n = x.shape[ax] if len(x.shape) else 1
        if not isinstance(k, int) or not (1 <= k <= n or n == -1):
            raise ValueError(f"{self.name}: k must be an int in [1, {n}] (the size of axis "
                             f"{ax} of x with shape {list(x.shape)}), got {k!r}")

    def pick(self, xp, rows, k=1):
        order = xp.argsort(rows, axis=-1, kind="stable")
        pos = xp.full(rows.shape[:-1] + (1,), k - 1, dtype=xp.int64)
        return pos, order


@register
class Mode(_Select):
    """The most frequent value along `axis` (the smallest one on ties) and the index of its
    last occurrence."""

    name = "mode"
    attrs = {"axis": -1, "keepdim": False}

    def _check_attrs(self, x, ax):
        if len(x.shape) and x.shape[ax] == 0:
            raise ValueError(f"{self.name}: axis {ax} of x (shape {list(x.shape)}) is empty")

    def pick(self, xp, rows):
        order = xp.argsort(rows, axis=-1, kind="stable")
        srt = xp.take_along_axis(rows, order, -1)
        n = rows.shape[-1]
        start = xp.ones(srt.shape, bool)
        start[..., 1:] = srt[..., 1:] != srt[..., :-1]
        pos = xp.arange(n)
        run_start = xp.maximum.accumulate(xp.where(start, pos, 0), axis=-1)
        length = pos - run_start + 1  # largest at the last element of each run
        best = xp.argmax(length, axis=-1)[..., None]
        return best.astype(xp.int64), order

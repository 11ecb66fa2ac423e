"""Reductions (sum, mean, max, prod, all, logsumexp, ...) and order statistics (quantile,
kthvalue, mode) over axes with keepdim.

Imports `framework` and `ops.opdef`/`ops.dispatch` only; vjp rules use sampan ops.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, TensorSpec, norm_axis, register


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


def reduced_count(shape, axes: tuple) -> int:
    """Number of elements each output element reduces over (-1 if a reduced dim is unknown)."""
    dims = [shape[a] for a in axes]
    return -1 if -1 in dims else math.prod(dims)


def keep_dims(g, x, axis, keepdim: bool):
    """Reshape a reduced `g` so that it has x's rank (reduced dims of size 1)."""
    if not keepdim:
        axes = reduce_axes("reduce", axis, x.ndim)
        if axes and g.ndim != x.ndim:
            g = call("reshape", g, shape=list(reduced_shape(tuple(x.shape), axes, True)))
    return g


def expand_back(g, x, axis, keepdim: bool):
    """Broadcast a reduced gradient `g` back to the shape of `x` (the vjp of reductions)."""
    return call("expand_as", keep_dims(g, x, axis, keepdim), x)


def _np_dtype(dtype):
    return None if dtype is None else _dt.convert_dtype(dtype).np


class Reduction(OpDef):
    """Base of reductions with attrs axis (None/int/list) and keepdim."""

    attrs = {"axis": None, "keepdim": False}

    def out_dtype(self, in_dtype, **attrs):
        return in_dtype

    def infer(self, x, axis=None, keepdim=False, **attrs):
        axes = reduce_axes(self.name, axis, len(x.shape))
        return TensorSpec(reduced_shape(x.shape, axes, keepdim),
                          self.out_dtype(x.dtype, **attrs))


def _sum_dtype(dtype, out=None):
    if out is not None:
        return _dt.convert_dtype(out)
    return _dt.int64 if dtype.kind in "bui" else dtype


@register
class Sum(Reduction):
    """Sum over `axis`; bool/int inputs sum to int64 unless `dtype` says otherwise."""

    name = "sum"
    attrs = {"axis": None, "keepdim": False, "dtype": None}
    onnx = "ReduceSum"

    def out_dtype(self, in_dtype, **attrs):
        return _sum_dtype(in_dtype, attrs.get("dtype"))

    def compute(self, xp, x, axis=None, keepdim=False, dtype=None):
        axes = reduce_axes(self.name, axis, x.ndim)
        npd = _sum_dtype(_dt.from_numpy(x.dtype), dtype).np
        return xp.sum(x, axis=axes, keepdims=keepdim, dtype=npd)

    def vjp(self, ctx, g):
        return (expand_back(g, ctx.x, ctx.axis, ctx.keepdim),)


@register
class Mean(Reduction):
    """Arithmetic mean over `axis`; integer and bool inputs give the default float.

    The mean of an empty slice is nan.
    """

    name = "mean"
    onnx = "ReduceMean"

    def out_dtype(self, in_dtype, **attrs):
        return _dt.promote_float(in_dtype)

    def compute(self, xp, x, axis=None, keepdim=False):
        axes = reduce_axes(self.name, axis, x.ndim)
        npd = _dt.promote_float(_dt.from_numpy(x.dtype)).np
        total = xp.sum(x, axis=axes, keepdims=keepdim, dtype=npd)
        count = reduced_count(x.shape, axes)
        return xp.true_divide(total, npd.type(count)).astype(npd)

    def vjp(self, ctx, g):
        x = ctx.x
        count = reduced_count(tuple(x.shape), reduce_axes(self.name, ctx.axis, x.ndim))
        full = expand_back(g, x, ctx.axis, ctx.keepdim)
        if count < 0:  # a reduced dim is unknown (static -1): count with ops at run time
            ratio = call("cast", call("numel", g), dtype=g.dtype.name) / call(
                "cast", call("numel", x), dtype=g.dtype.name)
            return (full * ratio,)
        return (full / float(max(count, 1)),)


class _Extreme(Reduction):
    """Base of max/min/amax/amin: same dtype as x; the gradient goes to the extreme elements.

    max/min give the full gradient to every tied extreme element (Paddle's rule);
    amax/amin split it evenly among the ties.
    """

    saves = ("x", "out")
    fn = "max"
    split_ties = False

    def compute(self, xp, x, axis=None, keepdim=False):
        axes = reduce_axes(self.name, axis, x.ndim)
        if x.size == 0 and reduced_count(x.shape, axes) == 0 and math.prod(
                reduced_shape(x.shape, axes, keepdim)) > 0:
            raise ValueError(f"{self.name}: x (shape {list(x.shape)}) is empty; the "
                             f"{self.fn}imum of an empty tensor is undefined")
        return getattr(xp, self.fn)(x, axis=axes, keepdims=keepdim)

    def vjp(self, ctx, g):
        x = ctx.x
        out = expand_back(ctx.out, x, ctx.axis, ctx.keepdim)
        mask = call("cast", call("equal", x, out), dtype=x.dtype.name)
        if self.split_ties:
            count = call("sum", mask, axis=ctx.axis, keepdim=ctx.keepdim, dtype=None)
            g = g / count
        return (expand_back(g, x, ctx.axis, ctx.keepdim) * mask,)


@register
class Max(_Extreme):
    name = "max"
    onnx = "ReduceMax"


@register
class Min(_Extreme):
    name = "min"
    fn = "min"
    onnx = "ReduceMin"


@register
class Amax(_Extreme):
    name = "amax"
    split_ties = True


@register
class Amin(_Extreme):
    name = "amin"
    fn = "min"
    split_ties = True


def _others_product(x, axes: tuple):
    """For each element, the product of the other elements of its reduction group (no
    division, so zeros are handled): exclusive products along one axis times the
    products over the remaining axes of the other slices."""
    a = axes[0]
    left = call("cumprod", x, axis=a, exclusive=True, reverse=False, dtype=None)
    right = call("cumprod", x, axis=a, exclusive=True, reverse=True, dtype=None)
    others = left * right
    if len(axes) > 1:
        rest = _others_product(call("prod", x, axis=[a], keepdim=True, dtype=None), axes[1:])
        others = others * call("expand_as", rest, x)
    return others


@register
class Prod(Reduction):
    """Product over `axis`; the result has x's dtype unless `dtype` says otherwise."""

    name = "prod"
    attrs = {"axis": None, "keepdim": False, "dtype": None}
    onnx = "ReduceProd"

    def out_dtype(self, in_dtype, **attrs):
        out = attrs.get("dtype")
        return in_dtype if out is None else _dt.convert_dtype(out)

    def compute(self, xp, x, axis=None, keepdim=False, dtype=None):
        axes = reduce_axes(self.name, axis, x.ndim)
        return xp.prod(x, axis=axes, keepdims=keepdim, dtype=_np_dtype(dtype) or x.dtype)

    def vjp(self, ctx, g):
        x = ctx.x
        axes = reduce_axes(self.name, ctx.axis, x.ndim)
        grad = expand_back(g, x, ctx.axis, ctx.keepdim)
        if ctx.dtype is not None and ctx.dtype != x.dtype.name:
            x = call("cast", x, dtype=ctx.dtype)
        if axes and x.size:
            grad = grad * _others_product(x, axes)
        return (grad,)


class _Logical(Reduction):
    """Base of all/any: bool result; non-bool inputs are tested against zero."""

    def out_dtype(self, in_dtype, **attrs):
        return _dt.bool_

    def compute(self, xp, x, axis=None, keepdim=False):
        axes = reduce_axes(self.name, axis, x.ndim)
        return getattr(xp, self.name)(x, axis=axes, keepdims=keepdim)


@register
class All(_Logical):
    """True where every element of the reduced slice is nonzero (True for empty slices)."""

    name = "all"


@register
class Any(_Logical):
    """True where some element of the reduced slice is nonzero (False for empty slices)."""

    name = "any"


@register
class CountNonzero(Reduction):
    """Number of nonzero elements over `axis`, as int64."""

    name = "count_nonzero"

    def out_dtype(self, in_dtype, **attrs):
        return _dt.int64

    def compute(self, xp, x, axis=None, keepdim=False):
        axes = reduce_axes(self.name, axis, x.ndim)
        return xp.sum(x != 0, axis=axes, keepdims=keepdim, dtype=xp.int64)


@register
class Logsumexp(Reduction):
    """log(sum(exp(x))) over `axis`, computed stably; ints give the default float.

    Empty slices give -inf; the gradient is softmax(x) along the reduced axes.
    """

    name = "logsumexp"
    saves = ("x", "out")

    def out_dtype(self, in_dtype, **attrs):
        return _dt.promote_float(in_dtype)

    def compute(self, xp, x, axis=None, keepdim=False):
        axes = reduce_axes(self.name, axis, x.ndim)
        x = x.astype(_dt.promote_float(_dt.from_numpy(x.dtype)).np, copy=False)
        top = xp.max(x, axis=axes, keepdims=True, initial=-xp.inf)
        top = xp.where(xp.isfinite(top), top, xp.zeros_like(top))
        out = xp.log(xp.sum(xp.exp(x - top), axis=axes, keepdims=True)) + top
        return out if keepdim else xp.squeeze(out, axis=axes)

    def vjp(self, ctx, g):
        x = ctx.x
        out = expand_back(ctx.out, x, ctx.axis, ctx.keepdim)
        return (expand_back(g, x, ctx.axis, ctx.keepdim) * call("exp", x - out),)


@register
class Nansum(Reduction):
    """Sum over `axis` treating nan as zero; dtype rules as `sum`."""

    name = "nansum"
    attrs = {"axis": None, "keepdim": False, "dtype": None}

    def out_dtype(self, in_dtype, **attrs):
        return _sum_dtype(in_dtype, attrs.get("dtype"))

    def compute(self, xp, x, axis=None, keepdim=False, dtype=None):
        axes = reduce_axes(self.name, axis, x.ndim)
        npd = _sum_dtype(_dt.from_numpy(x.dtype), dtype).np
        return xp.nansum(x, axis=axes, keepdims=keepdim, dtype=npd)

    def vjp(self, ctx, g):
        x = ctx.x
        grad = expand_back(g, x, ctx.axis, ctx.keepdim)
        nan = call("cast", call("isnan", x), dtype=grad.dtype.name)
        return (grad - grad * nan,)


@register
class Numel(OpDef):
    """Number of elements of x as an int64 0-D tensor."""

    name = "numel"
    onnx = "Size"

    def infer(self, x):
        return TensorSpec((), _dt.int64)

    def compute(self, xp, x):
        return xp.asarray(x.size, dtype=xp.int64)


# --- order statistics ---------------------------------------------------------------------

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


def scatter_grad(g, indices, x, axis: int):
    """Gradient of selecting x's elements at `indices` along `axis` (indices and g have x's
    rank): g added into zeros of x's shape at those positions."""
    zeros = call("full_like", x, fill_value=0.0, dtype=g.dtype.name)
    return call("put_along_axis", zeros, indices, g, axis=axis, reduce="add",
                include_self=True, broadcast=False)


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

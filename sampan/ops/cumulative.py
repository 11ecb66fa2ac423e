"""Cumulative operators along one axis: cumsum, cumprod, cummax, cummin, logcumsumexp.

`axis=None` flattens x first. cumsum/cumprod also take `exclusive`/`reverse` attrs (as
Paddle's kernels do) that the gradient rules use. Imports `framework` and
`ops.opdef`/`ops.dispatch` only.
"""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, TensorSpec, norm_axis, register
from .reduce import scatter_grad


def _axis(api: str, axis, ndim: int):
    return None if axis is None else norm_axis(api, int(axis), ndim)


def _flat_shape(shape: tuple, axis) -> tuple:
    if axis is not None:
        return tuple(shape)
    return (-1,) if -1 in shape else (int(_prod(shape)),)


def _prod(shape) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def _rows(xp, x, axis):
    """x flattened (axis None) or as is, and the axis to scan."""
    if axis is None:
        return x.reshape(-1), 0
    if x.ndim == 0:
        return x.reshape(1), 0
    return x, axis


def _scan(xp, ufunc, x, axis, exclusive, reverse, identity):
    """ufunc.accumulate along `axis`, optionally exclusive (shifted by one) and reversed."""
    if reverse:
        x = xp.flip(x, axis)
    out = ufunc.accumulate(x, axis=axis, dtype=x.dtype) if x.size else x.copy()
    if exclusive and x.size:
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(0, -1)
        out = xp.pad(out[tuple(idx)], pad, constant_values=identity)
    if reverse:
        out = xp.flip(out, axis)
    return out


class _Cumulative(OpDef):
    """Base of cumsum/cumprod: attrs axis (None flattens), dtype, exclusive, reverse."""

    attrs = {"axis": None, "dtype": None, "exclusive": False, "reverse": False}
    axis_name = "axis"

    def out_dtype(self, dtype, out):
        return dtype if out is None else _dt.convert_dtype(out)

    def infer(self, x, axis=None, dtype=None, exclusive=False, reverse=False):
        _axis(self.name, axis, len(x.shape))
        return TensorSpec(_flat_shape(x.shape, axis), self.out_dtype(x.dtype, dtype))

    def compute(self, xp, x, axis=None, dtype=None, exclusive=False, reverse=False):
        ax = _axis(self.name, axis, x.ndim)
        x = x.astype(self.out_dtype(_dt.from_numpy(x.dtype), dtype).np, copy=False)
        rows, ax = _rows(xp, x, ax)
        out = _scan(xp, self.ufunc(xp), rows, ax, exclusive, reverse, self.identity)
        return out.reshape(x.shape) if axis is not None else out

    def _unflatten(self, grad, ctx_x, axis):
        if axis is None or ctx_x.ndim == 0:
            return call("reshape", grad, shape=list(ctx_x.shape))
        return grad


def _onnx_scan(b, state: list, axis: int, n: int, combine) -> list:
    """ONNX inclusive scan (Hillis-Steele, log2(n) steps) of static length n along `axis`:
    at step k, slot i >= k becomes combine(cur=state[i], prev=state[i - k]) (lists of
    tensors, one per carried quantity); the first k slots keep their value."""
    k = 1
    while k < n:
        cur = [b.slice_axis(t, axis, k, n) for t in state]
        prev = [b.slice_axis(t, axis, 0, n - k) for t in state]
        state = [b.op("Concat", [b.slice_axis(t, axis, 0, k), m], axis=axis)
                 for t, m in zip(state, combine(cur, prev))]
        k *= 2
    return state


@register
class Cumsum(_Cumulative):
    """Running sum along `axis`; `dtype` casts x first (bool/int keep their type)."""

    amp = "float32"
    name = "cumsum"
    saves = ("x",)
    identity = 0

    def onnx(self, b, node):
        a = node.attrs
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        axis = a["axis"]
        if axis is None:
            x, axis = b.reshape(x, [-1]), 0
        elif len(node.specs[0].shape) == 0:
            x = b.reshape(x, [1])
        out = b.op("CumSum", [x, b.scalar(axis, "int64")], exclusive=int(bool(a["exclusive"])),
                   reverse=int(bool(a["reverse"])))
        return b.reshape(out, node.out_shape()) if len(node.specs[0].shape) == 0 else out

    def ufunc(self, xp):
        return xp.add

    def vjp(self, ctx, g):
        ax = 0 if ctx.axis is None or ctx.x.ndim == 0 else ctx.axis
        grad = call("cumsum", g, axis=ax, dtype=None, exclusive=ctx.exclusive,
                    reverse=not ctx.reverse)
        return (self._unflatten(grad, ctx.x, ctx.axis),)


@register
class Cumprod(_Cumulative):
    """Running product along `axis` (Paddle calls the public argument `dim`).

    NOTE: the gradient divides by x, so it is inf/nan where x is exactly 0.
    """

    amp = "float32"
    name = "cumprod"
    saves = ("x", "out")
    identity = 1

    def onnx(self, b, node):   # no CumProd in ONNX: a log2(n)-step Hillis-Steele scan
        a, spec = node.attrs, node.specs[0]
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        axis, dt = a["axis"], node.out_dtype()
        if axis is None or len(spec.shape) == 0:
            if any(d < 0 for d in spec.shape):
                raise b.Unsupported("cumprod with axis None of a tensor with unknown dims")
            x, axis, n = b.reshape(x, [-1]), 0, _prod(spec.shape)
        else:
            axis = int(axis) % len(spec.shape)
            n = b.static_dim(spec, axis, "cumprod")
        x = b.flip_axis(x, axis) if a["reverse"] else x
        x = _onnx_scan(b, [x], axis, n, lambda cur, prev: [b.op("Mul", [cur[0], prev[0]])])[0]
        if a["exclusive"] and n:
            ones = b.fill_like(b.slice_axis(x, axis, 0, 1), 1, dt)
            x = b.op("Concat", [ones, b.slice_axis(x, axis, 0, n - 1)], axis=axis)
        x = b.flip_axis(x, axis) if a["reverse"] else x
        flat = a["axis"] is None or len(spec.shape) == 0
        return b.reshape(x, node.out_shape()) if flat else x

    def ufunc(self, xp):
        return xp.multiply

    def vjp(self, ctx, g):
        x = ctx.x
        ax = 0 if ctx.axis is None or x.ndim == 0 else ctx.axis
        xr = x if ctx.axis is not None and x.ndim else call("reshape", x, shape=[-1])
        if ctx.dtype is not None and ctx.dtype != x.dtype.name:
            xr = call("cast", xr, dtype=ctx.dtype)
        acc = call("cumsum", g * ctx.out, axis=ax, dtype=None, exclusive=ctx.exclusive,
                   reverse=not ctx.reverse)
        return (self._unflatten(acc / xr, x, ctx.axis),)


class _CumExtreme(OpDef):
    """Base of cummax/cummin: running extreme along `axis` and the index where it was
    attained (the latest index on ties, as Paddle does); the gradient goes to that index."""

    attrs = {"axis": None, "dtype": "int64"}
    outputs = ("values", "indices")
    saves = ("x", "indices")

    def infer(self, x, axis=None, dtype="int64"):
        _axis(self.name, axis, len(x.shape))
        out = _dt.convert_dtype(dtype)
        if out.name not in ("int32", "int64"):
            raise TypeError(f"{self.name}: dtype must be int32 or int64, got {out.name}")
        shape = _flat_shape(x.shape, axis)
        return TensorSpec(shape, x.dtype), TensorSpec(shape, out)

    def onnx(self, b, node):   # a scan of (value, index) pairs; ties go to the later index
        spec, x = node.specs[0], node.inputs[0]
        if node["axis"] is None or len(spec.shape) == 0:
            if any(d < 0 for d in spec.shape):
                raise b.Unsupported(f"{self.name} with axis None of a tensor with unknown dims")
            x, axis, n = b.reshape(x, [-1]), 0, _prod(spec.shape)
        else:
            axis = int(node["axis"]) % len(spec.shape)
            n = b.static_dim(spec, axis, self.name)
        shape = [1] * max(len(spec.shape) if node["axis"] is not None else 1, 1)
        shape[axis] = n
        pos = b.op("Expand", [b.const(np.arange(n, dtype=np.int64).reshape(shape)),
                              b.shape_of(x)])
        keep = "GreaterOrEqual" if self.name == "cummax" else "LessOrEqual"

        def combine(cur, prev):
            take = b.op(keep, [cur[0], prev[0]])
            return [b.op("Where", [take, c, p]) for c, p in zip(cur, prev)]
        vals, idx = _onnx_scan(b, [x, pos], axis, n, combine)
        idx = b.cast(idx, node.out_dtype(1))
        if node["axis"] is None or len(spec.shape) == 0:   # back from the flat scan
            vals, idx = b.reshape(vals, node.out_shape(0)), b.reshape(idx, node.out_shape(1))
        return [vals, idx]

    def compute(self, xp, x, axis=None, dtype="int64"):
        self.infer(TensorSpec(x.shape, _dt.from_numpy(x.dtype)), axis, dtype)
        ax = _axis(self.name, axis, x.ndim)
        rows, ax = _rows(xp, x, ax)
        vals = self.ufunc(xp).accumulate(rows, axis=ax) if rows.size else rows.copy()
        n = rows.shape[ax]
        shape = [1] * rows.ndim
        shape[ax] = n
        pos = xp.broadcast_to(xp.arange(n).reshape(shape), rows.shape)
        hit = (rows == vals) | (xp.isnan(rows) if rows.dtype.kind == "f" else False)
        idx = xp.maximum.accumulate(xp.where(hit, pos, 0), axis=ax) if rows.size else pos
        npd = _dt.convert_dtype(dtype).np
        if axis is None:
            return vals.reshape(-1), idx.reshape(-1).astype(npd)
        return vals.reshape(x.shape), idx.reshape(x.shape).astype(npd)

    def vjp(self, ctx, g, g_idx=None):
        x = ctx.x
        idx = ctx.indices
        if ctx.indices.dtype.name != "int64":
            idx = call("cast", idx, dtype="int64")
        if x.ndim == 0:
            return (call("reshape", g, shape=[]),)
        if ctx.axis is None:
            flat = call("reshape", x, shape=[-1])
            grad = scatter_grad(g, idx, flat, 0)
            return (call("reshape", grad, shape=list(x.shape)),)
        return (scatter_grad(g, idx, x, ctx.axis),)


@register
class Cummax(_CumExtreme):
    name = "cummax"

    def ufunc(self, xp):
        return xp.maximum


@register
class Cummin(_CumExtreme):
    name = "cummin"

    def ufunc(self, xp):
        return xp.minimum


@register
class Logcumsumexp(OpDef):
    """log(cumsum(exp(x))) along `axis` (None flattens), computed stably; ints give the
    default float. The vjp is exact but, being factored through out's first element, loses
    precision when out spans more than ~80 (float32) / ~700 (float64) along the axis."""

    name = "logcumsumexp"
    attrs = {"axis": None, "dtype": None}
    saves = ("x", "out")

    def onnx(self, b, node):   # log(cumsum(exp(x - m))) + m, m the finite max along axis
        # NOTE: terms more than ~87 (float32) below the max underflow to exp = 0
        dt, spec = node.out_dtype(), node.specs[0]
        x = b.like(node.inputs, node.specs, dt)[0]
        axis, flat = node["axis"], node["axis"] is None or len(spec.shape) == 0
        x, axis = (b.reshape(x, [-1]), 0) if flat else (x, int(axis) % len(spec.shape))
        m = b.op("ReduceMax", [x], axes=[axis], keepdims=1)
        m = b.op("Where", [b.op("IsInf", [m]), b.scalar(0, dt), m])
        s = b.op("CumSum", [b.op("Exp", [b.op("Sub", [x, m])]), b.scalar(axis, "int64")])
        out = b.op("Add", [b.op("Log", [s]), m])
        return b.reshape(out, node.out_shape()) if flat else out

    def _dtype(self, dtype, out):
        return _dt.promote_float(dtype) if out is None else _dt.convert_dtype(out)

    def infer(self, x, axis=None, dtype=None):
        _axis(self.name, axis, len(x.shape))
        return TensorSpec(_flat_shape(x.shape, axis), self._dtype(x.dtype, dtype))

    def compute(self, xp, x, axis=None, dtype=None):
        ax = _axis(self.name, axis, x.ndim)
        x = x.astype(self._dtype(_dt.from_numpy(x.dtype), dtype).np, copy=False)
        rows, ax = _rows(xp, x, ax)
        out = xp.logaddexp.accumulate(rows, axis=ax) if rows.size else rows.copy()
        return out.reshape(x.shape) if axis is not None else out

    def vjp(self, ctx, g):
        # d out_j / d x_i = exp(x_i - out_j) for i <= j; factor with the row minimum c:
        # grad_i = exp(x_i - c) * sum_{j >= i} g_j exp(c - out_j)
        x, out = ctx.x, ctx.out
        if x.size == 0:
            return (call("reshape", g, shape=list(x.shape)),)
        ax = 0 if ctx.axis is None or x.ndim == 0 else ctx.axis
        if ctx.axis is None or x.ndim == 0:
            x = call("reshape", x, shape=[-1])
        c = call("min", out, axis=[ax], keepdim=True)
        acc = call("cumsum", g * call("exp", c - out), axis=ax, dtype=None,
                   exclusive=False, reverse=True)
        grad = call("exp", x - c) * acc
        if ctx.axis is None or ctx.x.ndim == 0:
            grad = call("reshape", grad, shape=list(ctx.x.shape))
        return (grad,)

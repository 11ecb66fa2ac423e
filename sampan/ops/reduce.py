"""Reductions (sum, mean, max, prod, all, logsumexp, ...) over axes with keepdim, and the
axis/shape/grad helpers shared with reduce_order.py (quantile, kthvalue, mode; imported at the
bottom so that it registers with this module) and cumulative.py.

Imports `framework` and `ops.opdef`/`ops.dispatch` only; vjp rules use sampan ops.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, TensorSpec, norm_axis, register
from .vjp_context import grad_call


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


def keep_dims(g, x, axis, keepdim: bool, ctx=None):
    """Reshape a reduced `g` so that it has x's rank (reduced dims of size 1); with the
    rule's `ctx`, through grad_call."""
    if not keepdim:
        axes = reduce_axes("reduce", axis, x.ndim)
        if axes and g.ndim != x.ndim:
            shape = list(reduced_shape(tuple(x.shape), axes, True))
            g = call("reshape", g, shape=shape) if ctx is None else \
                grad_call(ctx, "reshape", g, shape=shape)
    return g


def expand_back(g, x, axis, keepdim: bool, ctx=None):
    """Broadcast a reduced gradient `g` back to the shape of `x` (the vjp of reductions);
    with the rule's `ctx`, through grad_call. Without keepdim, `g` gets x's rank first
    unless the reduced dims lead (a full reduction, a sum over the batch dims):
    broadcasting prepends those itself."""
    if not keepdim:
        axes = reduce_axes("reduce", axis, x.ndim)
        if axes != tuple(range(len(axes))):
            g = keep_dims(g, x, axis, keepdim, ctx)
    return call("expand_as", g, x) if ctx is None else grad_call(ctx, "expand_as", g, x)


def scatter_grad(g, indices, x, axis: int):
    """Gradient of selecting x's elements at `indices` along `axis` (indices and g have x's
    rank): g added into zeros of x's shape at those positions."""
    zeros = call("full_like", x, fill_value=0.0, dtype=g.dtype.name)
    return call("put_along_axis", zeros, indices, g, axis=axis, reduce="add",
                include_self=True, broadcast=False)


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

    amp = "float32"
    name = "sum"
    attrs = {"axis": None, "keepdim": False, "dtype": None}

    def onnx(self, b, node):
        return b.reduce_node(node, "ReduceSum")

    def out_dtype(self, in_dtype, **attrs):
        return _sum_dtype(in_dtype, attrs.get("dtype"))

    def compute(self, xp, x, axis=None, keepdim=False, dtype=None):
        axes = reduce_axes(self.name, axis, x.ndim)
        npd = _sum_dtype(_dt.from_numpy(x.dtype), dtype).np
        # the array's own sum: np.sum's result without its Python-level wrapper
        return x.sum(axis=axes, keepdims=keepdim, dtype=npd)

    def vjp(self, ctx, g):
        return (expand_back(g, ctx.x, ctx.axis, ctx.keepdim, ctx),)


@register
class Mean(Reduction):
    """Arithmetic mean over `axis`; integer and bool inputs give the default float.

    The mean of an empty slice is nan.
    """

    amp = "float32"
    name = "mean"

    def onnx(self, b, node):
        return b.reduce_node(node, "ReduceMean")

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
        if count < 0:  # a reduced dim is unknown (static -1): count with ops at run time
            full = expand_back(g, x, ctx.axis, ctx.keepdim)
            ratio = call("cast", call("numel", g), dtype=g.dtype.name) / call(
                "cast", call("numel", x), dtype=g.dtype.name)
            return (full * ratio,)
        # divide the reduced gradient, then expand: the same values, fewer divisions
        return (expand_back(g / float(max(count, 1)), x, ctx.axis, ctx.keepdim, ctx),)


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

    def onnx(self, b, node):
        return b.reduce_node(node, "ReduceMax")


@register
class Min(_Extreme):
    name = "min"
    fn = "min"

    def onnx(self, b, node):
        return b.reduce_node(node, "ReduceMin")


@register
class Amax(_Extreme):
    name = "amax"
    split_ties = True

    def onnx(self, b, node):
        return b.reduce_node(node, "ReduceMax")


@register
class Amin(_Extreme):
    name = "amin"
    fn = "min"
    split_ties = True

    def onnx(self, b, node):
        return b.reduce_node(node, "ReduceMin")


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

    amp = "float32"
    name = "prod"
    attrs = {"axis": None, "keepdim": False, "dtype": None}

    def onnx(self, b, node):
        return b.reduce_node(node, "ReduceProd")

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

    def onnx(self, b, node):   # via int32 (ONNX reductions take no bools): min / sum
        x = b.cast(b.cast(node.inputs[0], "bool"), "int32")
        axis = node.attrs["axis"]
        axes = None if axis is None else [axis] if isinstance(axis, int) else list(axis)
        axes = None if not axes or not node.specs[0].shape else axes
        return b.cast(b.reduce(self.onnx_reduce, x, axes, node.attrs["keepdim"]), "bool")


@register
class All(_Logical):
    """True where every element of the reduced slice is nonzero (True for empty slices)."""

    name = "all"
    onnx_reduce = "ReduceMin"


@register
class Any(_Logical):
    """True where some element of the reduced slice is nonzero (False for empty slices)."""

    name = "any"
    onnx_reduce = "ReduceSum"


@register
class CountNonzero(Reduction):
    """Number of nonzero elements over `axis`, as int64."""

    name = "count_nonzero"

    def onnx(self, b, node):
        x = node.inputs[0]
        nz = b.op("Not", [b.op("Equal", [x, b.scalar(0, node.specs[0].dtype)])])
        return b.reduce_on(node, "ReduceSum", b.cast(nz, "int64"))

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

    def onnx(self, b, node):
        return b.reduce_node(node, "ReduceLogSumExp")

    def out_dtype(self, in_dtype, **attrs):
        return _dt.promote_float(in_dtype)

    def compute(self, xp, x, axis=None, keepdim=False):
        axes = reduce_axes(self.name, axis, x.ndim)
        x = x.astype(_dt.promote_float(_dt.from_numpy(x.dtype)).np, copy=False)
        top = (xp.max(x, axis=axes, keepdims=True) if x.size else  # CuPy has no initial=
               xp.full_like(xp.sum(x, axis=axes, keepdims=True), -xp.inf))
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

    def onnx(self, b, node):   # nan -> 0, then ReduceSum in the output dtype
        x = node.inputs[0]
        if node.specs[0].dtype.kind == "f":
            x = b.op("Where", [b.op("IsNaN", [x]), b.scalar(0, node.specs[0].dtype), x])
        return b.reduce_on(node, "ReduceSum", b.cast(x, node.out_dtype()))

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

    def onnx(self, b, node):
        return b.cast(b.op("Size", [node.inputs[0]]), node.out_dtype())

    def infer(self, x):
        return TensorSpec((), _dt.int64)

    def compute(self, xp, x):
        return xp.asarray(x.size, dtype=xp.int64)


# registers quantile, nanquantile, kthvalue and mode
from . import reduce_order  # noqa: E402,F401

"""Ops whose output shape is partly known only at run time (static Programs).

In a static Program, `paddle.full([2, n], ...)`, `paddle.zeros(shape_var)`,
`paddle.rand([d0, d1])` or `paddle.reshape(x, shape_var)` may take dims from Variables.
These ops are `full`, `uniform`, `normal`, `randint` and `reshape` with one variadic input
`dims`: a 0-D/1-element input fills one slot of the `shape` attr, a 1-D input of length k
fills k slots, in order. For the creation ops the slots are the -1 entries (their dims are
never negative otherwise); for reshape, whose shape may hold -1 and 0 itself, the `slots`
attr lists them. infer reports -1 for those dims; compute reads their values. Eager calls
never use these ops (Tensor dims are read at once). Imports `ops` siblings only.
"""
from __future__ import annotations

from . import creation, manipulation, random  # noqa: F401  (register the parent ops first)
from .dispatch import call
from .opdef import REGISTRY, OpDef, register
from .manipulation import resolve_shape
from .manipulation_join import expand_shape


def fill_dims(api: str, shape, dims, slots=None) -> list:
    """`shape` with its slots (default: its -1 entries) filled, in order, from the values of
    the `dims` arrays."""
    values = [int(v) for d in dims for v in d.reshape(-1).tolist()]
    slots = [i for i, s in enumerate(shape) if s == -1] if slots is None else slots
    if len(values) != len(slots):
        raise ValueError(f"{api}: the shape tensors hold {len(values)} dims but shape "
                         f"{list(shape)} has {len(slots)} to fill")
    out = list(shape)
    for i, v in zip(slots, values):
        if v < 0 and api != "reshape":
            raise ValueError(f"{api}: every dim of shape must be non-negative, got {v} (a "
                             f"shape tensor's value at run time)")
        out[i] = v
    return out


class _Dims(OpDef):
    """Mixin: the parent op with a leading variadic `dims` input that fills its shape."""

    inputs = ("*dims",)
    vjp = None
    base = ""

    def infer(self, *args, **attrs):
        if args and isinstance(args[0], (list, tuple)):  # the dims specs (parents' own
            args = args[1:]                              # compute calls infer without them)
        return super().infer(*args, **attrs)

    def compute(self, xp, dims, **attrs):
        attrs["shape"] = fill_dims(self.base, attrs["shape"], dims)
        return super().compute(xp, **attrs)


@register
class FullDims(_Dims, type(REGISTRY["full"])):
    """full with run-time dims."""
    name, base, onnx = "_full_dims", "full", None


@register
class UniformDims(_Dims, type(REGISTRY["uniform"])):
    """uniform with run-time dims."""
    name, base, onnx = "_uniform_dims", "uniform", None


@register
class NormalDims(_Dims, type(REGISTRY["normal"])):
    """normal with run-time dims."""
    name, base, onnx = "_normal_dims", "normal", None


@register
class RandintDims(_Dims, type(REGISTRY["randint"])):
    """randint with run-time dims."""
    name, base, onnx = "_randint_dims", "randint", None


@register
class ReshapeDims(OpDef):
    """reshape whose `shape` entries at the indices `slots` come from `dims` at run time (the
    filled shape follows reshape's rules: 0 copies a dim, one -1 is inferred). Gradient: the
    cotangent reshaped like x; none for the dims."""

    name = "_reshape_dims"
    inputs = ("x", "*dims")
    attrs = {"shape": [], "slots": []}
    saves = ("x",)

    def infer(self, x, dims, shape=(), slots=()):
        out = [-1 if i in slots or s == -1 else (x.shape[i] if s == 0 else s)
               for i, s in enumerate(shape)]
        return x.with_shape(out)

    def compute(self, xp, x, dims, shape=(), slots=()):
        filled = fill_dims("reshape", shape, dims, list(slots))
        return xp.reshape(x, resolve_shape("reshape", filled, x.shape))

    def vjp(self, ctx, g):
        return call("_reshape_like", g, ctx.x), [None] * len(ctx.needs[1])


@register
class ExpandDims(OpDef):
    """expand (broadcast_to) whose `shape` entries at the indices `slots` come from `dims` at
    run time (the filled shape follows expand's rules: -1 keeps x's dim, new dims lead).
    Gradient: the cotangent, which the engines sum over the expanded dims of x (known)."""

    name = "_expand_dims"
    inputs = ("x", "*dims")
    attrs = {"shape": [], "slots": []}
    saves = ()

    def infer(self, x, dims, shape=(), slots=()):
        lead = len(shape) - len(x.shape)
        if lead < 0:
            raise ValueError(f"expand: shape {list(shape)} has fewer dims than x "
                             f"{list(x.shape)}")
        return x.with_shape([-1 if i in slots else x.shape[i - lead] if s == -1 and i >= lead
                             else s for i, s in enumerate(shape)])

    def compute(self, xp, x, dims, shape=(), slots=()):
        filled = fill_dims("expand", shape, dims, list(slots))
        return xp.broadcast_to(x, expand_shape("expand", x.shape, filled)).copy()

    def vjp(self, ctx, g):
        return g, [None] * len(ctx.needs[1])

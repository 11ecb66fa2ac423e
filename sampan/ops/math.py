"""Elementwise math operators: arithmetic, unary functions, casting.

Imports `framework` and `ops.opdef` only; vjp rules use Tensor operators/methods and `call`.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, broadcast_shapes, register


class Binary(OpDef):
    """Base of broadcasting binary ops; inputs are promoted to a common dtype by dispatch."""

    inputs = ("x", "y")
    promote = True

    def infer(self, x, y):
        return x.with_shape(broadcast_shapes(self.name, x.shape, y.shape)).with_dtype(
            _dt.promote_types(x.dtype, y.dtype))


class UnaryFloat(OpDef):
    """Base of float-valued unary ops: integer and bool inputs give the default float."""

    def infer(self, x):
        return x.with_dtype(_dt.promote_float(x.dtype))


def as_float(xp, x):
    """Cast a non-float kernel input to the default float dtype (the UnaryFloat rule)."""
    return x if x.dtype.kind in "fcV" else x.astype(_dt.default_float().np)


@register
class Cast(OpDef):
    """out = x converted to `dtype`; the gradient is cast back to x's dtype by the engine."""

    name = "cast"
    attrs = {"dtype": "float32"}
    saves = ()
    onnx = "Cast"

    def infer(self, x, dtype="float32"):
        return x.with_dtype(dtype)

    def compute(self, xp, x, dtype="float32"):
        return x.astype(_dt.convert_dtype(dtype).np)

    def vjp(self, ctx, g):
        return (g,)


@register
class Add(Binary):
    """out = x + y with broadcasting."""

    name = "add"
    saves = ()
    onnx = "Add"

    def compute(self, xp, x, y):
        return xp.add(x, y)

    def vjp(self, ctx, g):
        return (g, g)


@register
class Subtract(Binary):
    """out = x - y with broadcasting."""

    name = "subtract"
    saves = ()
    onnx = "Sub"

    def compute(self, xp, x, y):
        return xp.subtract(x, y)

    def vjp(self, ctx, g):
        return (g, -g)


@register
class Multiply(Binary):
    """out = x * y with broadcasting (logical and for bool)."""

    name = "multiply"
    onnx = "Mul"

    def compute(self, xp, x, y):
        return xp.multiply(x, y)

    def vjp(self, ctx, g):
        return (g * ctx.y if ctx.needs[0] else None, g * ctx.x if ctx.needs[1] else None)


@register
class Divide(Binary):
    """out = x / y (true division); integer inputs give the default float."""

    name = "divide"
    onnx = "Div"

    def infer(self, x, y):
        out = super().infer(x, y)
        return out.with_dtype(_dt.promote_float(out.dtype))

    def compute(self, xp, x, y):
        out = xp.true_divide(x, y)
        return out if x.dtype.kind in "fcV" else out.astype(_dt.default_float().np)

    def vjp(self, ctx, g):
        gx = g / ctx.y
        return (gx if ctx.needs[0] else None, -gx * ctx.x / ctx.y if ctx.needs[1] else None)


@register
class Exp(UnaryFloat):
    """out = e ** x."""

    name = "exp"
    saves = ("out",)
    onnx = "Exp"

    def compute(self, xp, x):
        return xp.exp(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * ctx.out,)


@register
class Neg(OpDef):
    """out = -x."""

    name = "neg"
    saves = ()
    onnx = "Neg"

    def infer(self, x):
        return x

    def compute(self, xp, x):
        return xp.negative(x)

    def vjp(self, ctx, g):
        return (-g,)

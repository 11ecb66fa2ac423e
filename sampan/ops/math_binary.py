"""Elementwise binary functions: maximum/minimum, fmax/fmin, atan2, heaviside, logaddexp,
gcd/lcm, hypot, nextafter, copysign (on the Binary bases of math.py).
"""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from .dispatch import call
from .math import Binary, BinaryFloat, _require_int, as_float, step, zeros_grad
from .opdef import register


@register
class Maximum(Binary):
    """out = max(x, y) elementwise; NaN in either input propagates.

    Subgradient (as Paddle's kernel): dx = g * (x > y), dy = g * (x <= y), so ties send the
    whole gradient to y.
    """

    name = "maximum"
    onnx = "Max"

    def compute(self, xp, x, y):
        return xp.maximum(x, y)

    def vjp(self, ctx, g):
        mask = step(ctx.x - ctx.y)
        return (g * mask if ctx.needs[0] else None, g * (1.0 - mask) if ctx.needs[1] else None)


@register
class Minimum(Binary):
    """out = min(x, y) elementwise; NaN in either input propagates.

    Subgradient (as Paddle's kernel): dx = g * (x < y), dy = g * (x >= y), so ties send the
    whole gradient to y.
    """

    name = "minimum"
    onnx = "Min"

    def compute(self, xp, x, y):
        return xp.minimum(x, y)

    def vjp(self, ctx, g):
        mask = step(ctx.y - ctx.x)
        return (g * mask if ctx.needs[0] else None, g * (1.0 - mask) if ctx.needs[1] else None)


def _nan_free(b, node, op_type: str) -> str:
    """fmax/fmin in ONNX: Max/Min, then the other input wherever one input is NaN."""
    x, y = b.like(node.inputs, node.specs, node.out_dtype())
    if node.out_dtype().kind != "f":
        return b.op(op_type, [x, y])
    out = b.op(op_type, [x, y])
    out = b.op("Where", [b.op("IsNaN", [x]), y, out])
    return b.op("Where", [b.op("IsNaN", [y]), x, out])


def _picked_x(out, x):
    """1 where `out` equals `x` (NaN x counts as not picked), else 0: fmax/fmin's mask."""
    return 1.0 - call("abs", call("nan_to_num", call("sign", out - x), nan=1.0,
                                  posinf=None, neginf=None))


@register
class Fmax(Binary):
    """out = max(x, y) ignoring NaN: if one input is NaN the other is returned.

    Subgradient: the input whose value was returned gets g; ties go to x (Paddle's rule).
    """

    name = "fmax"
    saves = ("x", "out")

    def onnx(self, b, node):   # Max propagates NaN: take the other input where one is NaN
        return _nan_free(b, node, "Max")

    def compute(self, xp, x, y):
        return xp.fmax(x, y)

    def vjp(self, ctx, g):
        mask = _picked_x(ctx.out, ctx.x)
        return (g * mask if ctx.needs[0] else None, g * (1.0 - mask) if ctx.needs[1] else None)


@register
class Fmin(Binary):
    """out = min(x, y) ignoring NaN: if one input is NaN the other is returned.

    Subgradient: the input whose value was returned gets g; ties go to x (Paddle's rule).
    """

    name = "fmin"
    saves = ("x", "out")

    def onnx(self, b, node):   # Min propagates NaN: take the other input where one is NaN
        return _nan_free(b, node, "Min")

    def compute(self, xp, x, y):
        return xp.fmin(x, y)

    def vjp(self, ctx, g):
        mask = _picked_x(ctx.out, ctx.x)
        return (g * mask if ctx.needs[0] else None, g * (1.0 - mask) if ctx.needs[1] else None)


@register
class Atan2(Binary):
    """out = atan2(x, y), the angle of the point (y, x); integer inputs give float64."""

    name = "atan2"

    def onnx(self, b, node):   # Atan(x / y), shifted by +-pi where y < 0; y == 0 gives +-pi/2
        x, y = b.like(node.inputs, node.specs, node.out_dtype())
        dt = node.out_dtype()
        zero = b.scalar(0, dt)
        base = b.op("Atan", [b.op("Div", [x, y])])
        sign_x = b.op("Where", [b.op("Less", [x, zero]), b.scalar(-1, dt), b.scalar(1, dt)])
        shifted = b.op("Add", [base, b.op("Mul", [sign_x, b.scalar(np.pi, dt)])])
        out = b.op("Where", [b.op("Less", [y, zero]), shifted, base])
        axis = b.op("Mul", [b.op("Sign", [x]), b.scalar(np.pi / 2, dt)])
        return b.op("Where", [b.op("Equal", [y, zero]), axis, out])

    def infer(self, x, y):
        out = super().infer(x, y)
        return out if out.dtype.kind in "fc" else out.with_dtype(_dt.float64)

    def compute(self, xp, x, y):
        if x.dtype.kind not in "fcV":  # V: bfloat16
            x, y = x.astype(xp.float64), y.astype(xp.float64)
        return xp.arctan2(x, y)

    def vjp(self, ctx, g):
        x, y = ctx.x, ctx.y
        r2 = x * x + y * y
        return (g * y / r2 if ctx.needs[0] else None, -g * x / r2 if ctx.needs[1] else None)


@register
class Heaviside(Binary):
    """out = 0 where x < 0, y where x == 0, 1 where x > 0.

    Gradients (Paddle's): dx = 0, dy = g * (x == 0).
    """

    name = "heaviside"

    def onnx(self, b, node):
        x, y = b.like(node.inputs, node.specs, node.out_dtype())
        dt = node.out_dtype()
        zero = b.scalar(0, dt)
        pos = b.op("Where", [b.op("Greater", [x, zero]), b.scalar(1, dt), zero])
        return b.op("Where", [b.op("Equal", [x, zero]), y, pos])

    def compute(self, xp, x, y):
        one = xp.ones((), x.dtype)
        return xp.where(x > 0, one, xp.where(x == 0, y, xp.zeros((), x.dtype)))

    def vjp(self, ctx, g):
        x = ctx.x
        gy = g * (step(x, 1.0) - step(x, 0.0)) if ctx.needs[1] else None
        return (zeros_grad(g) if ctx.needs[0] else None, gy)


@register
class Logaddexp(BinaryFloat):
    """out = log(exp(x) + exp(y)), computed without overflow."""

    name = "logaddexp"
    saves = ("x", "y", "out")

    def onnx(self, b, node):   # max(x, y) + log1p(exp(-|x - y|))
        x, y = b.like(node.inputs, node.specs, node.out_dtype())
        e = b.op("Exp", [b.op("Neg", [b.op("Abs", [b.op("Sub", [x, y])])])])
        tail = b.op("Log", [b.op("Add", [e, b.scalar(1, node.out_dtype())])])
        return b.op("Add", [b.op("Max", [x, y]), tail])

    def compute(self, xp, x, y):
        return xp.logaddexp(as_float(xp, x), as_float(xp, y))

    def vjp(self, ctx, g):
        gx = g * call("exp", ctx.x - ctx.out) if ctx.needs[0] else None
        gy = g * call("exp", ctx.y - ctx.out) if ctx.needs[1] else None
        return (gx, gy)


@register
class Gcd(Binary):
    """Greatest common divisor of integer tensors (gcd(0, 0) = 0); not differentiable."""

    name = "gcd"

    def infer(self, x, y):
        _require_int(self.name, x, y)
        return super().infer(x, y)

    def compute(self, xp, x, y):
        return xp.gcd(x, y)


@register
class Lcm(Binary):
    """Least common multiple of integer tensors (lcm with 0 is 0); not differentiable."""

    name = "lcm"

    def infer(self, x, y):
        _require_int(self.name, x, y)
        return super().infer(x, y)

    def compute(self, xp, x, y):
        return xp.lcm(x, y)


@register
class Hypot(BinaryFloat):
    """out = sqrt(x**2 + y**2) without intermediate overflow."""

    name = "hypot"
    saves = ("x", "y", "out")

    def onnx(self, b, node):
        x, y = b.like(node.inputs, node.specs, node.out_dtype())
        return b.op("Sqrt", [b.op("Add", [b.op("Mul", [x, x]), b.op("Mul", [y, y])])])

    def compute(self, xp, x, y):
        return xp.hypot(as_float(xp, x), as_float(xp, y))

    def vjp(self, ctx, g):
        gx = g * ctx.x / ctx.out if ctx.needs[0] else None
        gy = g * ctx.y / ctx.out if ctx.needs[1] else None
        return (gx, gy)


@register
class Nextafter(Binary):
    """The next representable float after x in the direction of y; not differentiable."""

    name = "nextafter"
    check = True

    def infer(self, x, y):
        out = super().infer(x, y)
        if out.dtype.name not in ("float32", "float64"):
            raise TypeError(f"nextafter: x and y must be float32 or float64 tensors, got "
                            f"{x.dtype.name} and {y.dtype.name}")
        return out

    def compute(self, xp, x, y):
        return xp.nextafter(x, y)


@register
class Copysign(BinaryFloat):
    """out = |x| with the sign of y (the sign bit, so -0.0 counts as negative).

    Integer inputs give the default float. Gradients: dx = g * sign(x) * sign(out) (0 at
    x = 0), dy = 0.
    """

    name = "copysign"
    saves = ("x", "out")

    def onnx(self, b, node):   # the sign bit of y: y < 0, or y == -0.0 (1 / y = -inf)
        x, y = b.like(node.inputs, node.specs, node.out_dtype())
        zero = b.scalar(0, node.out_dtype())
        neg = b.op("Or", [b.op("Less", [y, zero]), b.op("Less", [b.op(
            "Div", [b.scalar(1, node.out_dtype()), y]), zero])])
        mag = b.op("Abs", [x])
        return b.op("Where", [neg, b.op("Neg", [mag]), mag])

    def compute(self, xp, x, y):
        return xp.copysign(as_float(xp, x), as_float(xp, y))

    def vjp(self, ctx, g):
        gx = g * call("sign", ctx.x) * call("sign", ctx.out) if ctx.needs[0] else None
        return (gx, zeros_grad(g) if ctx.needs[1] else None)

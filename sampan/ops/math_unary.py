"""Elementwise unary math operators: exp/log family, sqrt/rsqrt/square, abs/sign/neg/
reciprocal, frexp, rounding (floor, ceil, trunc, round, frac), deg2rad/rad2deg.
Trigonometric functions live in math_trig.py, special functions in math_special.py.

Imported by ops/math.py, whose base classes and helpers it uses. Imports `framework` and
`ops` only; vjp rules use Tensor operators and `call`.
"""
from __future__ import annotations

import math as _m

from ..framework import dtype as _dt
from .dispatch import call
from .math import UnaryFloat, UnarySame, as_float, keep, zeros_grad
from .opdef import register
from .vjp_context import grad_call

_LN2 = _m.log(2.0)
_LN10 = _m.log(10.0)


@register
class Exp(UnaryFloat):
    """out = e ** x."""

    amp = "float32"
    name = "exp"
    saves = ("out",)
    onnx = "Exp"

    def compute(self, xp, x):
        return xp.exp(as_float(xp, x))

    def vjp(self, ctx, g):
        return (grad_call(ctx, "multiply", g, ctx.out),)


@register
class Expm1(UnaryFloat):
    """out = e ** x - 1, accurate near 0."""

    amp = "float32"
    name = "expm1"
    saves = ("out",)

    def onnx(self, b, node):
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        return b.op("Sub", [b.op("Exp", [x]), b.scalar(1, node.out_dtype())])

    def compute(self, xp, x):
        return xp.expm1(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * (ctx.out + 1.0),)


@register
class Log(UnaryFloat):
    """Natural logarithm; log(0) = -inf, log(x < 0) = nan."""

    amp = "float32"
    name = "log"
    onnx = "Log"

    def compute(self, xp, x):
        return xp.log(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / ctx.x,)


@register
class Log1p(UnaryFloat):
    """out = log(1 + x), accurate near 0."""

    name = "log1p"

    def onnx(self, b, node):
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        return b.op("Log", [b.op("Add", [x, b.scalar(1, node.out_dtype())])])

    def compute(self, xp, x):
        return xp.log1p(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / (ctx.x + 1.0),)


@register
class Log2(UnaryFloat):
    """Base-2 logarithm."""

    amp = "float32"
    name = "log2"

    def onnx(self, b, node):
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        return b.op("Div", [b.op("Log", [x]), b.scalar(_m.log(2.0), node.out_dtype())])

    def compute(self, xp, x):
        return xp.log2(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / (ctx.x * _LN2),)


@register
class Log10(UnaryFloat):
    """Base-10 logarithm."""

    amp = "float32"
    name = "log10"

    def onnx(self, b, node):
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        return b.op("Div", [b.op("Log", [x]), b.scalar(_m.log(10.0), node.out_dtype())])

    def compute(self, xp, x):
        return xp.log10(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / (ctx.x * _LN10),)


@register
class Sqrt(UnaryFloat):
    """Square root; sqrt(x < 0) = nan."""

    name = "sqrt"
    saves = ("out",)
    onnx = "Sqrt"

    def compute(self, xp, x):
        return xp.sqrt(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * 0.5 / ctx.out,)


@register
class Rsqrt(UnaryFloat):
    """out = 1 / sqrt(x)."""

    amp = "float32"
    name = "rsqrt"
    saves = ("out",)

    def onnx(self, b, node):
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        return b.op("Reciprocal", [b.op("Sqrt", [x])])

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.asarray(1.0 / xp.sqrt(x)), x)

    def vjp(self, ctx, g):
        out = ctx.out
        return (g * -0.5 * out * out * out,)


@register
class Square(UnarySame):
    """out = x * x; integer dtypes are kept."""

    amp = "float32"
    name = "square"

    def onnx(self, b, node):
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        return b.op("Mul", [x, x])

    def compute(self, xp, x):
        return xp.square(x)

    def vjp(self, ctx, g):
        return (g * 2.0 * ctx.x,)


@register
class Abs(UnarySame):
    """|x|; integer dtypes are kept, complex gives the matching real dtype.

    Subgradient: d|x|/dx = sign(x), so 0 at x = 0 (Paddle's rule).
    """

    name = "abs"
    onnx = "Abs"

    def infer(self, x):
        return x.with_dtype(_dt.real_of(x.dtype))

    def compute(self, xp, x):
        return xp.abs(x)

    def vjp(self, ctx, g):
        return (g * call("sign", ctx.x),)


@register
class Sign(UnarySame):
    """-1, 0 or 1 by the sign of x (nan stays nan); dtype kept. Gradient: 0."""

    name = "sign"
    saves = ()
    onnx = "Sign"

    def compute(self, xp, x):
        if x.dtype.kind == "b":
            return x.copy()
        return xp.sign(x)

    def vjp(self, ctx, g):
        return (zeros_grad(g),)


@register
class Sgn(UnarySame):
    """sign(x) for real x; x / |x| (0 at 0) for complex x. Gradient: 0 for real x."""

    name = "sgn"
    saves = ()

    def onnx(self, b, node):
        if node.out_dtype().kind == "c":
            raise b.Unsupported("complex tensors have no ONNX type")
        return b.op("Sign", [node.inputs[0]])

    def compute(self, xp, x):
        if x.dtype.kind != "c":
            return xp.sign(x)
        mag = xp.abs(x)
        return xp.where(mag == 0, xp.zeros((), x.dtype), x / xp.where(mag == 0, 1, mag))

    def vjp(self, ctx, g):
        return (zeros_grad(g),)


@register
class Neg(UnarySame):
    """out = -x."""

    name = "neg"
    saves = ()
    onnx = "Neg"

    def compute(self, xp, x):
        return xp.negative(x)

    def vjp(self, ctx, g):
        return (-g,)


@register
class Reciprocal(UnaryFloat):
    """out = 1 / x; integer inputs give the default float."""

    amp = "float32"
    name = "reciprocal"
    saves = ("out",)
    onnx = "Reciprocal"

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.asarray(xp.reciprocal(x)), x)

    def vjp(self, ctx, g):
        return (-g * ctx.out * ctx.out,)


@register
class Frexp(UnarySame):
    """Split x into mantissa in [0.5, 1) (with x's sign) and exponent: x = m * 2 ** e.

    Both outputs have x's dtype (float32/float64); the exponent carries no gradient and
    d mantissa / dx = 2 ** -e.
    """

    name = "frexp"
    outputs = ("mantissa", "exponent")
    saves = ("exponent",)
    nondiff_outputs = (1,)
    check = True

    def infer(self, x):
        if x.dtype.name not in ("float32", "float64"):
            raise TypeError(f"frexp: x must be a float32 or float64 tensor, got "
                            f"{x.dtype.name}")
        return x, x

    def compute(self, xp, x):
        mantissa, exponent = xp.frexp(x)
        return mantissa, exponent.astype(x.dtype)

    def vjp(self, ctx, g_mantissa, g_exponent):
        return (g_mantissa * call("exp", ctx.exponent * -_LN2),)


class _Rounding(UnarySame):
    """Piecewise-constant ops: dtype kept (integers pass through), gradient 0."""

    saves = ()

    def vjp(self, ctx, g):
        return (zeros_grad(g),)


@register
class Floor(_Rounding):
    """Largest integer <= x. Gradient: 0."""

    name = "floor"

    def onnx(self, b, node):
        if node.out_dtype().kind in "iub":   # integers are already whole
            return b.op("Identity", [node.inputs[0]])
        return b.op("Floor", [node.inputs[0]])

    def compute(self, xp, x):
        return xp.floor(x) if x.dtype.kind in "fc" else x.copy()


@register
class Ceil(_Rounding):
    """Smallest integer >= x. Gradient: 0."""

    name = "ceil"

    def onnx(self, b, node):
        if node.out_dtype().kind in "iub":   # integers are already whole
            return b.op("Identity", [node.inputs[0]])
        return b.op("Ceil", [node.inputs[0]])

    def compute(self, xp, x):
        return xp.ceil(x) if x.dtype.kind in "fc" else x.copy()


@register
class Trunc(_Rounding):
    """x rounded toward zero. Gradient: 0."""

    name = "trunc"

    def onnx(self, b, node):   # x - fmod(x, 1): ONNX has no Trunc
        x = node.inputs[0]
        if node.out_dtype().kind in "iub":   # integers are already whole
            return b.op("Identity", [x])
        return b.op("Sub", [x, b.op("Mod", [x, b.scalar(1, node.out_dtype())], fmod=1)])

    def compute(self, xp, x):
        return xp.trunc(x) if x.dtype.kind in "fc" else x.copy()


@register
class Round(_Rounding):
    """x rounded to `decimals` places, halves to even (as current Paddle: round(-0.5) = -0,
    round(1.5) = 2). Gradient: 0."""

    name = "round"
    attrs = {"decimals": 0}

    def onnx(self, b, node):   # ONNX Round is half-to-even, as numpy's round
        x, d = node.inputs[0], int(node["decimals"])
        if node.out_dtype().kind in "iub":
            if d >= 0:
                return b.op("Identity", [x])
            raise b.Unsupported("round of an integer tensor to negative decimals")
        if d == 0:
            return b.op("Round", [x])
        scale = b.scalar(10.0 ** d, node.out_dtype())
        return b.op("Div", [b.op("Round", [b.op("Mul", [x, scale])]), scale])

    def compute(self, xp, x, decimals=0):
        if x.dtype.kind not in "fc" and decimals >= 0:
            return x.copy()
        return xp.round(x, decimals)


@register
class Frac(UnarySame):
    """Fractional part x - trunc(x) (sign of x); 0 for integer dtypes."""

    name = "frac"
    saves = ()

    def onnx(self, b, node):   # fmod(x, 1) keeps the sign of x
        x = node.inputs[0]
        if node.out_dtype().kind in "iub":
            return b.op("Sub", [x, x])
        return b.op("Mod", [x, b.scalar(1, node.out_dtype())], fmod=1)

    def compute(self, xp, x):
        return x - xp.trunc(x) if x.dtype.kind in "fc" else xp.zeros_like(x)

    def vjp(self, ctx, g):
        return (g,)


@register
class Deg2rad(UnaryFloat):
    """Degrees to radians; integer inputs give the default float."""

    name = "deg2rad"
    saves = ()

    def onnx(self, b, node):
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        return b.op("Mul", [x, b.scalar(_m.pi / 180.0, node.out_dtype())])

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.asarray(xp.deg2rad(x)), x)

    def vjp(self, ctx, g):
        return (g * (_m.pi / 180.0),)


@register
class Rad2deg(UnaryFloat):
    """Radians to degrees; integer inputs give the default float."""

    name = "rad2deg"
    saves = ()

    def onnx(self, b, node):
        x = b.like(node.inputs, node.specs, node.out_dtype())[0]
        return b.op("Mul", [x, b.scalar(180.0 / _m.pi, node.out_dtype())])

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.asarray(xp.rad2deg(x)), x)

    def vjp(self, ctx, g):
        return (g * (180.0 / _m.pi),)

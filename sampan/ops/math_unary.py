"""Elementwise unary math operators (exp, log, trigonometric, special functions, rounding).

Imported by ops/math.py, whose base classes and helpers it uses. Imports `framework` and
`ops` only; vjp rules use Tensor operators and `call`.
"""
from __future__ import annotations

import math as _m

from .dispatch import call
from .math import UnaryFloat, UnarySame, as_float, keep, step, zeros_grad
from .opdef import register

_LN2 = _m.log(2.0)
_LN10 = _m.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / _m.sqrt(_m.pi)


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
class Expm1(UnaryFloat):
    """out = e ** x - 1, accurate near 0."""

    name = "expm1"
    saves = ("out",)

    def compute(self, xp, x):
        return xp.expm1(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * (ctx.out + 1.0),)


@register
class Log(UnaryFloat):
    """Natural logarithm; log(0) = -inf, log(x < 0) = nan."""

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

    def compute(self, xp, x):
        return xp.log1p(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / (ctx.x + 1.0),)


@register
class Log2(UnaryFloat):
    """Base-2 logarithm."""

    name = "log2"

    def compute(self, xp, x):
        return xp.log2(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / (ctx.x * _LN2),)


@register
class Log10(UnaryFloat):
    """Base-10 logarithm."""

    name = "log10"

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

    name = "rsqrt"
    saves = ("out",)

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.asarray(1.0 / xp.sqrt(x)), x)

    def vjp(self, ctx, g):
        out = ctx.out
        return (g * -0.5 * out * out * out,)


@register
class Square(UnarySame):
    """out = x * x; integer dtypes are kept."""

    name = "square"

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
        return x.with_dtype({"complex64": "float32", "complex128": "float64"}.get(
            x.dtype.name, x.dtype.name))

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

    name = "reciprocal"
    saves = ("out",)
    onnx = "Reciprocal"

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.asarray(xp.reciprocal(x)), x)

    def vjp(self, ctx, g):
        return (-g * ctx.out * ctx.out,)


@register
class Sin(UnaryFloat):
    """Sine (radians)."""

    name = "sin"
    onnx = "Sin"

    def compute(self, xp, x):
        return xp.sin(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("cos", ctx.x),)


@register
class Cos(UnaryFloat):
    """Cosine (radians)."""

    name = "cos"
    onnx = "Cos"

    def compute(self, xp, x):
        return xp.cos(as_float(xp, x))

    def vjp(self, ctx, g):
        return (-g * call("sin", ctx.x),)


@register
class Tan(UnaryFloat):
    """Tangent (radians)."""

    name = "tan"
    saves = ("out",)
    onnx = "Tan"

    def compute(self, xp, x):
        return xp.tan(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * (ctx.out * ctx.out + 1.0),)


@register
class Asin(UnaryFloat):
    """Arcsine; nan outside [-1, 1]."""

    name = "asin"
    onnx = "Asin"

    def compute(self, xp, x):
        return xp.arcsin(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("rsqrt", 1.0 - ctx.x * ctx.x),)


@register
class Acos(UnaryFloat):
    """Arccosine; nan outside [-1, 1]."""

    name = "acos"
    onnx = "Acos"

    def compute(self, xp, x):
        return xp.arccos(as_float(xp, x))

    def vjp(self, ctx, g):
        return (-g * call("rsqrt", 1.0 - ctx.x * ctx.x),)


@register
class Atan(UnaryFloat):
    """Arctangent."""

    name = "atan"
    onnx = "Atan"

    def compute(self, xp, x):
        return xp.arctan(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / (ctx.x * ctx.x + 1.0),)


@register
class Sinh(UnaryFloat):
    """Hyperbolic sine."""

    name = "sinh"
    onnx = "Sinh"

    def compute(self, xp, x):
        return xp.sinh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("cosh", ctx.x),)


@register
class Cosh(UnaryFloat):
    """Hyperbolic cosine."""

    name = "cosh"
    onnx = "Cosh"

    def compute(self, xp, x):
        return xp.cosh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("sinh", ctx.x),)


@register
class Tanh(UnaryFloat):
    """Hyperbolic tangent."""

    name = "tanh"
    saves = ("out",)
    onnx = "Tanh"

    def compute(self, xp, x):
        return xp.tanh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * (1.0 - ctx.out * ctx.out),)


@register
class Asinh(UnaryFloat):
    """Inverse hyperbolic sine."""

    name = "asinh"
    onnx = "Asinh"

    def compute(self, xp, x):
        return xp.arcsinh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("rsqrt", ctx.x * ctx.x + 1.0),)


@register
class Acosh(UnaryFloat):
    """Inverse hyperbolic cosine; nan for x < 1."""

    name = "acosh"
    onnx = "Acosh"

    def compute(self, xp, x):
        return xp.arccosh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("rsqrt", ctx.x * ctx.x - 1.0),)


@register
class Atanh(UnaryFloat):
    """Inverse hyperbolic tangent; +-inf at +-1, nan outside [-1, 1]."""

    name = "atanh"
    onnx = "Atanh"

    def compute(self, xp, x):
        return xp.arctanh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / (1.0 - ctx.x * ctx.x),)


@register
class Sigmoid(UnaryFloat):
    """out = 1 / (1 + e ** -x); e ** -x overflowing to inf gives exactly 0 (no warning)."""

    name = "sigmoid"
    saves = ("out",)
    onnx = "Sigmoid"

    def compute(self, xp, x):
        # NOTE: plain ufuncs: scipy's expit is ~4x slower than exp + divide here
        x = as_float(xp, x)
        return keep(1.0 / (1.0 + xp.exp(-x)), x)

    def vjp(self, ctx, g):
        return (g * ctx.out * (1.0 - ctx.out),)


@register
class Erf(UnaryFloat):
    """Gauss error function."""

    name = "erf"
    onnx = "Erf"

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.special.erf(x), x)

    def vjp(self, ctx, g):
        x = ctx.x
        return (g * _TWO_OVER_SQRT_PI * call("exp", -(x * x)),)


@register
class Erfinv(UnaryFloat):
    """Inverse error function; +-inf at +-1, nan outside [-1, 1]."""

    name = "erfinv"
    saves = ("out",)

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.special.erfinv(x), x)

    def vjp(self, ctx, g):
        out = ctx.out
        return (g / _TWO_OVER_SQRT_PI * call("exp", out * out),)


@register
class Lgamma(UnaryFloat):
    """log |Gamma(x)|."""

    name = "lgamma"

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.special.gammaln(x), x)

    def vjp(self, ctx, g):
        return (g * call("digamma", ctx.x),)


@register
class Digamma(UnaryFloat):
    """psi(x) = d/dx log Gamma(x)."""

    name = "digamma"

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.special.psi(x), x)

    def vjp(self, ctx, g):
        return (g * call("polygamma", ctx.x, n=1),)


@register
class Polygamma(UnaryFloat):
    """The n-th derivative of digamma (n >= 0; n = 0 is digamma)."""

    name = "polygamma"
    attrs = {"n": 0}

    def infer(self, x, n=0):
        if not isinstance(n, int) or n < 0:
            raise ValueError(f"polygamma: n must be a non-negative int, got {n!r}")
        return super().infer(x)

    def compute(self, xp, x, n=0):
        x = as_float(xp, x)
        if n == 0:
            return keep(xp.special.psi(x), x)
        return keep(xp.asarray(xp.special.polygamma(n, x)), x)

    def vjp(self, ctx, g):
        return (g * call("polygamma", ctx.x, n=ctx.n + 1),)


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
    onnx = "Floor"

    def compute(self, xp, x):
        return xp.floor(x) if x.dtype.kind in "fc" else x.copy()


@register
class Ceil(_Rounding):
    """Smallest integer >= x. Gradient: 0."""

    name = "ceil"
    onnx = "Ceil"

    def compute(self, xp, x):
        return xp.ceil(x) if x.dtype.kind in "fc" else x.copy()


@register
class Trunc(_Rounding):
    """x rounded toward zero. Gradient: 0."""

    name = "trunc"

    def compute(self, xp, x):
        return xp.trunc(x) if x.dtype.kind in "fc" else x.copy()


@register
class Round(_Rounding):
    """x rounded to `decimals` places, halves to even (as current Paddle: round(-0.5) = -0,
    round(1.5) = 2). Gradient: 0."""

    name = "round"
    attrs = {"decimals": 0}

    def compute(self, xp, x, decimals=0):
        if x.dtype.kind not in "fc" and decimals >= 0:
            return x.copy()
        return xp.round(x, decimals)


@register
class Frac(UnarySame):
    """Fractional part x - trunc(x) (sign of x); 0 for integer dtypes."""

    name = "frac"
    saves = ()

    def compute(self, xp, x):
        return x - xp.trunc(x) if x.dtype.kind in "fc" else xp.zeros_like(x)

    def vjp(self, ctx, g):
        return (g,)


@register
class Deg2rad(UnaryFloat):
    """Degrees to radians; integer inputs give the default float."""

    name = "deg2rad"
    saves = ()

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

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.asarray(xp.rad2deg(x)), x)

    def vjp(self, ctx, g):
        return (g * (180.0 / _m.pi),)


@register
class Logit(UnaryFloat):
    """out = log(x / (1 - x)); with eps, x is first clipped to [eps, 1 - eps].

    Gradient (Paddle's): g / (x (1 - x)) inside [eps, 1 - eps], 0 outside (eps None = 0).
    """

    name = "logit"
    attrs = {"eps": None}

    def compute(self, xp, x, eps=None):
        x = as_float(xp, x)
        if eps:
            x = xp.clip(x, eps, 1.0 - eps)
        return keep(xp.asarray(xp.log(x / (1.0 - x))), x)

    def vjp(self, ctx, g):
        x = ctx.x
        eps = ctx.eps or 0.0
        inside = step(x - eps, 1.0) * step((1.0 - eps) - x, 1.0)
        return (g * inside / (x * (1.0 - x)),)


@register
class Stanh(UnaryFloat):
    """Scaled tanh: out = scale_b * tanh(scale_a * x)."""

    name = "stanh"
    attrs = {"scale_a": 0.67, "scale_b": 1.7159}

    def compute(self, xp, x, scale_a=0.67, scale_b=1.7159):
        x = as_float(xp, x)
        return keep(xp.asarray(scale_b * xp.tanh(scale_a * x)), x)

    def vjp(self, ctx, g):
        t = call("tanh", ctx.x * ctx.scale_a)
        return (g * (ctx.scale_a * ctx.scale_b) * (1.0 - t * t),)


@register
class I0(UnaryFloat):
    """Modified Bessel function of the first kind, order 0."""

    name = "i0"

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.special.i0(x), x)

    def vjp(self, ctx, g):
        return (g * call("i1", ctx.x),)


@register
class I0e(UnaryFloat):
    """Exponentially scaled i0: exp(-|x|) * i0(x)."""

    name = "i0e"
    saves = ("x", "out")

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.special.i0e(x), x)

    def vjp(self, ctx, g):
        return (g * (call("i1e", ctx.x) - call("sign", ctx.x) * ctx.out),)


@register
class I1(UnaryFloat):
    """Modified Bessel function of the first kind, order 1.

    d i1 / dx = i0(x) - i1(x) / x; the formula is used as is, so x = 0 gives nan.
    """

    name = "i1"
    saves = ("x", "out")

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.special.i1(x), x)

    def vjp(self, ctx, g):
        return (g * (call("i0", ctx.x) - ctx.out / ctx.x),)


@register
class I1e(UnaryFloat):
    """Exponentially scaled i1: exp(-|x|) * i1(x) (gradient nan at x = 0, as i1)."""

    name = "i1e"
    saves = ("x", "out")

    def compute(self, xp, x):
        x = as_float(xp, x)
        return keep(xp.special.i1e(x), x)

    def vjp(self, ctx, g):
        x = ctx.x
        return (g * (call("i0e", x) - ctx.out * (call("sign", x) + 1.0 / x)),)


"""Special functions: erf/erfinv, lgamma, digamma, polygamma and the modified Bessel
functions i0, i0e, i1, i1e (kernels from xp.special, i.e. scipy.special).
"""
from __future__ import annotations

import math as _m

from .dispatch import call
from .math import UnaryFloat, as_float, keep
from .opdef import register


_TWO_OVER_SQRT_PI = 2.0 / _m.sqrt(_m.pi)


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

    amp = "float32"
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

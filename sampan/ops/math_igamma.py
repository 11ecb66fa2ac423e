"""The regularized upper incomplete gamma function Q(x, y) (paddle.gammaincc; gammainc is
1 - Q in sampan.tensor). Imports only `framework`, `backend` and ops modules below it.
"""
from __future__ import annotations

from .dispatch import call
from .math import Binary
from .opdef import register


@register
class Gammaincc(Binary):
    """out = Q(x, y) = Gamma(x, y) / Gamma(x), elementwise with broadcasting.

    x (the shape parameter) and y (the lower limit) are float32/float64 and >= 0. Gradient
    only for y (as Paddle): dQ/dy = -exp((x - 1) log y - y - lgamma(x)); x gets none.
    """

    name = "gammaincc"
    check = True

    def infer(self, x, y):
        out = super().infer(x, y)
        if x.dtype.name not in ("float32", "float64") or y.dtype.name != x.dtype.name:
            raise TypeError(f"gammaincc: x and y must both be float32 or float64 tensors, got "
                            f"{x.dtype.name} and {y.dtype.name}")
        return out

    def compute(self, xp, x, y):
        for arg, v in (("x", x), ("y", y)):
            if v.size and bool((v < 0).any()):
                raise ValueError(f"gammaincc: the input argument {arg} must be greater than or "
                                 f"equal to 0.")
        return xp.asarray(xp.special.gammaincc(x, y), dtype=x.dtype)

    def vjp(self, ctx, g):
        x, y = ctx.x, ctx.y
        dens = call("exp", (x - 1.0) * call("log", y) - y - call("lgamma", x))
        return (None, -(g * dens) if ctx.needs[1] else None)

"""The matrix exponential operator (paddle.linalg.matrix_exp).

One kernel serves eager and static mode: the number of squarings depends on the values of
x, so it is chosen inside `compute` (at run time), not while a Program is built.
Imports `framework` and `ops` only.
"""
from __future__ import annotations

import math as _math

from .dispatch import call
from .linalg import mT
from .linalg_decomp import _float_kernel_check, _matrix
from .opdef import OpDef, register

_TAYLOR_TERMS = 18  # with ||x / 2^s||_1 <= 0.5 the remainder is below float64 eps


@register
class MatrixExp(OpDef):
    """out = exp(x) = sum_k x^k / k! for square (batched) float x [..., n, n].

    Scaling and squaring: x is divided by 2^s so that its largest row-sum norm (over the
    whole batch) is at most 0.5, a Taylor sum of `_TAYLOR_TERMS` terms is taken, and the
    result is squared s times. The gradient is the adjoint Frechet derivative, the upper
    right block of exp([[x^H, g], [0, x^H]]), so it is again a matrix_exp (and differentiable).
    """

    name = "matrix_exp"
    saves = ("x",)

    def infer(self, x):
        _matrix(self.name, x, square=True)
        return x

    def compute(self, xp, x):
        _float_kernel_check(self.name, xp, x)
        if x.size == 0:
            return xp.array(x, copy=True)
        norm = float(xp.abs(x).sum(axis=-1).max())
        squarings = max(0, int(_math.ceil(_math.log2(norm))) + 1) if norm > 0.5 else 0
        a = x / x.dtype.type(2.0 ** squarings)
        eye = xp.broadcast_to(xp.eye(x.shape[-1], dtype=x.dtype), x.shape)
        term, out = eye, xp.array(eye, copy=True)
        for k in range(1, _TAYLOR_TERMS + 1):
            term = xp.matmul(term, a) / x.dtype.type(k)
            out = out + term
        for _ in range(squarings):
            out = xp.matmul(out, out)
        return out.astype(x.dtype, copy=False)

    def vjp(self, ctx, g):
        xh = mT(ctx.x)
        if ctx.x.dtype.kind == "c":
            xh = call("conj", xh)
        zero = call("full_like", xh, fill_value=0.0, dtype=None)
        block = call("concat", [call("concat", [xh, g], axis=-1),
                                call("concat", [zero, xh], axis=-1)], axis=-2)
        top = call("split", call("matrix_exp", block), num_or_sections=2, axis=-2)[0]
        return (call("split", top, num_or_sections=2, axis=-1)[1],)

"""Random operators that paddle.distribution samples through: standard_gamma and binomial.

Same contract as ops/random.py: each kernel takes a `seed` attr (drawn by the caller from the
global generator) and draws from `framework.random.rng(seed)`. Neither is differentiable
(as in Paddle). Imports `framework` and `ops.opdef` only.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from ..framework.random import rng
from .opdef import OpDef, TensorSpec, broadcast_shapes, register


@register
class StandardGamma(OpDef):
    """out[i] ~ Gamma(concentration x[i], rate 1), in x's (float) dtype."""

    name = "standard_gamma"
    attrs = {"seed": 0}
    random = True
    check = True

    def infer(self, x, seed=0):
        if x.dtype.kind != "f":
            raise TypeError(f"standard_gamma: x must be a floating point tensor of "
                            f"concentrations, got {x.dtype.name}")
        return x

    def compute(self, xp, x, seed=0):
        if (x <= 0).any():
            raise ValueError("standard_gamma: every concentration in x must be positive")
        return xp.asarray(rng(seed).standard_gamma(x.astype(xp.float64))).astype(x.dtype)


@register
class Binomial(OpDef):
    """out[i] ~ Binomial(count[i], prob[i]) (count and prob broadcast), as int64."""

    name = "binomial"
    inputs = ("count", "prob")
    attrs = {"seed": 0}
    random = True
    check = True

    def infer(self, count, prob, seed=0):
        if count.dtype.kind not in "iu":
            raise TypeError(f"binomial: count must be an integer tensor, got {count.dtype.name}")
        if prob.dtype.kind != "f":
            raise TypeError(f"binomial: prob must be a floating point tensor, got "
                            f"{prob.dtype.name}")
        shape = broadcast_shapes("binomial", count.shape, prob.shape, ("count", "prob"))
        return TensorSpec(shape, _dt.int64)

    def compute(self, xp, count, prob, seed=0):
        if (count < 0).any():
            raise ValueError("binomial: every count must be non-negative")
        if ((prob < 0) | (prob > 1)).any() or not xp.isfinite(prob).all():
            raise ValueError("binomial: every prob must lie in [0, 1]")
        count, prob = xp.broadcast_arrays(count.astype(xp.int64), prob.astype(xp.float64))
        out = rng(seed).binomial(count, prob)
        return xp.asarray(out).astype(xp.int64)

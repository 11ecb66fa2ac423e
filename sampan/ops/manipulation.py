"""Shape manipulation operators: reshape, transpose, concat, split, expand, ...

Imports `framework` and `ops.opdef` only.
"""
from __future__ import annotations

import math

from .dispatch import call
from .opdef import OpDef, broadcast_shapes, register


def resolve_shape(api: str, shape, src: tuple) -> tuple:
    """Paddle reshape rules: 0 copies the input dim, one -1 is inferred."""
    shape = [int(s) for s in shape]
    out = []
    for i, s in enumerate(shape):
        if s == 0:
            if i >= len(src):
                raise ValueError(f"{api}: shape[{i}] is 0 (copy the input dim) but x has only "
                                 f"{len(src)} dims")
            s = src[i]
        out.append(s)
    if out.count(-1) > 1:
        raise ValueError(f"{api}: only one dim of shape may be -1, got {shape}")
    total = math.prod(src)
    if -1 in out:
        rest = math.prod(s for s in out if s != -1)
        if -1 in src:
            return tuple(out)
        if rest == 0 or total % rest:
            raise ValueError(f"{api}: cannot reshape x of shape {list(src)} ({total} elements) "
                             f"to {shape}")
        out[out.index(-1)] = total // rest
    elif -1 not in src and math.prod(out) != total:
        raise ValueError(f"{api}: cannot reshape x of shape {list(src)} ({total} elements) to "
                         f"{shape} ({math.prod(out)} elements)")
    return tuple(out)


@register
class Reshape(OpDef):
    """out = x with a new shape (0 copies a dim, -1 is inferred); the data is not copied."""

    name = "reshape"
    attrs = {"shape": None}
    check = True
    onnx = "Reshape"

    def infer(self, x, shape=None):
        return x.with_shape(resolve_shape(self.name, shape, x.shape))

    def compute(self, xp, x, shape=None):
        return xp.reshape(x, resolve_shape(self.name, shape, x.shape))

    def vjp(self, ctx, g):
        return (call("reshape", g, shape=list(ctx.x.shape)),)


@register
class ExpandAs(OpDef):
    """out = x broadcast to the shape of y (y's values are not used)."""

    name = "expand_as"
    inputs = ("x", "y")
    saves = ()

    def infer(self, x, y):
        broadcast_shapes(self.name, x.shape, y.shape)
        return y.with_dtype(x.dtype)

    def compute(self, xp, x, y):
        return xp.broadcast_to(x, y.shape)

    def vjp(self, ctx, g):
        return (g, None)

"""Elementwise ops with extra operands or attrs: clip, scale, lerp, add_n, multiplex,
nan_to_num, increment.
"""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from .dispatch import call
from .math import UnarySame, keep, step, zeros_grad
from .opdef import OpDef, TensorSpec, broadcast_shapes, register


@register
class Clip(OpDef):
    """out = min(max(x, min), max); `min`/`max` are optional 0-D tensors cast to x's dtype.

    Subgradient (Paddle's): dx = g where min < x < max strictly, else 0; no gradient flows
    to the bounds.
    """

    name = "clip"
    inputs = ("x", "min?", "max?")
    check = True

    def onnx(self, b, node):   # the bounds as 0-D tensors of x's dtype
        bounds = [None if n is None else b.reshape(b.like([n], [s], node.out_dtype())[0], [])
                  for n, s in zip(node.inputs[1:], node.specs[1:])]
        return b.op("Clip", [node.inputs[0]] + bounds)

    def infer(self, x, min=None, max=None):
        for arg, spec in (("min", min), ("max", max)):
            if spec is not None and len(spec.shape) > 1 or (
                    spec is not None and len(spec.shape) == 1 and spec.shape[0] not in (1, -1)):
                raise ValueError(f"clip: {arg} must be a scalar or a 0-D/1-element tensor, "
                                 f"got shape {list(spec.shape)}")
        return x

    def compute(self, xp, x, min=None, max=None):
        lo = None if min is None else min.astype(x.dtype).reshape(())
        hi = None if max is None else max.astype(x.dtype).reshape(())
        if lo is None and hi is None:
            return x.copy()
        return xp.clip(x, lo, hi).astype(x.dtype, copy=False)  # bfloat16 comes back float32

    def vjp(self, ctx, g):
        mask = None
        if ctx.min is not None:
            mask = step(ctx.x - call("cast", ctx.min, dtype=ctx.x.dtype.name))
        if ctx.max is not None:
            upper = step(call("cast", ctx.max, dtype=ctx.x.dtype.name) - ctx.x)
            mask = upper if mask is None else mask * upper
        return (g if mask is None else g * mask, None, None)


@register
class Scale(OpDef):
    """out = scale * x + bias (bias_after_scale) or scale * (x + bias); dtype of x kept."""

    name = "scale"
    attrs = {"scale": 1.0, "bias": 0.0, "bias_after_scale": True}
    saves = ()

    def onnx(self, b, node):
        a, x, dt = node.attrs, node.inputs[0], node.out_dtype()
        if dt.kind != "f":
            raise b.Unsupported(f"scale of a {dt.name} tensor")
        if not a["bias_after_scale"]:
            x = b.op("Add", [x, b.scalar(a["bias"], dt)])
        x = b.op("Mul", [x, b.scalar(a["scale"], dt)])
        return b.op("Add", [x, b.scalar(a["bias"], dt)]) if a["bias_after_scale"] else x

    def infer(self, x, scale=1.0, bias=0.0, bias_after_scale=True):
        return x

    def compute(self, xp, x, scale=1.0, bias=0.0, bias_after_scale=True):
        if bias_after_scale:
            out = x * scale + bias
        else:
            out = (x + bias) * scale
        return keep(xp.asarray(out), x)

    def vjp(self, ctx, g):
        return (call("scale", g, scale=ctx.scale, bias=0.0, bias_after_scale=True),)


@register
class Lerp(OpDef):
    """out = x + weight * (y - x) with broadcasting of all three inputs."""

    name = "lerp"
    inputs = ("x", "y", "weight")
    promote = True

    def onnx(self, b, node):
        x, y, w = b.like(node.inputs, node.specs, node.out_dtype())
        return b.op("Add", [x, b.op("Mul", [w, b.op("Sub", [y, x])])])

    def infer(self, x, y, weight):
        shape = broadcast_shapes(self.name, x.shape, y.shape)
        shape = broadcast_shapes(self.name, shape, weight.shape, ("x and y", "weight"))
        return TensorSpec(shape, _dt.promote_types(_dt.promote_types(x.dtype, y.dtype),
                                                   weight.dtype))

    def compute(self, xp, x, y, weight):
        dtype = xp.result_type(x, y, weight)
        return (x + weight * (y - x)).astype(dtype, copy=False)

    def vjp(self, ctx, g):
        w = ctx.weight
        gx = g * (1.0 - w) if ctx.needs[0] else None
        gy = g * w if ctx.needs[1] else None
        gw = g * (ctx.y - ctx.x) if ctx.needs[2] else None
        return (gx, gy, gw)


@register
class AddN(OpDef):
    """out = inputs[0] + inputs[1] + ...; every input must have the same shape and dtype."""

    name = "add_n"
    inputs = ("*inputs",)
    saves = ()

    def onnx(self, b, node):
        return b.elementwise("Sum", node)

    check = True

    def infer(self, inputs):
        if not inputs:
            raise ValueError("add_n: inputs must be a non-empty list of Tensors")
        first = inputs[0]
        shape = list(first.shape)
        for i, s in enumerate(inputs[1:], 1):
            same = len(s.shape) == len(shape) and all(
                a == b or a == -1 or b == -1 for a, b in zip(s.shape, shape))
            if not same or s.dtype is not first.dtype:
                raise ValueError(f"add_n: every input must have the shape and dtype of "
                                 f"inputs[0] ({list(first.shape)}, {first.dtype.name}); "
                                 f"inputs[{i}] has {list(s.shape)}, {s.dtype.name}")
            shape = [b if a == -1 else a for a, b in zip(shape, s.shape)]  # -1: run time
        return first.with_shape(shape)

    def compute(self, xp, inputs):
        out = inputs[0].copy()
        for a in inputs[1:]:
            out += a
        return out

    def vjp(self, ctx, g):
        return ([g if need else None for need in ctx.needs[0]],)


@register
class Multiplex(OpDef):
    """out[i] = inputs[index[i]][i]: picks, per row, the row of one of the inputs.

    `index` is an int32/int64 tensor of shape [N, 1] (or [N]); inputs share one shape [N, ...].
    """

    name = "multiplex"
    inputs = ("*inputs", "index")
    saves = ("index",)
    check = True

    def infer(self, inputs, index):
        if not inputs:
            raise ValueError("multiplex: inputs must be a non-empty list of Tensors")
        first = inputs[0]
        for i, s in enumerate(inputs[1:], 1):
            if s.shape != first.shape or s.dtype is not first.dtype:
                raise ValueError(f"multiplex: inputs[{i}] has shape {list(s.shape)} and dtype "
                                 f"{s.dtype.name}; expected {list(first.shape)}, "
                                 f"{first.dtype.name} like inputs[0]")
        if index.dtype.kind not in "iu":
            raise TypeError(f"multiplex: index must be an int32 or int64 tensor, got "
                            f"{index.dtype.name}")
        rows = first.shape[0] if first.shape else None
        if rows is None or index.shape not in ((rows, 1), (rows,), (-1, 1), (-1,)):
            raise ValueError(f"multiplex: index must have shape [{rows}, 1] (one entry per "
                             f"row of the inputs), got {list(index.shape)}")
        return first

    def compute(self, xp, inputs, index):
        idx = index.reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= len(inputs)):
            raise IndexError(f"multiplex: index values must be in [0, {len(inputs)}), got "
                             f"min {idx.min()}, max {idx.max()}")
        stacked = xp.stack(inputs)
        return stacked[idx, xp.arange(idx.size)]

    def vjp(self, ctx, g):
        zero = zeros_grad(g)
        grads = []
        for k, need in enumerate(ctx.needs[0]):
            if not need:
                grads.append(None)
                continue
            parts = [g if j == k else zero for j in range(len(ctx.needs[0]))]
            grads.append(call("multiplex", parts, ctx.index))
        return (grads, None)


@register
class NanToNum(UnarySame):
    """Replace NaN by `nan`, +inf by `posinf`, -inf by `neginf` (None: dtype's max/min).

    Gradient: g where x is finite, 0 where it was replaced.
    """

    name = "nan_to_num"
    attrs = {"nan": 0.0, "posinf": None, "neginf": None}

    def onnx(self, b, node):   # Where(IsNaN), Where(IsInf up/down); None: dtype's max/min
        x, dt = node.inputs[0], node.out_dtype()
        if dt.kind != "f":
            return b.op("Identity", [x])
        info = np.finfo(dt)
        pos = info.max if node["posinf"] is None else node["posinf"]
        neg = info.min if node["neginf"] is None else node["neginf"]
        x = b.op("Where", [b.op("IsNaN", [x]), b.scalar(node["nan"], dt), x])
        x = b.op("Where", [b.op("IsInf", [x], detect_negative=0), b.scalar(pos, dt), x])
        return b.op("Where", [b.op("IsInf", [x], detect_positive=0), b.scalar(neg, dt), x])

    def compute(self, xp, x, nan=0.0, posinf=None, neginf=None):
        return xp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)

    def vjp(self, ctx, g):
        finite = call("nan_to_num", ctx.x * 0.0 + 1.0, nan=0.0, posinf=None, neginf=None)
        return (g * finite,)


@register
class Increment(UnarySame):
    """out = x + value for a tensor with exactly one element (a loop counter)."""

    name = "increment"
    attrs = {"value": 1.0}
    saves = ()
    check = True

    def onnx(self, b, node):
        return b.op("Add", [node.inputs[0], b.scalar(node["value"], node.out_dtype())])

    def infer(self, x, value=1.0):
        numel = 1
        for d in x.shape:
            numel *= d
        if numel != 1:
            raise ValueError(f"increment: x must have exactly one element, got shape "
                             f"{list(x.shape)}")
        return x

    def compute(self, xp, x, value=1.0):
        return keep(xp.asarray(x + value), x)

    def vjp(self, ctx, g):
        return (g,)

"""Tensor attribute operators (shape). Imports `framework` and `ops.opdef` only."""
from __future__ import annotations

from ..framework import dtype as _dt
from .opdef import OpDef, TensorSpec, register


@register
class Shape(OpDef):
    """out = the shape of x as a 1-D int64 tensor (known at run time in static graphs)."""

    name = "shape"
    saves = ()

    def onnx(self, b, node):
        return b.cast(b.op("Shape", [node.inputs[0]]), node.out_dtype())

    def infer(self, x):
        return TensorSpec((len(x.shape),), _dt.int64)

    def compute(self, xp, x):
        return xp.asarray(x.shape, dtype=xp.int64)

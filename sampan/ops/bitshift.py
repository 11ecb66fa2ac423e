"""Bit shifts on integer tensors: bitwise_left_shift, bitwise_right_shift.

Shift counts outside [0, bits) are defined (as in Paddle): a left shift and a logical right
shift give 0, an arithmetic right shift fills with the sign bit. Imports `framework` only.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from .opdef import OpDef, TensorSpec, broadcast_shapes, register


class _Shift(OpDef):
    inputs = ("x", "y")
    attrs = {"is_arithmetic": True}
    promote = True
    check = True  # NumPy would shift bools and floats-as-ints silently
    saves = ()

    def infer(self, x, y, is_arithmetic=True):
        for arg, spec in (("x", x), ("y", y)):
            if spec.dtype.kind not in "iu":
                raise TypeError(f"{self.name}: {arg} must be an integer tensor (int8, int16, "
                                f"int32, int64 or uint8), got {spec.dtype.name}")
        return TensorSpec(broadcast_shapes(self.name, x.shape, y.shape),
                          _dt.promote_types(x.dtype, y.dtype))

    @staticmethod
    def _count(xp, x, y):
        """The shift count clipped into range, and where it was out of range."""
        bits = x.dtype.itemsize * 8
        outside = (y < 0) | (y >= bits)
        return xp.where(outside, 0, y).astype(x.dtype), outside


@register
class BitwiseLeftShift(_Shift):
    """out = x << y elementwise (wrapping in x's width); 0 where y < 0 or y >= bits."""

    name = "bitwise_left_shift"

    def compute(self, xp, x, y, is_arithmetic=True):
        x, y = xp.broadcast_arrays(x, y)
        count, outside = self._count(xp, x, y)
        return xp.where(outside, 0, xp.left_shift(x, count)).astype(x.dtype)


@register
class BitwiseRightShift(_Shift):
    """out = x >> y elementwise; arithmetic (sign-filling) or logical (zero-filling, on the
    bits of x read as unsigned)."""

    name = "bitwise_right_shift"

    def compute(self, xp, x, y, is_arithmetic=True):
        x, y = xp.broadcast_arrays(x, y)
        count, outside = self._count(xp, x, y)
        if is_arithmetic or x.dtype.kind == "u":
            fill = xp.where(x < 0, -1, 0) if x.dtype.kind == "i" else 0
            return xp.where(outside, fill, xp.right_shift(x, count)).astype(x.dtype)
        unsigned = x.view(f"u{x.dtype.itemsize}")
        shifted = xp.right_shift(unsigned, count.astype(unsigned.dtype)).view(x.dtype)
        return xp.where(outside, 0, shifted).astype(x.dtype)

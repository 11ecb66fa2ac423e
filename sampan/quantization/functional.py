"""Public functions over the quantization OpDefs (sampan/ops/quant.py).

Scales are thresholds (abs max); an int8 step is scale / 127. Imports `ops` and `tensor`.
"""
from __future__ import annotations

from ..ops import call


def fake_quant_dequant(x, scale, bit_length: int = 8, quant_axis: int = -1, name=None):
    """Snap x to the integer grid of scale: round(clip(x, -s, s) / s * bnt) * s / bnt with
    bnt = 2 ** (bit_length - 1) - 1, rounding half away from zero. The gradient to x is
    straight-through (unchanged).

    Args:
        x (Tensor): float input.
        scale (Tensor): shape [1] (per tensor) or [x.shape[quant_axis]] (per channel).
        bit_length (int): bits of the integer grid, default 8.
        quant_axis (int): -1 for a per-tensor scale, else the channel axis.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization.functional import fake_quant_dequant
        >>> x = paddle.to_tensor([0.5, 1.5, 2.5, -2.5, 300.0])
        >>> fake_quant_dequant(x, paddle.to_tensor([127.0])).numpy()
        array([  1.,   2.,   3.,  -3., 127.], dtype=float32)
    """
    return call("fake_quantize_dequantize", x, scale, bit_length=bit_length,
                quant_axis=quant_axis)


def quantize_linear(x, scale, bit_length: int = 8, quant_axis: int = -1, name=None):
    """Integer levels clip(round(x / s * bnt), -bnt, bnt) as int8 (half away from zero).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization.functional import quantize_linear
        >>> quantize_linear(paddle.to_tensor([0.5, -1.0, 9.0]), paddle.to_tensor([1.0])).numpy()
        array([  64, -127,  127], dtype=int8)
    """
    return call("quantize_linear", x, scale, bit_length=bit_length, quant_axis=quant_axis)


def dequantize_linear(x, scale, bit_length: int = 8, quant_axis: int = -1, name=None):
    """Float values x * s / bnt of integer levels (int8) or int32 accumulators.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization.functional import dequantize_linear
        >>> q = paddle.to_tensor([64, -127], dtype="int8")
        >>> dequantize_linear(q, paddle.to_tensor([1.27])).numpy()
        array([ 0.64, -1.27], dtype=float32)
    """
    return call("dequantize_linear", x, scale, bit_length=bit_length, quant_axis=quant_axis)


def int8_matmul(x, y, name=None):
    """int32 product of int8 x [..., K] and int8 y [K, N], accumulated exactly."""
    return call("int8_matmul", x, y)


def int8_conv2d(x, weight, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1),
                groups: int = 1, name=None):
    """int32 NCHW convolution of int8 x with int8 weight; padding [top, bottom, left, right]."""
    return call("int8_conv2d", x, weight, stride=list(stride), padding=list(padding),
                dilation=list(dilation), groups=groups)

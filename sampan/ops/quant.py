"""Quantization operators: fake quantize-dequantize (straight-through gradient), quantize /
dequantize between float and int8/int32, and int8 matmul / conv2d with int32 accumulation.

Scales follow Paddle's convention: `scale` is the clipping threshold (abs max), and an integer
step is scale / bnt with bnt = 2 ** (bit_length - 1) - 1 (127 for int8). Rounding is half away
from zero, as Paddle's kernels (std::round) do. Imports only `framework`, `backend` and siblings.
"""
from __future__ import annotations

from ..backend.conv import conv_array
from ..backend.window import from_channels_first, to_channels_first
from .nn_conv import _resolved
from .opdef import OpDef, TensorSpec, register

# float32 sums of int8 products are exact while |sum| < 2 ** 24: 128 * 128 * depth <= 2 ** 24
_EXACT_F32_DEPTH = 1024


def _bnt(api: str, bit_length) -> int:
    if not isinstance(bit_length, int) or not 2 <= bit_length <= 16:
        raise ValueError(f"{api}: bit_length must be an int in [2, 16], got {bit_length!r}")
    return (1 << (bit_length - 1)) - 1


def _check_scale(api: str, x, scale, quant_axis) -> None:
    """Per-tensor scale has 1 element ([], [1]); per-channel scale is 1-D along quant_axis."""
    if quant_axis == -1:
        if scale.ndim > 1 or (scale.ndim == 1 and scale.shape[0] not in (1, -1)):
            raise ValueError(f"{api}: quant_axis=-1 (per tensor) needs a scale of shape [] or "
                             f"[1], got {list(scale.shape)}")
        return
    if not isinstance(quant_axis, int) or not 0 <= quant_axis < max(x.ndim, 1):
        raise ValueError(f"{api}: quant_axis must be -1 or a dim of x (shape "
                         f"{list(x.shape)}), got {quant_axis!r}")
    n = x.shape[quant_axis]
    if scale.ndim != 1 or -1 not in (n, scale.shape[0]) and scale.shape[0] != n:
        raise ValueError(f"{api}: per-channel scale along quant_axis={quant_axis} must have "
                         f"shape [{n}], got {list(scale.shape)}")


def _bcast(xp, scale, ndim: int, quant_axis: int):
    """The scale shaped to broadcast against x."""
    if quant_axis == -1:
        return scale.reshape(())
    shape = [1] * ndim
    shape[quant_axis] = -1
    return scale.reshape(shape)


def round_half_away(xp, v):
    """Round to nearest, ties away from zero (exact: no 0.5 added to the value)."""
    t = xp.trunc(v)
    frac = xp.abs(v - t)
    return xp.where(frac >= 0.5, t + xp.sign(v), t).astype(v.dtype)


def _quant(xp, x, scale, bnt: int, quant_axis: int):
    """Integer levels round(clip(x, -s, s) / s * bnt) in x's float dtype; 0 where s <= 0."""
    s = _bcast(xp, scale.astype(x.dtype), x.ndim, quant_axis)
    ok = s > 0
    safe = xp.where(ok, s, xp.ones_like(s))
    q = round_half_away(xp, xp.clip(x, -safe, safe) * x.dtype.type(bnt) / safe)
    return xp.where(ok, q, xp.zeros_like(q)), safe


def _float_spec(api: str, x, arg: str = "x") -> None:
    if x.dtype.kind != "f":
        raise TypeError(f"{api}: {arg} must be a floating point tensor, got {x.dtype.name}")


def _onnx_step(b, node, scale: str, bnt: int) -> str:
    """ONNX scales are steps (scale / bnt), 0-d for per-tensor, 1-D for per-axis."""
    step = b.op("Div", [scale, b.scalar(float(bnt), node.specs[1].dtype)])
    return b.reshape(step, []) if node["quant_axis"] == -1 else step


def _onnx_zero(b, node, dtype) -> str:
    """Zero points: a scalar per tensor, one per channel per axis (as the scale's shape)."""
    if node["quant_axis"] == -1:
        return b.const(0, dtype)
    n = int(node.specs[1].shape[0])
    if n < 0:
        raise b.Unsupported(f"{node.type}: a per-channel scale of unknown length")
    return b.const([0] * n, dtype)


def _onnx_saturate(b, q: str, bnt: int) -> str:
    """ONNX saturates to the type's range ([-128, 127]); Paddle's levels stop at -bnt."""
    dtype = "int8" if bnt <= 127 else "int16"
    return b.op("Clip", [q, b.const(-bnt, dtype), b.const(bnt, dtype)])


def _axis(node):
    return None if node["quant_axis"] == -1 else int(node["quant_axis"])


@register
class FakeQuantizeDequantize(OpDef):
    """out = round(clip(x, -s, s) / s * bnt) * s / bnt: x snapped to the int grid of scale s.

    scale: [] / [1] (per tensor, quant_axis=-1) or [x.shape[quant_axis]] (per channel).
    Gradient: straight-through (dout passes to x unchanged, as Paddle's), none to scale.
    """

    name = "fake_quantize_dequantize"
    inputs = ("x", "scale")
    attrs = {"bit_length": 8, "quant_axis": -1}
    saves = ()
    check = True

    def infer(self, x, scale, bit_length=8, quant_axis=-1):
        _bnt(self.name, bit_length)
        _float_spec(self.name, x)
        _float_spec(self.name, scale, "scale")
        _check_scale(self.name, x, scale, quant_axis)
        return x

    def compute(self, xp, x, scale, bit_length=8, quant_axis=-1):
        bnt = _bnt(self.name, bit_length)
        q, s = _quant(xp, x, scale, bnt, quant_axis)
        return (q * s / x.dtype.type(bnt)).astype(x.dtype)

    def vjp(self, ctx, g):
        return g, None

    def onnx(self, b, node):
        bnt = _bnt(self.name, node["bit_length"])
        x, scale = node.inputs
        step = _onnx_step(b, node, b.cast(scale, node.specs[0].dtype), bnt)
        zero = _onnx_zero(b, node, "int8" if bnt <= 127 else "int16")
        ax = _axis(node)
        q = _onnx_saturate(b, b.op("QuantizeLinear", [x, step, zero], axis=ax), bnt)
        return b.op("DequantizeLinear", [q, step, zero], axis=ax)


@register
class QuantizeLinear(OpDef):
    """out = clip(round(x / s * bnt), -bnt, bnt) as int8 (bit_length <= 8) or int16."""

    name = "quantize_linear"
    inputs = ("x", "scale")
    attrs = {"bit_length": 8, "quant_axis": -1}
    check = True

    def infer(self, x, scale, bit_length=8, quant_axis=-1):
        bnt = _bnt(self.name, bit_length)
        _float_spec(self.name, x)
        _float_spec(self.name, scale, "scale")
        _check_scale(self.name, x, scale, quant_axis)
        return x.with_dtype("int8" if bnt <= 127 else "int16")

    def compute(self, xp, x, scale, bit_length=8, quant_axis=-1):
        bnt = _bnt(self.name, bit_length)
        s = _bcast(xp, scale.astype(x.dtype), x.ndim, quant_axis)
        safe = xp.where(s > 0, s, xp.ones_like(s))
        q = xp.clip(round_half_away(xp, x * x.dtype.type(bnt) / safe), -bnt, bnt)
        return q.astype("int8" if bnt <= 127 else "int16")

    def onnx(self, b, node):
        bnt = _bnt(self.name, node["bit_length"])
        step = _onnx_step(b, node, b.cast(node.inputs[1], node.specs[0].dtype), bnt)
        zero = _onnx_zero(b, node, "int8" if bnt <= 127 else "int16")
        q = b.op("QuantizeLinear", [node.inputs[0], step, zero], axis=_axis(node))
        return _onnx_saturate(b, q, bnt)


@register
class DequantizeLinear(OpDef):
    """out = x * s / bnt in scale's float dtype; x is an integer tensor (int8 levels, or int32
    accumulators of an int8 product, whose scale is then s_x * s_w / bnt)."""

    name = "dequantize_linear"
    inputs = ("x", "scale")
    attrs = {"bit_length": 8, "quant_axis": -1}
    check = True

    def infer(self, x, scale, bit_length=8, quant_axis=-1):
        _bnt(self.name, bit_length)
        if x.dtype.name not in ("int8", "int16", "int32"):
            raise TypeError(f"{self.name}: x must be int8, int16 or int32, got {x.dtype.name}")
        _float_spec(self.name, scale, "scale")
        _check_scale(self.name, x, scale, quant_axis)
        return x.with_dtype(scale.dtype)

    def compute(self, xp, x, scale, bit_length=8, quant_axis=-1):
        bnt = _bnt(self.name, bit_length)
        s = _bcast(xp, scale, x.ndim, quant_axis)
        return (x.astype(scale.dtype) * (s / scale.dtype.type(bnt))).astype(scale.dtype)

    def onnx(self, b, node):
        bnt = _bnt(self.name, node["bit_length"])
        step = _onnx_step(b, node, node.inputs[1], bnt)
        zero = _onnx_zero(b, node, node.specs[0].dtype)
        return b.op("DequantizeLinear", [node.inputs[0], step, zero], axis=_axis(node))


def _exact_product(xp, depth: int, fn, *arrays):
    """Run a float product of int8 arrays whose sums are exact (float32 while depth allows,
    else float64), returned as the int32 accumulator the integer product gives."""
    ftype = "float32" if depth <= _EXACT_F32_DEPTH else "float64"
    return xp.rint(fn(*(a.astype(ftype) for a in arrays))).astype("int32")


def _int8_spec(api: str, **named) -> None:
    for arg, spec in named.items():
        if spec.dtype.name != "int8":
            raise TypeError(f"{api}: {arg} must be an int8 tensor, got {spec.dtype.name}")


@register
class Int8Matmul(OpDef):
    """int32 out = x @ y for int8 x [..., K] and y [K, N], accumulated exactly in int32.

    NOTE: NumPy has no fast integer GEMM; the kernel multiplies in float BLAS at a precision
    where every partial sum is an exact integer, so the result equals int32 accumulation."""

    name = "int8_matmul"
    inputs = ("x", "y")
    check = True

    def onnx(self, b, node):
        return b.op("MatMulInteger", list(node.inputs))

    def infer(self, x, y):
        _int8_spec(self.name, x=x, y=y)
        if x.ndim < 1 or y.ndim != 2:
            raise ValueError(f"{self.name}: x must be at least 1-D and y 2-D, got shapes "
                             f"{list(x.shape)} and {list(y.shape)}")
        if -1 not in (x.shape[-1], y.shape[0]) and x.shape[-1] != y.shape[0]:
            raise ValueError(f"{self.name}: x's last dim {x.shape[-1]} (shape {list(x.shape)}) "
                             f"must equal y's first dim {y.shape[0]} (shape {list(y.shape)})")
        return TensorSpec(x.shape[:-1] + y.shape[1:], "int32")

    def compute(self, xp, x, y):
        return _exact_product(xp, y.shape[0], xp.matmul, x, y)


@register
class Int8Conv2D(OpDef):
    """int32 out = conv2d(x, weight) for int8 x [N, C, H, W] (or NHWC) and weight
    [out_c, C / groups, kh, kw], accumulated exactly in int32 (see int8_matmul's note).
    Attributes as conv2d's."""

    name = "int8_conv2d"
    inputs = ("x", "weight")
    attrs = {"stride": [1, 1], "padding": [0, 0, 0, 0], "padding_algorithm": "EXPLICIT",
             "dilation": [1, 1], "groups": 1, "data_format": "NCHW"}
    check = True

    def infer(self, x, weight, **attrs):
        from .opdef import REGISTRY
        _int8_spec(self.name, x=x, weight=weight)
        spec = REGISTRY["conv2d"].infer(x.with_dtype("float32"), weight.with_dtype("float32"),
                                        None, **attrs)
        return spec.with_dtype("int32")

    def compute(self, xp, x, weight, **attrs):
        a = {**self.attrs, **attrs}
        x = to_channels_first(xp, x, a["data_format"])
        pads, dilation = _resolved(a, x.shape[2:], weight.shape[2:])
        depth = weight.shape[1] * weight.shape[2] * weight.shape[3]

        def conv(xf, wf):
            return conv_array(xp, xf, wf, a["stride"], pads, dilation, a["groups"])
        out = _exact_product(xp, depth, conv, x, weight)
        return from_channels_first(xp, out, a["data_format"])

    def onnx(self, b, node):
        a = node.attrs
        if a["data_format"] != "NCHW" or a["padding_algorithm"] != "EXPLICIT":
            raise b.Unsupported("int8_conv2d with data_format NHWC or SAME/VALID padding")
        pads = [int(p) for p in a["padding"]]
        return b.op("ConvInteger", list(node.inputs),
                    kernel_shape=[int(k) for k in node.specs[1].shape[2:]],
                    strides=[int(s) for s in a["stride"]], pads=[pads[0], pads[2], pads[1],
                                                                   pads[3]],
                    dilations=[int(d) for d in a["dilation"]], group=int(a["groups"]))

"""Activation operators with their own kernels: relu, leaky_relu, elu, gelu, silu, softplus,
softmax, log_softmax. Other activations are composites in nn/functional/activation.py.

Imports only `framework` and sibling op modules; vjp rules use Tensor operators and `call`.
"""
from __future__ import annotations

import math

from .dispatch import call
from .opdef import OpDef, norm_axis, register, require_float
from .vjp_context import grad_call

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TANH_K = math.sqrt(2.0 / math.pi)
_TANH_A = 0.044715


def _require_float(api: str, x) -> None:
    """Kernels refuse integer input as Paddle does (no int kernels are registered)."""
    if x.dtype.kind not in "fV":
        raise TypeError(f"{api}: x must be a floating point tensor, got {x.dtype}")


def _mask(cond, like):
    """A bool tensor as 0/1 in like's dtype. NOTE: products with masks are much faster than
    `where` in NumPy (its masked select is ~10x slower than a multiply)."""
    return call("cast", cond, dtype=like.dtype.name)


def _fast_sigmoid(x):
    """1 / (1 + e^-x) in elementwise ops (NumPy's exp beats scipy's expit ~7x)."""
    return 1.0 / (call("exp", -x) + 1.0)


class Activation(OpDef):
    """Base of elementwise activations: float input, output of the same shape and dtype."""

    def infer(self, x, **attrs):
        require_float(self.name, x)
        if x.dtype.kind == "c":
            raise TypeError(f"{self.name}: x must be a real floating point tensor, got "
                            f"{x.dtype.name}")
        return x


@register
class Relu(Activation):
    """out = max(x, 0). Subgradient 0 at x == 0 (Paddle's: dx = dout * (out > 0))."""

    name = "relu"
    saves = ("out",)
    onnx = "Relu"

    def compute(self, xp, x):
        _require_float(self.name, x)
        # maximum against a same-shape zero array (written in place) is ~2.5x faster than
        # against a scalar: NumPy's SIMD loop for maximum needs two contiguous operands
        out = xp.zeros(x.shape, x.dtype)
        return xp.maximum(x, out, out=out)

    def vjp(self, ctx, g):
        return (grad_call(ctx, "_relu_mask_mul", g, ctx.out),)

    @staticmethod
    def decompose(x):
        return call("maximum", x, x * 0.0)


@register
class ReluMaskMul(OpDef):
    """out = dout where ref > 0, else 0 (the relu backward in one pass; dout and ref have the
    same shape and dtype). Linear in dout (gradient: the same mask), piecewise constant in ref
    (no gradient)."""

    name = "_relu_mask_mul"
    inputs = ("dout", "ref")
    saves = ("ref",)

    def infer(self, dout, ref):
        if list(dout.shape) != list(ref.shape) or dout.dtype is not ref.dtype:
            raise ValueError(f"{self.name}: dout (shape {list(dout.shape)}, "
                             f"{dout.dtype.name}) and ref (shape {list(ref.shape)}, "
                             f"{ref.dtype.name}) must have the same shape and dtype")
        return dout

    def compute(self, xp, dout, ref):
        return xp.multiply(dout, ref > 0)

    def vjp(self, ctx, h):
        return (call("_relu_mask_mul", h, ctx.ref) if ctx.needs[0] else None, None)

    @staticmethod
    def decompose(dout, ref):
        return dout * _mask(ref > 0, dout)


@register
class LeakyRelu(Activation):
    """out = x where x > 0 else negative_slope * x; the gradient at 0 is 1 (Paddle's)."""

    name = "leaky_relu"
    attrs = {"negative_slope": 0.01}

    def onnx(self, b, node):
        return b.op("LeakyRelu", [node.inputs[0]], alpha=float(node.attrs["negative_slope"]))

    def compute(self, xp, x, negative_slope=0.01):
        _require_float(self.name, x)
        scaled = x * x.dtype.type(negative_slope)
        if 0.0 <= negative_slope <= 1.0:
            return xp.maximum(x, scaled)
        return xp.where(x > 0, x, scaled)

    def vjp(self, ctx, g):
        slope = ctx.negative_slope
        return (g * (_mask(ctx.x >= 0, g) * (1.0 - slope) + slope),)

    @staticmethod
    def decompose(x, negative_slope=0.01):
        return call("where", x > 0, x, x * negative_slope)


@register
class Elu(Activation):
    """out = x where x > 0 else alpha * (exp(x) - 1); gradient at 0 is alpha (Paddle's)."""

    name = "elu"
    attrs = {"alpha": 1.0}
    saves = ("x", "out")

    def onnx(self, b, node):
        return b.op("Elu", [node.inputs[0]], alpha=float(node.attrs["alpha"]))

    def compute(self, xp, x, alpha=1.0):
        _require_float(self.name, x)
        zero = x.dtype.type(0)
        out = xp.expm1(xp.minimum(x, zero))
        out *= x.dtype.type(alpha)
        out += xp.maximum(x, zero)
        return out

    def vjp(self, ctx, g):
        # below 0, d/dx alpha * (e^x - 1) = alpha * e^x = out + alpha
        pos = _mask(ctx.x > 0, g)
        return (g * (pos + (1.0 - pos) * (ctx.out + ctx.alpha)),)

    @staticmethod
    def decompose(x, alpha=1.0):
        neg = call("expm1", call("minimum", x, x * 0.0)) * alpha
        return call("where", x > 0, x, neg)


@register
class Gelu(Activation):
    """out = x * Phi(x) (Phi: the standard normal CDF); approximate=True uses
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))."""

    name = "gelu"
    attrs = {"approximate": False}

    def onnx(self, b, node):   # Gelu itself is opset 20
        x, dt = node.inputs[0], node.out_dtype()
        if node.attrs["approximate"]:
            cube = b.op("Mul", [b.op("Mul", [x, x]), x])
            inner = b.op("Add", [x, b.op("Mul", [cube, b.scalar(0.044715, dt)])])
            t = b.op("Tanh", [b.op("Mul", [inner, b.scalar(math.sqrt(2 / math.pi), dt)])])
        else:
            t = b.op("Erf", [b.op("Mul", [x, b.scalar(math.sqrt(0.5), dt)])])
        half = b.op("Mul", [x, b.scalar(0.5, dt)])
        return b.op("Mul", [half, b.op("Add", [t, b.scalar(1.0, dt)])])

    def compute(self, xp, x, approximate=False):
        _require_float(self.name, x)
        one = x.dtype.type(1)
        half = x.dtype.type(0.5)
        if approximate:
            inner = x * x
            inner *= x.dtype.type(_TANH_A)
            inner += one
            inner *= x
            inner *= x.dtype.type(_TANH_K)
            out = xp.tanh(inner)
        else:
            out = xp.special.erf(x * x.dtype.type(_SQRT_HALF)).astype(x.dtype, copy=False)
        out += one
        out *= half
        out *= x
        return out

    def vjp(self, ctx, g):
        x = ctx.x
        if ctx.approximate:
            t = call("tanh", (x + x * x * x * _TANH_A) * _TANH_K)
            dt = (1.0 - t * t) * ((x * x * (3.0 * _TANH_A) + 1.0) * _TANH_K)
            return (g * ((t + 1.0) * 0.5 + x * dt * 0.5),)
        cdf = (call("erf", x * _SQRT_HALF) + 1.0) * 0.5
        pdf = call("exp", x * x * -0.5) * _INV_SQRT_2PI
        return (g * (cdf + x * pdf),)

    @staticmethod
    def decompose(x, approximate=False):
        if approximate:
            t = call("tanh", (x + x * x * x * _TANH_A) * _TANH_K)
            return x * (t + 1.0) * 0.5
        return x * (call("erf", x * _SQRT_HALF) + 1.0) * 0.5


@register
class Silu(Activation):
    """out = x * sigmoid(x) (also paddle.nn.functional.swish)."""

    name = "silu"

    def onnx(self, b, node):
        return b.op("Mul", [node.inputs[0], b.op("Sigmoid", [node.inputs[0]])])

    def compute(self, xp, x):
        _require_float(self.name, x)
        den = xp.asarray(xp.exp(-x))  # overflows to inf for x << 0, giving x / inf = -0 as the limit
        den += x.dtype.type(1)
        return xp.divide(x, den, out=den)

    def vjp(self, ctx, g):
        x = ctx.x
        s = _fast_sigmoid(x)
        return (g * (s * (x * (1.0 - s) + 1.0)),)

    @staticmethod
    def decompose(x):
        return x * call("sigmoid", x)


@register
class Softplus(Activation):
    """out = log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold."""

    amp = "float32"
    name = "softplus"
    attrs = {"beta": 1.0, "threshold": 20.0}

    def onnx(self, b, node):   # x where beta * x > threshold (as Paddle)
        x, dt, a = node.inputs[0], node.out_dtype(), node.attrs
        bx = b.op("Mul", [x, b.scalar(a["beta"], dt)])
        soft = b.op("Div", [b.op("Softplus", [bx]), b.scalar(a["beta"], dt)])
        return b.op("Where", [b.op("Greater", [bx, b.scalar(a["threshold"], dt)]), x, soft])

    def compute(self, xp, x, beta=1.0, threshold=20.0):
        _require_float(self.name, x)
        bx = x * x.dtype.type(beta) if beta != 1.0 else x
        # log(1 + e^bx) = max(bx, 0) + log1p(e^-|bx|), without overflow
        soft = xp.asarray(xp.log1p(xp.exp(-xp.abs(bx))))
        soft += xp.maximum(bx, x.dtype.type(0))
        if beta != 1.0:
            soft /= x.dtype.type(beta)
        above = bx > threshold
        if above.any():
            soft[above] = x[above]
        return soft

    def vjp(self, ctx, g):
        bx = ctx.x * ctx.beta
        above = _mask(bx > ctx.threshold, g)
        return (g * (above + (1.0 - above) * _fast_sigmoid(bx)),)

    @staticmethod
    def decompose(x, beta=1.0, threshold=20.0):
        bx = x * beta
        soft = call("logaddexp", bx * 0.0, bx) / beta
        return call("where", bx > threshold, x, soft)


class _AxisOp(Activation):
    """Base of softmax / log_softmax: an `axis` attr checked against x's rank."""

    attrs = {"axis": -1}
    saves = ("out",)

    def infer(self, x, axis=-1):
        norm_axis(self.name, axis, x.ndim)
        return super().infer(x)


@register
class Softmax(_AxisOp):
    """out = exp(x - max) / sum(exp(x - max)) along `axis` (max subtracted for stability)."""

    amp = "float32"
    name = "softmax"

    def onnx(self, b, node):
        return b.at_least_1d(node, lambda x: b.op("Softmax", [x], axis=int(node.attrs["axis"])))

    def compute(self, xp, x, axis=-1):
        _require_float(self.name, x)
        if x.ndim == 0 or x.size == 0:
            return xp.ones_like(x)
        out = x - x.max(axis=axis, keepdims=True)
        xp.exp(out, out=out)
        out /= out.sum(axis=axis, keepdims=True)
        return out

    def vjp(self, ctx, g):
        out = ctx.out
        if out.ndim == 0:
            return (g * 0.0,)
        dot = call("sum", g * out, axis=[ctx.axis], keepdim=True, dtype=None)
        return ((g - dot) * out,)

    @staticmethod
    def decompose(x, axis=-1):
        if x.ndim == 0:
            return x * 0.0 + 1.0
        e = call("exp", x - call("max", x, axis=[axis], keepdim=True))
        return e / call("sum", e, axis=[axis], keepdim=True, dtype=None)


@register
class LogSoftmax(_AxisOp):
    """out = x - max - log(sum(exp(x - max))) along `axis`."""

    amp = "float32"
    name = "log_softmax"

    def onnx(self, b, node):
        return b.at_least_1d(node, lambda x: b.op("LogSoftmax", [x], axis=int(node.attrs["axis"])))

    def compute(self, xp, x, axis=-1):
        _require_float(self.name, x)
        if x.ndim == 0 or x.size == 0:
            return xp.zeros_like(x)
        out = x - x.max(axis=axis, keepdims=True)
        lse = xp.log(xp.exp(out).sum(axis=axis, keepdims=True))
        out -= lse
        return out

    def vjp(self, ctx, g):
        out = ctx.out
        if out.ndim == 0:
            return (g * 0.0,)
        total = call("sum", g, axis=[ctx.axis], keepdim=True, dtype=None)
        return (g - call("exp", out) * total,)

    @staticmethod
    def decompose(x, axis=-1):
        if x.ndim == 0:
            return x * 0.0
        shifted = x - call("max", x, axis=[axis], keepdim=True)
        lse = call("log", call("sum", call("exp", shifted), axis=[axis], keepdim=True,
                               dtype=None))
        return shifted - lse

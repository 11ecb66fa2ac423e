"""Trigonometric and hyperbolic operators (sin ... atanh) and the sigmoid-like functions
sigmoid, logit and stanh.
"""
from __future__ import annotations

from .dispatch import call
from .math import UnaryFloat, as_float, keep, step
from .opdef import register
from .vjp_context import grad_call


@register
class Sin(UnaryFloat):
    """Sine (radians)."""

    name = "sin"
    onnx = "Sin"

    def compute(self, xp, x):
        return xp.sin(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("cos", ctx.x),)


@register
class Cos(UnaryFloat):
    """Cosine (radians)."""

    name = "cos"
    onnx = "Cos"

    def compute(self, xp, x):
        return xp.cos(as_float(xp, x))

    def vjp(self, ctx, g):
        return (-g * call("sin", ctx.x),)


@register
class Tan(UnaryFloat):
    """Tangent (radians)."""

    amp = "float32"
    name = "tan"
    saves = ("out",)
    onnx = "Tan"

    def compute(self, xp, x):
        return xp.tan(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * (ctx.out * ctx.out + 1.0),)


@register
class Asin(UnaryFloat):
    """Arcsine; nan outside [-1, 1]."""

    amp = "float32"
    name = "asin"
    onnx = "Asin"

    def compute(self, xp, x):
        return xp.arcsin(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("rsqrt", 1.0 - ctx.x * ctx.x),)


@register
class Acos(UnaryFloat):
    """Arccosine; nan outside [-1, 1]."""

    amp = "float32"
    name = "acos"
    onnx = "Acos"

    def compute(self, xp, x):
        return xp.arccos(as_float(xp, x))

    def vjp(self, ctx, g):
        return (-g * call("rsqrt", 1.0 - ctx.x * ctx.x),)


@register
class Atan(UnaryFloat):
    """Arctangent."""

    name = "atan"
    onnx = "Atan"

    def compute(self, xp, x):
        return xp.arctan(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / (ctx.x * ctx.x + 1.0),)


@register
class Sinh(UnaryFloat):
    """Hyperbolic sine."""

    amp = "float32"
    name = "sinh"
    onnx = "Sinh"

    def compute(self, xp, x):
        return xp.sinh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("cosh", ctx.x),)


@register
class Cosh(UnaryFloat):
    """Hyperbolic cosine."""

    amp = "float32"
    name = "cosh"
    onnx = "Cosh"

    def compute(self, xp, x):
        return xp.cosh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("sinh", ctx.x),)


@register
class Tanh(UnaryFloat):
    """Hyperbolic tangent."""

    name = "tanh"
    saves = ("out",)
    onnx = "Tanh"

    def compute(self, xp, x):
        return xp.tanh(as_float(xp, x))

    def vjp(self, ctx, g):
        out = ctx.out
        return (grad_call(ctx, "multiply", g, 1.0 - grad_call(ctx, "multiply", out, out)),)


@register
class Asinh(UnaryFloat):
    """Inverse hyperbolic sine."""

    name = "asinh"
    onnx = "Asinh"

    def compute(self, xp, x):
        return xp.arcsinh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("rsqrt", ctx.x * ctx.x + 1.0),)


@register
class Acosh(UnaryFloat):
    """Inverse hyperbolic cosine; nan for x < 1."""

    name = "acosh"
    onnx = "Acosh"

    def compute(self, xp, x):
        return xp.arccosh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g * call("rsqrt", ctx.x * ctx.x - 1.0),)


@register
class Atanh(UnaryFloat):
    """Inverse hyperbolic tangent; +-inf at +-1, nan outside [-1, 1]."""

    amp = "float32"
    name = "atanh"
    onnx = "Atanh"

    def compute(self, xp, x):
        return xp.arctanh(as_float(xp, x))

    def vjp(self, ctx, g):
        return (g / (1.0 - ctx.x * ctx.x),)


@register
class Sigmoid(UnaryFloat):
    """out = 1 / (1 + e ** -x); e ** -x overflowing to inf gives exactly 0 (no warning)."""

    name = "sigmoid"
    saves = ("out",)
    onnx = "Sigmoid"

    def compute(self, xp, x):
        # NOTE: plain ufuncs: scipy's expit is ~4x slower than exp + divide here
        x = as_float(xp, x)
        return keep(1.0 / (1.0 + xp.exp(-x)), x)

    def vjp(self, ctx, g):
        return (g * ctx.out * (1.0 - ctx.out),)


@register
class Logit(UnaryFloat):
    """out = log(x / (1 - x)); with eps, x is first clipped to [eps, 1 - eps].

    Gradient (Paddle's): g / (x (1 - x)) inside [eps, 1 - eps], 0 outside (eps None = 0).
    """

    name = "logit"
    attrs = {"eps": None}

    def onnx(self, b, node):   # log(x / (1 - x)), x clipped to [eps, 1 - eps] first
        dt = node.out_dtype()
        x = b.like(node.inputs, node.specs, dt)[0]
        eps = node["eps"]
        if eps:
            x = b.op("Clip", [x, b.scalar(eps, dt), b.scalar(1.0 - eps, dt)])
        return b.op("Log", [b.op("Div", [x, b.op("Sub", [b.scalar(1, dt), x])])])

    def compute(self, xp, x, eps=None):
        x = as_float(xp, x)
        if eps:
            x = xp.clip(x, eps, 1.0 - eps)
        return keep(xp.asarray(xp.log(x / (1.0 - x))), x)

    def vjp(self, ctx, g):
        x = ctx.x
        eps = ctx.eps or 0.0
        inside = step(x - eps, 1.0) * step((1.0 - eps) - x, 1.0)
        return (g * inside / (x * (1.0 - x)),)


@register
class Stanh(UnaryFloat):
    """Scaled tanh: out = scale_b * tanh(scale_a * x)."""

    name = "stanh"
    attrs = {"scale_a": 0.67, "scale_b": 1.7159}

    def onnx(self, b, node):
        dt = node.out_dtype()
        x = b.like(node.inputs, node.specs, dt)[0]
        t = b.op("Tanh", [b.op("Mul", [x, b.scalar(node["scale_a"], dt)])])
        return b.op("Mul", [t, b.scalar(node["scale_b"], dt)])

    def compute(self, xp, x, scale_a=0.67, scale_b=1.7159):
        x = as_float(xp, x)
        return keep(xp.asarray(scale_b * xp.tanh(scale_a * x)), x)

    def vjp(self, ctx, g):
        t = call("tanh", ctx.x * ctx.scale_a)
        return (g * (ctx.scale_a * ctx.scale_b) * (1.0 - t * t),)

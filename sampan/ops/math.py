"""Elementwise math operators: the Binary/Unary base classes and vjp helpers, cast, the
arithmetic ops (add ... pow) and complex parts (complex, real, imag, conj, angle).

The other elementwise families live in math_binary.py (maximum, atan2, gcd, ...),
math_combine.py (clip, scale, lerp, add_n, ...), math_unary.py (exp, log, abs, rounding, ...),
math_trig.py (sin ... atanh, sigmoid) and math_special.py (erf, gamma, Bessel), all imported
at the bottom so that they register with this module. Imports `framework` and `ops.opdef`
only; vjp rules use Tensor operators/methods and `call`.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from .dispatch import call
from .vjp_context import grad_call
from .opdef import OpDef, TensorSpec, broadcast_shapes, register


class Binary(OpDef):
    """Base of broadcasting binary ops; inputs are promoted to a common dtype by dispatch."""

    inputs = ("x", "y")
    promote = True

    def infer(self, x, y):
        return x.with_shape(broadcast_shapes(self.name, x.shape, y.shape)).with_dtype(
            _dt.promote_types(x.dtype, y.dtype))


class BinaryFloat(Binary):
    """Binary op with a float result: integer/bool inputs give the default float."""

    def infer(self, x, y):
        out = super().infer(x, y)
        return out.with_dtype(_dt.promote_float(out.dtype))


class UnaryFloat(OpDef):
    """Base of float-valued unary ops: integer and bool inputs give the default float."""

    def infer(self, x, **attrs):
        return x.with_dtype(_dt.promote_float(x.dtype))


class UnarySame(OpDef):
    """Base of unary ops whose result has the input's dtype and shape."""

    def infer(self, x, **attrs):
        return x


def as_float(xp, x):
    """Cast a non-float kernel input to the default float dtype (the UnaryFloat rule)."""
    return x if x.dtype.kind in "fcV" else x.astype(_dt.default_float().np)


def keep(out, like):
    """Give a kernel result the dtype of `like` (SciPy computes float16/bfloat16 in float64)."""
    return out if out.dtype == like.dtype else out.astype(like.dtype)


def step(d, at_zero: float = 0.0):
    """Gradient mask: 1 where d > 0, `at_zero` where d == 0, 0 where d < 0 (sampan ops)."""
    return call("heaviside", d, d * 0.0 + at_zero)


def zeros_grad(g):
    """The gradient of a piecewise-constant function: zeros shaped like the cotangent."""
    return g * 0.0


def _require_int(api: str, *specs) -> None:
    for name, spec in zip(("x", "y"), specs):
        if spec.dtype.kind not in "iu":
            raise TypeError(f"{api}: {name} must be an integer tensor (int8, int16, int32, "
                            f"int64, uint8), got {spec.dtype.name}")



def conj_if_complex(t):
    """conj(t) for complex tensors (the vjp of a product with a complex operand), else t."""
    return call("conj", t) if t.dtype.kind == "c" else t


@register
class Cast(OpDef):
    """out = x converted to `dtype`; the gradient is cast back to x's dtype by the engine."""

    name = "cast"
    attrs = {"dtype": "float32"}
    saves = ()

    def onnx(self, b, node):
        return b.cast(node.inputs[0], node.out_dtype())

    def infer(self, x, dtype="float32"):
        return x.with_dtype(dtype)

    def compute(self, xp, x, dtype="float32"):
        return x.astype(_dt.convert_dtype(dtype).np)

    def vjp(self, ctx, g):
        return (g,)


@register
class Add(Binary):
    """out = x + y with broadcasting."""

    name = "add"
    saves = ()
    onnx = "Add"

    def compute(self, xp, x, y):
        return xp.add(x, y)

    def vjp(self, ctx, g):
        return (g, g)


@register
class Subtract(Binary):
    """out = x - y with broadcasting."""

    name = "subtract"
    saves = ()
    onnx = "Sub"

    def compute(self, xp, x, y):
        return xp.subtract(x, y)

    def vjp(self, ctx, g):
        return (g, -g)


@register
class Multiply(Binary):
    """out = x * y with broadcasting (logical and for bool)."""

    name = "multiply"
    onnx = "Mul"

    def compute(self, xp, x, y):
        return xp.multiply(x, y)

    def vjp(self, ctx, g):
        # complex: Paddle's gradient convention dL/dRe + i dL/dIm gives g * conj(other)
        return (grad_call(ctx, "multiply", g, conj_if_complex(ctx.y)) if ctx.needs[0] else None,
                grad_call(ctx, "multiply", g, conj_if_complex(ctx.x)) if ctx.needs[1] else None)


@register
class Divide(BinaryFloat):
    """out = x / y (true division); integer inputs give the default float."""

    name = "divide"
    onnx = "Div"

    def compute(self, xp, x, y):
        out = xp.true_divide(x, y)
        return out if x.dtype.kind in "fcV" else out.astype(_dt.default_float().np)

    def vjp(self, ctx, g):
        y = conj_if_complex(ctx.y)
        gx = g / y
        return (gx if ctx.needs[0] else None,
                -gx * conj_if_complex(ctx.x) / y if ctx.needs[1] else None)


@register
class FloorDivide(Binary):
    """out = floor(x / y), Python-style for integers (rounds toward -inf).

    NOTE: integer division by zero gives 0 instead of aborting. Not differentiable.
    """

    name = "floor_divide"

    def onnx(self, b, node):   # ints: (x - Mod(x, y)) / y is exact; floats: Floor(x / y)
        x, y = b.like(node.inputs, node.specs, node.out_dtype())
        if node.out_dtype().kind == "f":
            return b.op("Floor", [b.op("Div", [x, y])])
        return b.op("Div", [b.op("Sub", [x, b.op("Mod", [x, y], fmod=0)]), y])

    def compute(self, xp, x, y):
        return xp.floor_divide(x, y)


@register
class Remainder(Binary):
    """out = x - floor(x / y) * y: the result has the sign of y (Python's %).

    Integer remainder by zero gives 0. Gradients: dx = g, dy = -g * floor(x / y).
    """

    name = "remainder"

    def onnx(self, b, node):   # floats: fmod, plus y where its sign differs from y's
        x, y = b.like(node.inputs, node.specs, node.out_dtype())
        if node.out_dtype().kind != "f":
            return b.op("Mod", [x, y], fmod=0)
        m = b.op("Mod", [x, y], fmod=1)
        zero = b.scalar(0, node.out_dtype())
        flip = b.op("And", [b.op("Not", [b.op("Equal", [m, zero])]),
                            b.op("Xor", [b.op("Less", [m, zero]), b.op("Less", [y, zero])])])
        return b.op("Where", [flip, b.op("Add", [m, y]), m])

    def compute(self, xp, x, y):
        return xp.remainder(x, y)

    def vjp(self, ctx, g):
        gy = -g * call("floor_divide", ctx.x, ctx.y) if ctx.needs[1] else None
        return (g if ctx.needs[0] else None, gy)


@register
class Pow(Binary):
    """out = x ** y with broadcasting; integer ** integer stays integer.

    Negative integer exponents of integer bases are computed in float64 and truncated
    (1 ** -n = 1, 2 ** -1 = 0) instead of raising. dy = g * x ** y * log(x) (nan for x < 0),
    recomputed from x and y: as in Paddle the gradient does not keep `out`, so modifying
    out in place (x ** 2 then out[...] = v) leaves the backward valid.
    """

    amp = "float32"
    name = "pow"
    saves = ("x", "y")
    onnx = "Pow"

    def compute(self, xp, x, y):
        if x.dtype.kind in "iub" and y.dtype.kind in "iub":
            if (y < 0).any():
                return xp.power(x.astype(xp.float64), y).astype(x.dtype)
            if x.dtype.kind == "b":
                return xp.power(x.astype(xp.int8), y).astype(x.dtype)
        return xp.power(x, y)

    def vjp(self, ctx, g):
        gx = g * ctx.y * call("pow", ctx.x, ctx.y - 1) if ctx.needs[0] else None
        gy = g * call("pow", ctx.x, ctx.y) * call("log", ctx.x) if ctx.needs[1] else None
        return (gx, gy)


@register
class Complex(OpDef):
    """out = real + 1j * imag with broadcasting; float32 -> complex64, float64 -> complex128."""

    name = "complex"
    inputs = ("real", "imag")
    promote = True

    def infer(self, real, imag):
        dtype = _dt.promote_types(real.dtype, imag.dtype)
        if dtype.kind != "f":
            raise TypeError(f"complex: real and imag must be floating point tensors, got "
                            f"{real.dtype.name} and {imag.dtype.name}")
        return TensorSpec(broadcast_shapes(self.name, real.shape, imag.shape, ("real", "imag")),
                          _dt.complex_of(dtype))

    def compute(self, xp, real, imag):
        if real.dtype.kind != "f":
            raise TypeError("real and imag must be floating point tensors")
        out = xp.empty(xp.broadcast_shapes(real.shape, imag.shape),
                       _dt.complex_of(_dt.from_numpy(real.dtype)).np)
        out.real = real
        out.imag = imag
        return out

    def vjp(self, ctx, g):
        return (call("real", g) if ctx.needs[0] else None,
                call("imag", g) if ctx.needs[1] else None)


class _ComplexPart(OpDef):
    def infer(self, x):
        return x.with_dtype(_dt.real_of(x.dtype))


@register
class Real(_ComplexPart):
    """Real part of a complex tensor (a real tensor is returned unchanged)."""

    name = "real"

    def compute(self, xp, x):
        return xp.real(x).copy()

    def vjp(self, ctx, g):
        return (call("complex", g, g * 0.0) if ctx.x.dtype.kind == "c" else g,)


@register
class Imag(_ComplexPart):
    """Imaginary part of a complex tensor (zeros for a real tensor)."""

    name = "imag"

    def compute(self, xp, x):
        return xp.imag(x).copy()

    def vjp(self, ctx, g):
        return (call("complex", g * 0.0, g) if ctx.x.dtype.kind == "c" else zeros_grad(g),)


@register
class Conj(UnarySame):
    """Complex conjugate; real tensors are returned unchanged."""

    name = "conj"
    saves = ()

    def compute(self, xp, x):
        return xp.conj(x)

    def vjp(self, ctx, g):
        return (call("conj", g),)


@register
class Angle(_ComplexPart):
    """Argument of a complex number (radians); for real x: pi where x < 0, else 0.

    Integer inputs give the default float. Gradient: 0 for real inputs.
    """

    name = "angle"
    saves = ()

    def infer(self, x):
        return super().infer(x.with_dtype(_dt.promote_float(x.dtype)))

    def compute(self, xp, x):
        return xp.angle(as_float(xp, x))

    def vjp(self, ctx, g):
        return (zeros_grad(g),)


# registers the other elementwise OpDefs
from . import (math_binary, math_combine, math_special, math_trig,  # noqa: E402,F401
               math_unary)

"""Elementwise math operators: arithmetic, binary functions, clip/scale/lerp, complex parts.

Unary functions (sin, log, ...) live in math_unary.py, imported at the bottom so that they
register with this module. Imports `framework` and `ops.opdef` only; vjp rules use Tensor
operators/methods and `call`.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from .dispatch import call
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
    onnx = "Cast"

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
        return (g * conj_if_complex(ctx.y) if ctx.needs[0] else None,
                g * conj_if_complex(ctx.x) if ctx.needs[1] else None)


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

    def compute(self, xp, x, y):
        return xp.floor_divide(x, y)


@register
class Remainder(Binary):
    """out = x - floor(x / y) * y: the result has the sign of y (Python's %).

    Integer remainder by zero gives 0. Gradients: dx = g, dy = -g * floor(x / y).
    """

    name = "remainder"
    onnx = None  # ONNX Mod(fmod=0) matches for integers only

    def compute(self, xp, x, y):
        return xp.remainder(x, y)

    def vjp(self, ctx, g):
        gy = -g * call("floor_divide", ctx.x, ctx.y) if ctx.needs[1] else None
        return (g if ctx.needs[0] else None, gy)


@register
class Pow(Binary):
    """out = x ** y with broadcasting; integer ** integer stays integer.

    Negative integer exponents of integer bases are computed in float64 and truncated
    (1 ** -n = 1, 2 ** -1 = 0) instead of raising. dy = g * out * log(x) (nan for x < 0).
    """

    name = "pow"
    saves = ("x", "y", "out")
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
        gy = g * ctx.out * call("log", ctx.x) if ctx.needs[1] else None
        return (gx, gy)


@register
class Maximum(Binary):
    """out = max(x, y) elementwise; NaN in either input propagates.

    Subgradient (as Paddle's kernel): dx = g * (x > y), dy = g * (x <= y), so ties send the
    whole gradient to y.
    """

    name = "maximum"
    onnx = "Max"

    def compute(self, xp, x, y):
        return xp.maximum(x, y)

    def vjp(self, ctx, g):
        mask = step(ctx.x - ctx.y)
        return (g * mask if ctx.needs[0] else None, g * (1.0 - mask) if ctx.needs[1] else None)


@register
class Minimum(Binary):
    """out = min(x, y) elementwise; NaN in either input propagates.

    Subgradient (as Paddle's kernel): dx = g * (x < y), dy = g * (x >= y), so ties send the
    whole gradient to y.
    """

    name = "minimum"
    onnx = "Min"

    def compute(self, xp, x, y):
        return xp.minimum(x, y)

    def vjp(self, ctx, g):
        mask = step(ctx.y - ctx.x)
        return (g * mask if ctx.needs[0] else None, g * (1.0 - mask) if ctx.needs[1] else None)


def _picked_x(out, x):
    """1 where `out` equals `x` (NaN x counts as not picked), else 0: fmax/fmin's mask."""
    return 1.0 - call("abs", call("nan_to_num", call("sign", out - x), nan=1.0,
                                  posinf=None, neginf=None))


@register
class Fmax(Binary):
    """out = max(x, y) ignoring NaN: if one input is NaN the other is returned.

    Subgradient: the input whose value was returned gets g; ties go to x (Paddle's rule).
    """

    name = "fmax"
    saves = ("x", "out")

    def compute(self, xp, x, y):
        return xp.fmax(x, y)

    def vjp(self, ctx, g):
        mask = _picked_x(ctx.out, ctx.x)
        return (g * mask if ctx.needs[0] else None, g * (1.0 - mask) if ctx.needs[1] else None)


@register
class Fmin(Binary):
    """out = min(x, y) ignoring NaN: if one input is NaN the other is returned.

    Subgradient: the input whose value was returned gets g; ties go to x (Paddle's rule).
    """

    name = "fmin"
    saves = ("x", "out")

    def compute(self, xp, x, y):
        return xp.fmin(x, y)

    def vjp(self, ctx, g):
        mask = _picked_x(ctx.out, ctx.x)
        return (g * mask if ctx.needs[0] else None, g * (1.0 - mask) if ctx.needs[1] else None)


@register
class Atan2(Binary):
    """out = atan2(x, y), the angle of the point (y, x); integer inputs give float64."""

    name = "atan2"

    def infer(self, x, y):
        out = super().infer(x, y)
        return out if out.dtype.kind in "fc" else out.with_dtype(_dt.float64)

    def compute(self, xp, x, y):
        if x.dtype.kind not in "fcV":  # V: bfloat16
            x, y = x.astype(xp.float64), y.astype(xp.float64)
        return xp.arctan2(x, y)

    def vjp(self, ctx, g):
        x, y = ctx.x, ctx.y
        r2 = x * x + y * y
        return (g * y / r2 if ctx.needs[0] else None, -g * x / r2 if ctx.needs[1] else None)


@register
class Heaviside(Binary):
    """out = 0 where x < 0, y where x == 0, 1 where x > 0.

    Gradients (Paddle's): dx = 0, dy = g * (x == 0).
    """

    name = "heaviside"

    def compute(self, xp, x, y):
        one = xp.ones((), x.dtype)
        return xp.where(x > 0, one, xp.where(x == 0, y, xp.zeros((), x.dtype)))

    def vjp(self, ctx, g):
        x = ctx.x
        gy = g * (step(x, 1.0) - step(x, 0.0)) if ctx.needs[1] else None
        return (zeros_grad(g) if ctx.needs[0] else None, gy)


@register
class Logaddexp(BinaryFloat):
    """out = log(exp(x) + exp(y)), computed without overflow."""

    name = "logaddexp"
    saves = ("x", "y", "out")

    def compute(self, xp, x, y):
        return xp.logaddexp(as_float(xp, x), as_float(xp, y))

    def vjp(self, ctx, g):
        gx = g * call("exp", ctx.x - ctx.out) if ctx.needs[0] else None
        gy = g * call("exp", ctx.y - ctx.out) if ctx.needs[1] else None
        return (gx, gy)


@register
class Gcd(Binary):
    """Greatest common divisor of integer tensors (gcd(0, 0) = 0); not differentiable."""

    name = "gcd"

    def infer(self, x, y):
        _require_int(self.name, x, y)
        return super().infer(x, y)

    def compute(self, xp, x, y):
        return xp.gcd(x, y)


@register
class Lcm(Binary):
    """Least common multiple of integer tensors (lcm with 0 is 0); not differentiable."""

    name = "lcm"

    def infer(self, x, y):
        _require_int(self.name, x, y)
        return super().infer(x, y)

    def compute(self, xp, x, y):
        return xp.lcm(x, y)


@register
class Hypot(BinaryFloat):
    """out = sqrt(x**2 + y**2) without intermediate overflow."""

    name = "hypot"
    saves = ("x", "y", "out")

    def compute(self, xp, x, y):
        return xp.hypot(as_float(xp, x), as_float(xp, y))

    def vjp(self, ctx, g):
        gx = g * ctx.x / ctx.out if ctx.needs[0] else None
        gy = g * ctx.y / ctx.out if ctx.needs[1] else None
        return (gx, gy)


@register
class Nextafter(Binary):
    """The next representable float after x in the direction of y; not differentiable."""

    name = "nextafter"
    check = True

    def infer(self, x, y):
        out = super().infer(x, y)
        if out.dtype.name not in ("float32", "float64"):
            raise TypeError(f"nextafter: x and y must be float32 or float64 tensors, got "
                            f"{x.dtype.name} and {y.dtype.name}")
        return out

    def compute(self, xp, x, y):
        return xp.nextafter(x, y)


@register
class Copysign(BinaryFloat):
    """out = |x| with the sign of y (the sign bit, so -0.0 counts as negative).

    Integer inputs give the default float. Gradients: dx = g * sign(x) * sign(out) (0 at
    x = 0), dy = 0.
    """

    name = "copysign"
    saves = ("x", "out")

    def compute(self, xp, x, y):
        return xp.copysign(as_float(xp, x), as_float(xp, y))

    def vjp(self, ctx, g):
        gx = g * call("sign", ctx.x) * call("sign", ctx.out) if ctx.needs[0] else None
        return (gx, zeros_grad(g) if ctx.needs[1] else None)


@register
class Clip(OpDef):
    """out = min(max(x, min), max); `min`/`max` are optional 0-D tensors cast to x's dtype.

    Subgradient (Paddle's): dx = g where min < x < max strictly, else 0; no gradient flows
    to the bounds.
    """

    name = "clip"
    inputs = ("x", "min?", "max?")
    check = True

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
    onnx = "Sum"
    check = True

    def infer(self, inputs):
        if not inputs:
            raise ValueError("add_n: inputs must be a non-empty list of Tensors")
        first = inputs[0]
        for i, s in enumerate(inputs[1:], 1):
            if s.shape != first.shape or s.dtype is not first.dtype:
                raise ValueError(f"add_n: every input must have the shape and dtype of "
                                 f"inputs[0] ({list(first.shape)}, {first.dtype.name}); "
                                 f"inputs[{i}] has {list(s.shape)}, {s.dtype.name}")
        return first

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


_COMPLEX_OF = {"float32": "complex64", "float64": "complex128", "float16": "complex64",
               "bfloat16": "complex64"}
_REAL_OF = {"complex64": "float32", "complex128": "float64"}


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
                          _COMPLEX_OF[dtype.name])

    def compute(self, xp, real, imag):
        if real.dtype.kind != "f":
            raise TypeError("real and imag must be floating point tensors")
        out = xp.empty(xp.broadcast_shapes(real.shape, imag.shape),
                       _dt.convert_dtype(_COMPLEX_OF[_dt.from_numpy(real.dtype).name]).np)
        out.real = real
        out.imag = imag
        return out

    def vjp(self, ctx, g):
        return (call("real", g) if ctx.needs[0] else None,
                call("imag", g) if ctx.needs[1] else None)


class _ComplexPart(OpDef):
    def infer(self, x):
        return x.with_dtype(_REAL_OF.get(x.dtype.name, x.dtype.name))


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


from . import math_unary  # noqa: E402,F401  (registers the unary OpDefs)

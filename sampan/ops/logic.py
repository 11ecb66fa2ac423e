"""Logic operators: comparisons, logical and bitwise ops, isnan/isinf/isfinite, isclose.

Every op here returns bool (bitwise ops keep the integer dtype) and is non-differentiable.
Imports `framework` and `ops.opdef` only.
"""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from .opdef import OpDef, TensorSpec, broadcast_shapes, register


class Compare(OpDef):
    """Base of broadcasting comparisons: inputs are promoted to a common dtype, out is bool."""

    inputs = ("x", "y")
    promote = True
    saves = ()

    def infer(self, x, y):
        return TensorSpec(broadcast_shapes(self.name, x.shape, y.shape), _dt.bool_)


@register
class Equal(Compare):
    """out = (x == y) elementwise."""

    name = "equal"

    def onnx(self, b, node):
        return b.compare("Equal", node)

    def compute(self, xp, x, y):
        return xp.equal(x, y)


@register
class NotEqual(Compare):
    """out = (x != y) elementwise."""

    name = "not_equal"

    def onnx(self, b, node):
        return b.op("Not", [b.compare("Equal", node)])

    def compute(self, xp, x, y):
        return xp.not_equal(x, y)


@register
class LessThan(Compare):
    """out = (x < y) elementwise."""

    name = "less_than"

    def onnx(self, b, node):
        return b.compare("Less", node)

    def compute(self, xp, x, y):
        return xp.less(x, y)


@register
class LessEqual(Compare):
    """out = (x <= y) elementwise."""

    name = "less_equal"

    def onnx(self, b, node):
        return b.compare("LessOrEqual", node)

    def compute(self, xp, x, y):
        return xp.less_equal(x, y)


@register
class GreaterThan(Compare):
    """out = (x > y) elementwise."""

    name = "greater_than"

    def onnx(self, b, node):
        return b.compare("Greater", node)

    def compute(self, xp, x, y):
        return xp.greater(x, y)


@register
class GreaterEqual(Compare):
    """out = (x >= y) elementwise."""

    name = "greater_equal"

    def onnx(self, b, node):
        return b.compare("GreaterOrEqual", node)

    def compute(self, xp, x, y):
        return xp.greater_equal(x, y)


class Logical(Compare):
    """Base of logical binary ops: any dtypes (nonzero is True), bool output, no promotion."""

    promote = False


@register
class LogicalAnd(Logical):
    """out = x and y elementwise (nonzero values count as True)."""

    name = "logical_and"

    def onnx(self, b, node):
        return b.elementwise("And", node, "bool")

    def compute(self, xp, x, y):
        return xp.logical_and(x, y)


@register
class LogicalOr(Logical):
    """out = x or y elementwise (nonzero values count as True)."""

    name = "logical_or"

    def onnx(self, b, node):
        return b.elementwise("Or", node, "bool")

    def compute(self, xp, x, y):
        return xp.logical_or(x, y)


@register
class LogicalXor(Logical):
    """out = x xor y elementwise (nonzero values count as True)."""

    name = "logical_xor"

    def onnx(self, b, node):
        return b.elementwise("Xor", node, "bool")

    def compute(self, xp, x, y):
        return xp.logical_xor(x, y)


class UnaryBool(OpDef):
    """Base of elementwise predicates: same shape, bool output."""

    saves = ()

    def infer(self, x):
        return x.with_dtype(_dt.bool_)


@register
class LogicalNot(UnaryBool):
    """out = not x elementwise (nonzero values count as True)."""

    name = "logical_not"

    def onnx(self, b, node):
        return b.elementwise("Not", node, "bool")

    def compute(self, xp, x):
        return xp.logical_not(x)


def _require_int(api: str, spec: TensorSpec, arg: str) -> None:
    if spec.dtype.kind not in "biu":
        raise TypeError(f"{api}: {arg} must be a bool or integer tensor, got "
                        f"{spec.dtype.name}")


class Bitwise(OpDef):
    """Base of bitwise binary ops on bool/integer tensors; the output keeps the promoted dtype
    (logical for bool)."""

    inputs = ("x", "y")
    promote = True
    saves = ()

    def infer(self, x, y):
        _require_int(self.name, x, "x")
        _require_int(self.name, y, "y")
        return TensorSpec(broadcast_shapes(self.name, x.shape, y.shape),
                          _dt.promote_types(x.dtype, y.dtype))


@register
class BitwiseAnd(Bitwise):
    """out = x & y elementwise."""

    name = "bitwise_and"

    def compute(self, xp, x, y):
        return xp.bitwise_and(x, y)


@register
class BitwiseOr(Bitwise):
    """out = x | y elementwise."""

    name = "bitwise_or"

    def compute(self, xp, x, y):
        return xp.bitwise_or(x, y)


@register
class BitwiseXor(Bitwise):
    """out = x ^ y elementwise."""

    name = "bitwise_xor"

    def compute(self, xp, x, y):
        return xp.bitwise_xor(x, y)


@register
class BitwiseNot(OpDef):
    """out = ~x elementwise (logical not for bool)."""

    name = "bitwise_not"
    saves = ()

    def infer(self, x):
        _require_int(self.name, x, "x")
        return x

    def compute(self, xp, x):
        return xp.invert(x)


@register
class IsNan(UnaryBool):
    """out = x is NaN elementwise (always False for integer and bool tensors)."""

    name = "isnan"

    def onnx(self, b, node):
        x = node.inputs[0]
        if node.specs[0].dtype.kind not in "f":   # integers are never nan
            return b.op("Not", [b.op("Equal", [x, x])])
        return b.op("IsNaN", [x])

    def compute(self, xp, x):
        return xp.isnan(x) if x.dtype.kind in "fcV" else xp.zeros(x.shape, bool)


@register
class IsInf(UnaryBool):
    """out = x is +inf or -inf elementwise (always False for integer and bool tensors)."""

    name = "isinf"

    def onnx(self, b, node):
        x = node.inputs[0]
        if node.specs[0].dtype.kind not in "f":   # integers are never infinite
            return b.op("Not", [b.op("Equal", [x, x])])
        return b.op("IsInf", [x])

    def compute(self, xp, x):
        return xp.isinf(x) if x.dtype.kind in "fcV" else xp.zeros(x.shape, bool)


@register
class IsFinite(UnaryBool):
    """out = x is neither NaN nor infinite elementwise (always True for integers and bool)."""

    name = "isfinite"

    def onnx(self, b, node):
        x = node.inputs[0]
        if node.specs[0].dtype.kind not in "f":   # integers are always finite
            return b.op("Equal", [x, x])
        return b.op("Not", [b.op("Or", [b.op("IsNaN", [x]), b.op("IsInf", [x])])])

    def compute(self, xp, x):
        return xp.isfinite(x) if x.dtype.kind in "fcV" else xp.ones(x.shape, bool)


class Close(OpDef):
    """Base of isclose/allclose: |x - y| <= atol + rtol * |y|, NaNs equal iff equal_nan."""

    inputs = ("x", "y")
    attrs = {"rtol": 1e-05, "atol": 1e-08, "equal_nan": False}
    promote = True
    saves = ()

    def infer(self, x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
        if x.dtype.kind not in "fiub" or y.dtype.kind not in "fiub":
            raise TypeError(f"{self.name}: x and y must be real tensors, got {x.dtype.name} "
                            f"and {y.dtype.name}")
        return TensorSpec(broadcast_shapes(self.name, x.shape, y.shape), _dt.bool_)

    def close_onnx(self, b, node) -> str:
        """ONNX of the elementwise test (ints compare as float64, as numpy does)."""
        dt = np.result_type(*[np.dtype(s.dtype.name) for s in node.specs])
        dt = dt if dt.kind == "f" else np.dtype("float64")
        x, y = b.like(node.inputs, node.specs, dt)
        tol = b.op("Add", [b.scalar(node["atol"], dt),
                           b.op("Mul", [b.scalar(node["rtol"], dt), b.op("Abs", [y])])])
        out = b.op("Or", [b.op("LessOrEqual", [b.op("Abs", [b.op("Sub", [x, y])]), tol]),
                          b.op("Equal", [x, y])])
        if node["equal_nan"]:
            out = b.op("Or", [out, b.op("And", [b.op("IsNaN", [x]), b.op("IsNaN", [y])])])
        return out


@register
class IsClose(Close):
    """out[i] = x[i] and y[i] are close (see Close); broadcasting."""

    name = "isclose"

    def onnx(self, b, node):
        return self.close_onnx(b, node)

    def compute(self, xp, x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
        return xp.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


@register
class AllClose(Close):
    """out = every element pair of x and y is close (see Close); a 0-D bool tensor."""

    name = "allclose"
    check = True

    def onnx(self, b, node):   # ReduceMin over the int32 flags (empty: True)
        flags = b.cast(b.reshape(self.close_onnx(b, node), [-1]), "int32")
        return b.cast(b.op("ReduceMin", [flags], keepdims=0), "bool")

    def infer(self, x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
        return super().infer(x, y, rtol, atol, equal_nan).with_shape(())

    def compute(self, xp, x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
        return xp.asarray(xp.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


@register
class EqualAll(OpDef):
    """out = x and y have the same shape and equal elements; a 0-D bool tensor."""

    name = "equal_all"
    inputs = ("x", "y")
    promote = True
    saves = ()

    def onnx(self, b, node):   # the shapes must be known: unequal shapes give False
        sx, sy = (list(s.shape) for s in node.specs)
        if sx != sy:
            if -1 in sx + sy:
                raise b.Unsupported("equal_all of tensors with unknown dims")
            return b.const(np.asarray(False))
        x, y = b.like(node.inputs, node.specs, np.result_type(
            *[np.dtype(s.dtype.name) for s in node.specs]))
        flags = b.cast(b.reshape(b.op("Equal", [x, y]), [-1]), "int32")
        return b.cast(b.op("ReduceMin", [flags], keepdims=0), "bool")

    def infer(self, x, y):
        return TensorSpec((), _dt.bool_)

    def compute(self, xp, x, y):
        return xp.asarray(x.shape == y.shape and bool(xp.all(x == y)))


@register
class IsEmpty(OpDef):
    """out = x has no elements; a 0-D bool tensor."""

    name = "is_empty"
    saves = ()

    def onnx(self, b, node):
        return b.op("Equal", [b.op("Size", [node.inputs[0]]), b.scalar(0, "int64")])

    def infer(self, x):
        return TensorSpec((), _dt.bool_)

    def compute(self, xp, x):
        return xp.asarray(x.size == 0)

"""Public logic functions (paddle.equal, paddle.logical_and, paddle.isnan, ...) over dispatch.

Comparisons back the Python operators == != < <= > >=, bitwise ops back & | ^ ~.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, is_tensor_or_variable
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY
from ._helpers import binary, require_tensor

__all__ = ["equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
           "logical_and", "logical_or", "logical_xor", "logical_not", "bitwise_and",
           "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift",
           "bitwise_right_shift", "bitwise_invert", "isnan", "isinf", "isfinite",
           "isclose", "allclose", "equal_all", "is_tensor", "is_empty", "is_floating_point",
           "is_integer", "is_complex"]


def _store(result: Tensor, out) -> Tensor:
    """Paddle's `out=` argument: write the result into `out` and return it."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"out must be a Tensor or None, got {type(out).__name__}")
    return out._rebind(result)


def equal(x, y, name=None):
    """Elementwise x == y with broadcasting and dtype promotion.

    Args:
        x (Tensor): first operand.
        y (Tensor|scalar): second operand. None gives False (as `tensor == None` does).
    Returns:
        Tensor: bool, the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> paddle.equal(paddle.to_tensor([1, 2, 3]), paddle.to_tensor([1, 3, 3]))
        Tensor(shape=[3], dtype=bool, place=Place(cpu), stop_gradient=True,
               [True , False, True ])
    """
    if y is None:
        return False
    return binary(REGISTRY["equal"], x, y)


def not_equal(x, y, name=None):
    """Elementwise x != y with broadcasting; None gives True. Returns a bool Tensor."""
    if y is None:
        return True
    return binary(REGISTRY["not_equal"], x, y)


def less_than(x, y, name=None):
    """Elementwise x < y with broadcasting and dtype promotion. Returns a bool Tensor."""
    return binary(REGISTRY["less_than"], x, y)


def less_equal(x, y, name=None):
    """Elementwise x <= y with broadcasting and dtype promotion. Returns a bool Tensor."""
    return binary(REGISTRY["less_equal"], x, y)


def greater_than(x, y, name=None):
    """Elementwise x > y with broadcasting and dtype promotion. Returns a bool Tensor."""
    return binary(REGISTRY["greater_than"], x, y)


def greater_equal(x, y, name=None):
    """Elementwise x >= y with broadcasting and dtype promotion. Returns a bool Tensor."""
    return binary(REGISTRY["greater_equal"], x, y)


def logical_and(x, y, out=None, name=None):
    """Elementwise logical and (nonzero is True) with broadcasting.

    Args:
        x (Tensor): first operand, any dtype.
        y (Tensor): second operand, any dtype.
        out (Tensor, optional): tensor to store the result in.
    Returns:
        Tensor: bool, the broadcast shape of x and y.
    """
    return _store(binary(REGISTRY["logical_and"], x, y), out)


def logical_or(x, y, out=None, name=None):
    """Elementwise logical or (nonzero is True) with broadcasting. Returns a bool Tensor."""
    return _store(binary(REGISTRY["logical_or"], x, y), out)


def logical_xor(x, y, out=None, name=None):
    """Elementwise logical xor (nonzero is True) with broadcasting. Returns a bool Tensor."""
    return _store(binary(REGISTRY["logical_xor"], x, y), out)


def logical_not(x, out=None, name=None):
    """Elementwise logical not (nonzero is True). Returns a bool Tensor of x's shape."""
    return _store(dispatch(REGISTRY["logical_not"], (x,)), out)


def bitwise_and(x, y, out=None, name=None):
    """Elementwise x & y on bool/integer tensors with broadcasting and promotion.

    Args:
        x (Tensor): bool or integer tensor.
        y (Tensor|int|bool): bool or integer operand.
        out (Tensor, optional): tensor to store the result in.
    Returns:
        Tensor: the promoted dtype of x and y, their broadcast shape.
    """
    return _store(binary(REGISTRY["bitwise_and"], x, y), out)


def bitwise_or(x, y, out=None, name=None):
    """Elementwise x | y on bool/integer tensors with broadcasting and promotion."""
    return _store(binary(REGISTRY["bitwise_or"], x, y), out)


def bitwise_xor(x, y, out=None, name=None):
    """Elementwise x ^ y on bool/integer tensors with broadcasting and promotion."""
    return _store(binary(REGISTRY["bitwise_xor"], x, y), out)


def bitwise_not(x, out=None, name=None):
    """Elementwise ~x on a bool/integer tensor (logical not for bool)."""
    return _store(dispatch(REGISTRY["bitwise_not"], (x,)), out)


def bitwise_left_shift(x, y, is_arithmetic: bool = True, out=None, name=None):
    """Elementwise x << y on integer tensors, with broadcasting and promotion.

    Counts below 0 or at least the bit width give 0; the result wraps in the dtype's width
    (arithmetic and logical left shifts are the same).

    Args:
        x (Tensor): int8/int16/int32/int64/uint8 tensor.
        y (Tensor|int): shift counts.
        is_arithmetic (bool, optional): kept for symmetry with bitwise_right_shift.
            Default True.
        out (Tensor, optional): tensor to store the result in.

    Returns:
        Tensor: the promoted integer dtype of x and y, their broadcast shape.

    Examples:
        >>> import sampan as paddle
        >>> paddle.bitwise_left_shift(paddle.to_tensor([1, 2, 3]), paddle.to_tensor([1, 2, 3]))
        Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [2 , 8 , 24])
    """
    return _store(_shift("bitwise_left_shift", x, y, is_arithmetic), out)


def bitwise_right_shift(x, y, is_arithmetic: bool = True, out=None, name=None):
    """Elementwise x >> y on integer tensors, with broadcasting and promotion.

    Arithmetic shifts fill with the sign bit; logical shifts (``is_arithmetic=False``) read
    the bits of x as unsigned and fill with zeros. Counts below 0 or at least the bit width
    give the fill value everywhere.

    Args:
        x (Tensor): int8/int16/int32/int64/uint8 tensor.
        y (Tensor|int): shift counts.
        is_arithmetic (bool, optional): sign-filling (True) or zero-filling shift. Default True.
        out (Tensor, optional): tensor to store the result in.

    Returns:
        Tensor: the promoted integer dtype of x and y, their broadcast shape.

    Examples:
        >>> import sampan as paddle
        >>> x, y = paddle.to_tensor([-8, 8]), paddle.to_tensor([1, 2])
        >>> paddle.bitwise_right_shift(x, y)
        Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [-4,  2])
        >>> paddle.bitwise_right_shift(x, y, is_arithmetic=False)
        Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [9223372036854775804, 2                  ])
    """
    return _store(_shift("bitwise_right_shift", x, y, is_arithmetic), out)


def _shift(op: str, x, y, is_arithmetic) -> Tensor:
    if not isinstance(is_arithmetic, (bool, np.bool_)):
        raise TypeError(f"paddle.{op}: is_arithmetic must be a bool, got {is_arithmetic!r}")
    if x.__class__ is not Tensor and isinstance(x, (int, np.integer)) and is_tensor_or_variable(y):
        x = np.asarray(x, dtype=y.dtype.np)
    if y.__class__ is not Tensor and isinstance(y, (int, np.integer)):
        y = np.asarray(y, dtype=x.dtype.np)
    return dispatch(REGISTRY[op], (x, y), {"is_arithmetic": bool(is_arithmetic)})


def bitwise_invert(x, out=None, name=None):
    """Elementwise ~x on a bool/integer tensor (Paddle 3 name of `bitwise_not`)."""
    return bitwise_not(x, out)


def isnan(x, name=None):
    """Elementwise test for NaN. Returns a bool Tensor of x's shape."""
    require_tensor("isnan", "x", x)
    return dispatch(REGISTRY["isnan"], (x,))


def isinf(x, name=None):
    """Elementwise test for +inf/-inf. Returns a bool Tensor of x's shape."""
    require_tensor("isinf", "x", x)
    return dispatch(REGISTRY["isinf"], (x,))


def isfinite(x, name=None):
    """Elementwise test for finite values (not NaN, not inf). Returns a bool Tensor."""
    require_tensor("isfinite", "x", x)
    return dispatch(REGISTRY["isfinite"], (x,))


def _tolerances(api: str, rtol, atol, equal_nan) -> dict:
    for arg, value in (("rtol", rtol), ("atol", atol)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"{api}: {arg} must be a float, got {type(value).__name__}")
    if not isinstance(equal_nan, bool):
        raise TypeError(f"{api}: equal_nan must be a bool, got {type(equal_nan).__name__}")
    return {"rtol": float(rtol), "atol": float(atol), "equal_nan": equal_nan}


def isclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Elementwise |x - y| <= atol + rtol * |y|, with broadcasting.

    Args:
        x (Tensor): first operand (float).
        y (Tensor): second operand (float).
        rtol (float): relative tolerance. Default 1e-05.
        atol (float): absolute tolerance. Default 1e-08.
        equal_nan (bool): whether two NaNs compare close. Default False.
    Returns:
        Tensor: bool, the broadcast shape of x and y.
    """
    return dispatch(REGISTRY["isclose"], (x, y), _tolerances("isclose", rtol, atol, equal_nan))


def allclose(x, y, rtol=1e-05, atol=1e-08, equal_nan=False, name=None):
    """Whether every element of x is close to y (see `isclose`).

    Returns:
        Tensor: 0-D bool.
    """
    return dispatch(REGISTRY["allclose"], (x, y),
                    _tolerances("allclose", rtol, atol, equal_nan))


def equal_all(x, y, name=None):
    """Whether x and y have the same shape and equal elements. Returns a 0-D bool Tensor."""
    return dispatch(REGISTRY["equal_all"], (x, y))


def is_tensor(x) -> bool:
    """Whether x is a paddle.Tensor (a Python bool); a static tensor array counts too (a
    tensor-array Value in Paddle), a dynamic one (a list) does not."""
    return is_tensor_or_variable(x) or getattr(x, "_is_tensor_array", False) is True


def is_empty(x, name=None):
    """Whether x has no elements. Returns a 0-D bool Tensor."""
    return dispatch(REGISTRY["is_empty"], (x,))


def _dtype_kind(api: str, x) -> str:
    if not is_tensor(x):
        raise TypeError(f"{api}: x must be a Tensor, got {type(x).__name__}")
    return x.dtype.kind


def is_floating_point(x) -> bool:
    """Whether x's dtype is a floating point type (a Python bool)."""
    return _dtype_kind("is_floating_point", x) == "f"


def is_integer(x) -> bool:
    """Whether x's dtype is an integer type, bool excluded (a Python bool)."""
    return _dtype_kind("is_integer", x) in "iu"


def is_complex(x) -> bool:
    """Whether x's dtype is a complex type (a Python bool)."""
    return _dtype_kind("is_complex", x) == "c"

"""Shared helpers for public tensor functions: scalar operands, in-place variants.

Imports `framework` and `ops`.
"""
from __future__ import annotations

import inspect

import numpy as np

from ..framework import dtype as _dt
from ..framework.flags import STATE
from ..framework.tensor import Tensor, is_tensor_or_variable, is_variable
from ..ops.dispatch import dispatch
from ..ops.opdef import broadcast_shapes

_PY_SCALARS = (int, float, bool, complex, np.number, np.bool_)


def scalar_array(x, value) -> np.ndarray:
    """A Python scalar operand as a 0-D array, typed as Paddle does for `tensor op scalar`.

    The tensor's dtype wins, except: a float scalar with an integer/bool tensor gives the
    default float; an int scalar with a bool tensor gives int64; complex gives complex.
    """
    kind = x._data.dtype.kind if isinstance(x, Tensor) else x.dtype.kind
    npd = x._data.dtype if isinstance(x, Tensor) else x.dtype.np
    if isinstance(value, (bool, np.bool_)):
        pass
    elif isinstance(value, (int, np.integer)):
        if kind == "b":
            npd = np.dtype(np.int64)
    elif isinstance(value, (float, np.floating)):
        if kind in "biu":
            npd = _dt.default_float().np
    elif isinstance(value, (complex, np.complexfloating)):
        if kind != "c":
            npd = np.dtype(np.complex128 if npd == np.float64 else np.complex64)
    return np.asarray(value, dtype=npd)


def operand(x, value):
    """Turn the other operand of a binary op into something dispatch accepts."""
    if isinstance(value, _PY_SCALARS):
        return scalar_array(x, value)
    return value


def binary(op, x, y):
    """Dispatch a binary op where either side may be a Python scalar."""
    if x.__class__ is not Tensor and isinstance(x, _PY_SCALARS) and (
            hasattr(y, "_data") or is_variable(y)):
        x = scalar_array(y, x)
    if y.__class__ is not Tensor and isinstance(y, _PY_SCALARS):
        y = scalar_array(x, y)
    return dispatch(op, (x, y))

is_tensor = is_tensor_or_variable  # the name tensor/extra.py imports


def known_value(api: str, arg: str, value):
    """An attribute-like argument given as a Tensor (its values) or as a static Variable whose
    value is fixed when the Program is built (`paddle.full(...)`), as a NumPy array; other
    values pass through. A Variable known only at run time is refused with a TypeError."""
    if isinstance(value, Tensor):
        return value.numpy()
    if is_variable(value):
        known = value._build_value()
        if known is None:
            raise TypeError(f"{api}: {arg} given as a Variable must have a value fixed when "
                            f"the Program is built (e.g. paddle.full); '{value.name}' is "
                            f"computed at run time")
        return known
    return value


class NotTensorError(TypeError, ValueError):
    """An argument that must be a Tensor is not (Paddle raises ValueError for some APIs,
    TypeError for others; this is both)."""


def require_tensor(api: str, arg: str, x) -> None:
    """x must be a Tensor or a static Variable (NumPy arrays are refused, as in Paddle)."""
    if not is_tensor_or_variable(x):
        raise NotTensorError(f"{api}: {arg} must be a Tensor, got {type(x).__name__}")


_FLOATS = ("float16", "bfloat16", "float32", "float64")


def static_float_only(api: str, x, arg: str = "x") -> None:
    """Paddle's static-graph dtype check for APIs whose eager form also takes integers
    (std, var, nanmean, inner): a Variable must be floating point while a Program is built."""
    if is_variable(x) and x.dtype.name not in _FLOATS:
        raise TypeError(f"{api}: the data type of '{arg}' must be one of {list(_FLOATS)} in "
                        f"static graph mode, but received {x.dtype.name}")


def check_inplace(x, api: str) -> None:
    """Paddle refuses in-place ops on leaf tensors that require grad (outside no_grad)."""
    if is_variable(x):  # static: the Variable rebinds itself (SSA)
        return
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}: x must be a Tensor, got {type(x).__name__}")
    if STATE.grad_enabled and not x.stop_gradient and x._node is None:
        raise ValueError(f"{api}: leaf Tensor ({x.name}) that doesn't stop gradient can't "
                         f"use an in-place operation; wrap it in paddle.no_grad() or use "
                         f"the out-of-place form")


def _first_param(fn) -> str:
    """The name of fn's first parameter (the tensor an in-place form updates)."""
    try:
        return next(iter(inspect.signature(fn).parameters))
    except (TypeError, ValueError, StopIteration):
        return "x"


# Elementwise binary in-place forms: x must already have the broadcast shape of x and y,
# checked (as Paddle does) before the op's own checks such as an integer-only dtype.
_BROADCAST_FIRST = frozenset(
    f"{n}_" for n in ("add", "subtract", "multiply", "divide", "floor_divide", "remainder",
                      "mod", "floor_mod", "pow", "bitwise_and", "bitwise_or", "bitwise_xor",
                      "bitwise_left_shift", "bitwise_right_shift", "logical_and", "logical_or",
                      "logical_xor", "equal", "not_equal", "less_than", "less_equal",
                      "greater_than", "greater_equal", "gcd", "lcm", "hypot", "ldexp",
                      "copysign"))


def _check_broadcast_keeps_x(api: str, x, args: tuple) -> None:
    y = args[0] if args else None
    if not isinstance(x, Tensor) or not isinstance(y, Tensor):
        return
    out = broadcast_shapes(api, tuple(x.shape), tuple(y.shape))
    if list(out) != list(x.shape):
        raise ValueError(f"{api}: the broadcast shape {list(out)} of x {list(x.shape)} and y "
                         f"{list(y.shape)} differs from x's shape; an in-place op cannot "
                         f"change the shape of x")


def make_inplace(fn, api: str):
    """Build `api` (e.g. `add_`) from the out-of-place `fn`: compute, then rebind x."""
    first = _first_param(fn)

    def inplace(*args, **kwargs):
        if args:
            x, args = args[0], args[1:]
        elif first in kwargs:   # the tensor updated may be given by name (addmm_(input=...))
            x = kwargs.pop(first)
        else:
            raise TypeError(f"{api}: missing the tensor to update ('{first}')")
        check_inplace(x, api)
        if api in _BROADCAST_FIRST:
            _check_broadcast_keeps_x(api, x, args)
        result = fn(x._alias(), *args, **kwargs)
        if list(result.shape) != list(x.shape) and not getattr(fn, "_reshapes", False):
            raise ValueError(f"{api}: the result shape {list(result.shape)} differs from x's shape "
                             f"{list(x.shape)}; an in-place op cannot change the shape of x")
        # x takes the result's dtype, as in Paddle 3.3.1: comparisons make it bool, an
        # integer divide_/exp_ makes it float, float32 x with a float64 y makes it float64.
        return x._rebind(result)
    inplace.__name__ = api
    inplace.__doc__ = f"In-place version of `{fn.__name__}`: updates x and returns it."
    return inplace

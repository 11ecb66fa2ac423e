"""Public elementwise binary math functions (paddle.add, paddle.maximum, paddle.gcd, ...).

Each is one line over the op of the same name (sampan/ops/math*.py); `binary` turns Python
scalars into operands typed as Paddle does. `mod` and `floor_mod` are `remainder`.
Imports `ops` and the tensor helpers.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, is_variable
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY
from ._helpers import binary

__all__ = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "pow", "maximum",
           "minimum", "fmax", "fmin", "atan2", "heaviside", "logaddexp", "gcd", "lcm", "hypot",
           "nextafter", "copysign", "mod", "floor_mod"]


def add(x: Tensor | float, y: Tensor | float, name: str | None = None, *,
        alpha: float = 1) -> Tensor:
    """Adds x and y elementwise: out = x + alpha * y, with broadcasting.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.
        alpha (int|float, optional): scale on y (Paddle 3.x). Default 1.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> y = paddle.to_tensor([4.0, 5.0, 6.0])
        >>> paddle.add(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [5., 7., 9.])
    """
    return binary(REGISTRY["add"], x, _scaled("add", y, alpha))


def subtract(x: Tensor | float, y: Tensor | float, name: str | None = None, *,
             alpha: float = 1) -> Tensor:
    """Subtracts y from x elementwise: out = x - alpha * y, with broadcasting.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.
        alpha (int|float, optional): scale on y (Paddle 3.x). Default 1.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([5.0, 7.0, 9.0])
        >>> y = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> paddle.subtract(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [4., 5., 6.])
    """
    return binary(REGISTRY["subtract"], x, _scaled("subtract", y, alpha))


def _scaled(api: str, y, alpha):
    """alpha * y (y itself for alpha 1); alpha must be a real Python/NumPy number."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise TypeError(f"{api}: alpha must be an int or float, got {type(alpha).__name__}")
    if alpha == 1:
        return y
    if not hasattr(y, "dtype") and not is_variable(y):
        return alpha * y
    return binary(REGISTRY["multiply"], y, alpha)


def multiply(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Multiplies x and y elementwise: out = x * y, with broadcasting (logical and for
    bool tensors).

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> y = paddle.to_tensor([2.0, 2.0, 2.0])
        >>> paddle.multiply(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [2., 4., 6.])
    """
    return binary(REGISTRY["multiply"], x, y)


def divide(x: Tensor | float, y: Tensor | float, name: str | None = None, *,
           rounding_mode: str | None = None) -> Tensor:
    """Divides x by y elementwise (true division): out = x / y, with broadcasting;
    integer inputs give the default float dtype.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.
        rounding_mode (str, optional): None (true division), 'trunc' (rounds toward zero)
            or 'floor' (toward -inf); with both operands integer these keep the integer
            dtype (Paddle 3.x).

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1, 2, 3])
        >>> y = paddle.to_tensor([2, 4, 5])
        >>> paddle.divide(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.50000000, 0.50000000, 0.60000002])
    """
    if rounding_mode is None:
        return binary(REGISTRY["divide"], x, y)
    if rounding_mode not in ("trunc", "floor"):
        raise ValueError("divide: expected rounding_mode to be one of None, 'trunc', or "
                         f"'floor' but found {rounding_mode!r}")
    if _int_kind(x) and _int_kind(y):
        if rounding_mode == "floor":
            return binary(REGISTRY["floor_divide"], x, y)
        q = binary(REGISTRY["floor_divide"], dispatch(REGISTRY["abs"], (x,)),
                   dispatch(REGISTRY["abs"], (y,)))
        sign = binary(REGISTRY["multiply"], dispatch(REGISTRY["sign"], (x,)),
                      dispatch(REGISTRY["sign"], (y,)))
        return binary(REGISTRY["multiply"], q, sign)
    q = binary(REGISTRY["divide"], x, y)
    return dispatch(REGISTRY["trunc" if rounding_mode == "trunc" else "floor"], (q,))


def _int_kind(v) -> bool:
    return getattr(getattr(v, "dtype", None), "kind", "f") in "iub"


def floor_divide(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Floor division elementwise: out = floor(x / y), rounding toward -inf for
    integers as Python's // does.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([7, -7, 9])
        >>> y = paddle.to_tensor([2, 2, -4])
        >>> paddle.floor_divide(x, y)
        Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [ 3, -4, -3])
    """
    return binary(REGISTRY["floor_divide"], x, y)


def remainder(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise remainder out = x - floor(x / y) * y: the result has the sign of y
    (Python's %). `mod` and `floor_mod` are the same function.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([7.0, -7.0, 5.5])
        >>> y = paddle.to_tensor([3.0, 3.0, -2.0])
        >>> paddle.remainder(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 1.        ,  2.        , -0.50000000])
    """
    return binary(REGISTRY["remainder"], x, y)


_POW_STATIC_REFUSED = ("int8", "int16", "uint8", "bool")


def pow(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Raises x to the power y elementwise: out = x ** y, with broadcasting; y may be a
    Python number. integer ** integer stays integer.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> paddle.pow(x, 2.0)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 4., 9.])
    """
    if not isinstance(y, (int, float, Tensor)) and not is_variable(y):   # as Paddle
        raise TypeError(f"pow: y must be a Python int/float or a Tensor, got "
                        f"{type(y).__name__}")
    if is_variable(x) and x.dtype.name in _POW_STATIC_REFUSED:
        # NOTE: Paddle's pow has no int8/int16/uint8/bool kernel; its static check is this
        # TypeError (eager Paddle fails in the kernel lookup; sampan computes those eagerly)
        raise TypeError(f"pow: x must be bfloat16, float16, float32, float64, int32, int64, "
                        f"complex64 or complex128 in static graph mode, got {x.dtype.name}")
    return binary(REGISTRY["pow"], x, y)


def maximum(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise maximum of x and y, with broadcasting; NaN in either input propagates.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 5.0, 3.0])
        >>> y = paddle.to_tensor([4.0, 2.0, 6.0])
        >>> paddle.maximum(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [4., 5., 6.])
    """
    return binary(REGISTRY["maximum"], x, y)


def minimum(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise minimum of x and y, with broadcasting; NaN in either input propagates.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 5.0, 3.0])
        >>> y = paddle.to_tensor([4.0, 2.0, 6.0])
        >>> paddle.minimum(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 2., 3.])
    """
    return binary(REGISTRY["minimum"], x, y)


def fmax(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise maximum of x and y ignoring NaN: where one input is NaN the other
    is returned.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, float('nan'), 3.0])
        >>> y = paddle.to_tensor([4.0, 2.0, float('nan')])
        >>> paddle.fmax(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [4., 2., 3.])
    """
    return binary(REGISTRY["fmax"], x, y)


def fmin(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise minimum of x and y ignoring NaN: where one input is NaN the other
    is returned.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, float('nan'), 3.0])
        >>> y = paddle.to_tensor([4.0, 2.0, float('nan')])
        >>> paddle.fmin(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 2., 3.])
    """
    return binary(REGISTRY["fmin"], x, y)


def atan2(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise arctangent of x / y in radians, the angle of the point (y, x) in
    [-pi, pi]; integer inputs give float64.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 1.0, -1.0])
        >>> y = paddle.to_tensor([1.0, -1.0, -1.0])
        >>> paddle.atan2(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.78539813,  2.35619450, -2.35619450])
    """
    return binary(REGISTRY["atan2"], x, y)


def heaviside(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Heaviside step function: 0 where x < 0, y where x == 0 and 1 where x > 0.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.0, 0.0, 2.0])
        >>> y = paddle.to_tensor([0.5, 0.5, 0.5])
        >>> paddle.heaviside(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.50000000, 1.        ])
    """
    return binary(REGISTRY["heaviside"], x, y)


def logaddexp(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise log(exp(x) + exp(y)), computed without overflow.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1.0, 100.0])
        >>> y = paddle.to_tensor([0.0, 2.0, 100.0])
        >>> paddle.logaddexp(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.69314718  , 2.31326175  , 100.69314575])
    """
    return binary(REGISTRY["logaddexp"], x, y)


def gcd(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise greatest common divisor of integer tensors (gcd(0, 0) = 0).

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([12, 20, 0])
        >>> y = paddle.to_tensor([18, 15, 0])
        >>> paddle.gcd(x, y)
        Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [6, 5, 0])
    """
    return binary(REGISTRY["gcd"], x, y)


def lcm(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise least common multiple of integer tensors (lcm with 0 is 0).

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([4, 6, 0])
        >>> y = paddle.to_tensor([6, 10, 5])
        >>> paddle.lcm(x, y)
        Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [12, 30, 0 ])
    """
    return binary(REGISTRY["lcm"], x, y)


def hypot(x: Tensor, y: Tensor, name: str | None = None) -> Tensor:
    """Elementwise hypotenuse sqrt(x ** 2 + y ** 2), without intermediate overflow.

    Args:
        x (Tensor): the first operand (a Python number is a TypeError, as in Paddle).
        y (Tensor): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([3.0, 5.0])
        >>> y = paddle.to_tensor([4.0, 12.0])
        >>> paddle.hypot(x, y)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [5. , 13.])
    """
    for arg, v in (("x", x), ("y", y)):   # Paddle 3.3.1: both must be Tensors
        if not isinstance(v, Tensor) and not is_variable(v):
            raise TypeError(f"hypot: {arg} must be a Tensor, got {type(v).__name__}")
    return binary(REGISTRY["hypot"], x, y)


def nextafter(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """The next representable floating-point value after x in the direction of y.

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 1.0], dtype='float64')
        >>> y = paddle.to_tensor([2.0, 0.0], dtype='float64')
        >>> (paddle.nextafter(x, y) - x).numpy()
        array([ 2.22044605e-16, -1.11022302e-16])
    """
    return binary(REGISTRY["nextafter"], x, y)


def copysign(x: Tensor | float, y: Tensor | float, name: str | None = None) -> Tensor:
    """Elementwise |x| with the sign of y (the sign bit: -0.0 counts as negative).

    Args:
        x (Tensor|scalar): the first operand.
        y (Tensor|scalar): the second operand, broadcast against x.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, in the broadcast shape of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, -2.0, 3.0])
        >>> y = paddle.to_tensor([-1.0, 1.0, -0.0])
        >>> paddle.copysign(x, y)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.,  2., -3.])
    """
    return binary(REGISTRY["copysign"], x, y)


mod = floor_mod = remainder

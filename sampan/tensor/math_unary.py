"""Public elementwise unary math functions: exponentials and logarithms, roots, signs,
rounding and complex parts (paddle.exp, paddle.sqrt, paddle.floor, paddle.real, ...).

Each is one line over the op of the same name (sampan/ops/math*.py). Imports `ops`.
"""
from __future__ import annotations

from ..framework.tensor import Tensor
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY
from ._helpers import require_tensor

__all__ = ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "rsqrt", "square", "abs",
           "sign", "sgn", "neg", "reciprocal", "floor", "ceil", "trunc", "frac", "real", "imag",
           "conj", "angle", "frexp"]


def exp(x: Tensor, name: str | None = None) -> Tensor:
    """Computes e ** x elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1.0, 2.0])
        >>> paddle.exp(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 2.71828198, 7.38905573])
    """
    return dispatch(REGISTRY["exp"], (x,))


def expm1(x: Tensor, name: str | None = None) -> Tensor:
    """Computes e ** x - 1 elementwise, accurately near 0.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1e-05, 1.0])
        >>> paddle.expm1(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.00001000, 1.71828187])
    """
    return dispatch(REGISTRY["expm1"], (x,))


def log(x: Tensor, name: str | None = None) -> Tensor:
    """Natural logarithm elementwise; log(0) = -inf and log(x < 0) = nan.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.7182817, 10.0])
        >>> paddle.log(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 1.        , 2.30258512])
    """
    return dispatch(REGISTRY["log"], (x,))


def log1p(x: Tensor, name: str | None = None) -> Tensor:
    """Computes log(1 + x) elementwise, accurately near 0.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1e-05, 1.0])
        >>> paddle.log1p(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.00001000, 0.69314718])
    """
    return dispatch(REGISTRY["log1p"], (x,))


def log2(x: Tensor, name: str | None = None) -> Tensor:
    """Base-2 logarithm elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 8.0])
        >>> paddle.log2(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 1., 3.])
    """
    return dispatch(REGISTRY["log2"], (x,))


def log10(x: Tensor, name: str | None = None) -> Tensor:
    """Base-10 logarithm elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 10.0, 1000.0])
        >>> paddle.log10(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 1.        , 3.00000024])
    """
    return dispatch(REGISTRY["log10"], (x,))


def sqrt(x: Tensor, name: str | None = None) -> Tensor:
    """Square root elementwise; sqrt(x < 0) = nan.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 4.0, 9.0])
        >>> paddle.sqrt(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0., 2., 3.])
    """
    return dispatch(REGISTRY["sqrt"], (x,))


def rsqrt(x: Tensor, name: str | None = None) -> Tensor:
    """Reciprocal of the square root elementwise: 1 / sqrt(x).

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 4.0, 16.0])
        >>> paddle.rsqrt(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 0.50000000, 0.25000000])
    """
    return dispatch(REGISTRY["rsqrt"], (x,))


def square(x: Tensor, name: str | None = None) -> Tensor:
    """Square elementwise: x * x; integer dtypes are kept.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-2, 3, 4])
        >>> paddle.square(x)
        Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [4 , 9 , 16])
    """
    return dispatch(REGISTRY["square"], (x,))


def abs(x: Tensor, name: str | None = None) -> Tensor:
    """Absolute value elementwise; integer dtypes are kept and complex inputs give the
    matching real dtype.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.5, 0.0, 2.0])
        >>> paddle.abs(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.50000000, 0.        , 2.        ])
    """
    return dispatch(REGISTRY["abs"], (x,))


def sign(x: Tensor, name: str | None = None) -> Tensor:
    """Sign of x elementwise: -1, 0 or 1 (nan stays nan), in x's dtype.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-3.0, 0.0, 2.0])
        >>> paddle.sign(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.,  0.,  1.])
    """
    require_tensor("sign", "x", x)
    return dispatch(REGISTRY["sign"], (x,))


def sgn(x: Tensor, name: str | None = None) -> Tensor:
    """sign(x) for real x; x / |x| (0 at 0) for complex x.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([3 + 4j, 0j, -2j])
        >>> paddle.sgn(x)
        Tensor(shape=[3], dtype=complex64, place=Place(cpu), stop_gradient=True,
               [ (0.60000002+0.80000001j),  (0.00000000+0.00000000j),
                (-0.00000000-1.00000000j)])
    """
    if x.dtype.kind not in "fc":  # Paddle: float16/32/64, complex64/128 only
        raise TypeError(f"sgn: x must be a floating point or complex tensor, got "
                        f"{x.dtype.name}")
    return dispatch(REGISTRY["sgn"], (x,))


def neg(x: Tensor, name: str | None = None) -> Tensor:
    """Negates x elementwise: out = -x.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, -2.0, 0.0])
        >>> paddle.neg(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.,  2., -0.])
    """
    return dispatch(REGISTRY["neg"], (x,))


def reciprocal(x: Tensor, name: str | None = None) -> Tensor:
    """Reciprocal elementwise: 1 / x; integer inputs give the default float.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 4.0])
        >>> paddle.reciprocal(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 0.50000000, 0.25000000])
    """
    return dispatch(REGISTRY["reciprocal"], (x,))


def floor(x: Tensor, name: str | None = None) -> Tensor:
    """Largest integer <= x, elementwise. Its gradient is 0.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.5, 0.5, 2.0])
        >>> paddle.floor(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-2.,  0.,  2.])
    """
    return dispatch(REGISTRY["floor"], (x,))


def ceil(x: Tensor, name: str | None = None) -> Tensor:
    """Smallest integer >= x, elementwise. Its gradient is 0.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.5, 0.5, 2.0])
        >>> paddle.ceil(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.,  1.,  2.])
    """
    return dispatch(REGISTRY["ceil"], (x,))


def trunc(input: Tensor, name: str | None = None) -> Tensor:
    """input rounded toward zero, elementwise. Its gradient is 0.

    Args:
        input (Tensor): the input (Paddle 3.x name of 2.x `x`).
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.5, 0.5, 2.7])
        >>> paddle.trunc(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.,  0.,  2.])
    """
    return dispatch(REGISTRY["trunc"], (input,))


def frac(x: Tensor, name: str | None = None) -> Tensor:
    """Fractional part x - trunc(x) elementwise (it has the sign of x); 0 for integer
    dtypes.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.5, 0.25, 2.0])
        >>> paddle.frac(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.50000000,  0.25000000,  0.        ])
    """
    name_ = x.dtype.name
    if name_ not in ("int32", "int64") and x.dtype.kind not in "f":
        raise TypeError(f"frac: x must be an int32, int64 or floating point tensor, got "
                        f"{name_}")
    return dispatch(REGISTRY["frac"], (x,))


def real(x: Tensor, name: str | None = None) -> Tensor:
    """Real part of a complex tensor (a real tensor is returned unchanged).

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1 + 2j, 3 - 4j])
        >>> paddle.real(x)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 3.])
    """
    return dispatch(REGISTRY["real"], (x,))


def imag(x: Tensor, name: str | None = None) -> Tensor:
    """Imaginary part of a complex tensor (zeros for a real tensor).

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1 + 2j, 3 - 4j])
        >>> paddle.imag(x)
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 2., -4.])
    """
    return dispatch(REGISTRY["imag"], (x,))


def conj(x: Tensor, name: str | None = None) -> Tensor:
    """Complex conjugate elementwise; real tensors are returned unchanged.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1 + 2j, 3 - 4j])
        >>> paddle.conj(x)
        Tensor(shape=[2], dtype=complex64, place=Place(cpu), stop_gradient=True,
               [(1.00000000-2.00000000j), (3.00000000+4.00000000j)])
    """
    return dispatch(REGISTRY["conj"], (x,))


def angle(x: Tensor, name: str | None = None) -> Tensor:
    """Argument of a complex number in radians; for real x, pi where x < 0 and 0
    elsewhere.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1 + 1j, -1 + 0j, -2j])
        >>> paddle.angle(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.78539813,  3.14159274, -1.57079637])
    """
    return dispatch(REGISTRY["angle"], (x,))


def frexp(x: Tensor, name: str | None = None) -> tuple:
    """Splits x into a mantissa in [0.5, 1) (with x's sign) and an exponent such that
    x = mantissa * 2 ** exponent.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        tuple(Tensor, Tensor): the mantissa (x's dtype) and the exponent, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 8.0, -3.0])
        >>> mantissa, exponent = paddle.frexp(x)
        >>> mantissa
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.50000000,  0.50000000, -0.75000000])
        >>> exponent
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 4., 2.])
    """
    return dispatch(REGISTRY["frexp"], (x,))

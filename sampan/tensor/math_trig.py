"""Public elementwise trigonometric, hyperbolic and special functions (paddle.sin,
paddle.tanh, paddle.sigmoid, paddle.erf, paddle.i0, ...).

Each is one line over the op of the same name (sampan/ops/math*.py). Imports `ops`.
"""
from __future__ import annotations

from ..framework.tensor import Tensor
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY

__all__ = ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh",
           "atanh", "sigmoid", "erf", "erfinv", "lgamma", "digamma", "deg2rad", "rad2deg", "i0",
           "i0e", "i1", "i1e"]


def sin(x: Tensor, name: str | None = None) -> Tensor:
    """Sine elementwise (x in radians).

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1.5707964, 3.1415927])
        >>> paddle.sin(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.        ,  1.        , -0.00000009])
    """
    return dispatch(REGISTRY["sin"], (x,))


def cos(x: Tensor, name: str | None = None) -> Tensor:
    """Cosine elementwise (x in radians).

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1.5707964, 3.1415927])
        >>> paddle.cos(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 1.        , -0.00000004, -1.        ])
    """
    return dispatch(REGISTRY["cos"], (x,))


def tan(x: Tensor, name: str | None = None) -> Tensor:
    """Tangent elementwise (x in radians).

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 0.7853982, -0.7853982])
        >>> paddle.tan(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [ 0.,  1., -1.])
    """
    return dispatch(REGISTRY["tan"], (x,))


def asin(x: Tensor, name: str | None = None) -> Tensor:
    """Arcsine elementwise, in radians; nan outside [-1, 1].

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.0, 0.0, 0.5])
        >>> paddle.asin(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.57079637,  0.        ,  0.52359879])
    """
    return dispatch(REGISTRY["asin"], (x,))


def acos(x: Tensor, name: str | None = None) -> Tensor:
    """Arccosine elementwise, in radians; nan outside [-1, 1].

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.0, 0.0, 0.5])
        >>> paddle.acos(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [3.14159274, 1.57079637, 1.04719758])
    """
    return dispatch(REGISTRY["acos"], (x,))


def atan(x: Tensor, name: str | None = None) -> Tensor:
    """Arctangent elementwise, in radians.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.0, 0.0, 1.0])
        >>> paddle.atan(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.78539819,  0.        ,  0.78539819])
    """
    return dispatch(REGISTRY["atan"], (x,))


def sinh(x: Tensor, name: str | None = None) -> Tensor:
    """Hyperbolic sine elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.0, 0.0, 1.0])
        >>> paddle.sinh(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.17520118,  0.        ,  1.17520118])
    """
    return dispatch(REGISTRY["sinh"], (x,))


def cosh(x: Tensor, name: str | None = None) -> Tensor:
    """Hyperbolic cosine elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.0, 0.0, 1.0])
        >>> paddle.cosh(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.54308069, 1.        , 1.54308069])
    """
    return dispatch(REGISTRY["cosh"], (x,))


def tanh(x: Tensor, name: str | None = None) -> Tensor:
    """Hyperbolic tangent elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.0, 0.0, 1.0])
        >>> paddle.tanh(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.76159418,  0.        ,  0.76159418])
    """
    return dispatch(REGISTRY["tanh"], (x,))


def asinh(x: Tensor, name: str | None = None) -> Tensor:
    """Inverse hyperbolic sine elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.0, 0.0, 1.0])
        >>> paddle.asinh(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.88137358,  0.        ,  0.88137358])
    """
    return dispatch(REGISTRY["asinh"], (x,))


def acosh(x: Tensor, name: str | None = None) -> Tensor:
    """Inverse hyperbolic cosine elementwise; nan for x < 1.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> paddle.acosh(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 1.31695795, 1.76274717])
    """
    return dispatch(REGISTRY["acosh"], (x,))


def atanh(x: Tensor, name: str | None = None) -> Tensor:
    """Inverse hyperbolic tangent elementwise; +-inf at +-1, nan outside [-1, 1].

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-0.5, 0.0, 0.5])
        >>> paddle.atanh(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.54930615,  0.        ,  0.54930615])
    """
    return dispatch(REGISTRY["atanh"], (x,))


def sigmoid(x: Tensor, name: str | None = None) -> Tensor:
    """Logistic sigmoid elementwise: 1 / (1 + e ** -x).

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-2.0, 0.0, 2.0])
        >>> paddle.sigmoid(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.11920293, 0.50000000, 0.88079703])
    """
    return dispatch(REGISTRY["sigmoid"], (x,))


def erf(x: Tensor, name: str | None = None) -> Tensor:
    """Gauss error function elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-1.0, 0.0, 1.0])
        >>> paddle.erf(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.84270078,  0.        ,  0.84270078])
    """
    return dispatch(REGISTRY["erf"], (x,))


def erfinv(x: Tensor, name: str | None = None) -> Tensor:
    """Inverse error function elementwise; +-inf at +-1, nan outside [-1, 1].

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([-0.5, 0.0, 0.5])
        >>> paddle.erfinv(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-0.47693628,  0.        ,  0.47693628])
    """
    return dispatch(REGISTRY["erfinv"], (x,))


def lgamma(x: Tensor, name: str | None = None) -> Tensor:
    """Natural logarithm of the absolute value of the Gamma function, elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.5, 1.0, 4.0])
        >>> paddle.lgamma(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.57236493, 0.        , 1.79175949])
    """
    return dispatch(REGISTRY["lgamma"], (x,))


def digamma(x: Tensor, name: str | None = None) -> Tensor:
    """Digamma function psi(x) = d/dx log Gamma(x), elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.5, 1.0, 4.0])
        >>> paddle.digamma(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [-1.96351004, -0.57721567,  1.25611770])
    """
    return dispatch(REGISTRY["digamma"], (x,))


def deg2rad(x: Tensor, name: str | None = None) -> Tensor:
    """Converts angles from degrees to radians; integer inputs give the default float.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 90.0, 180.0])
        >>> paddle.deg2rad(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 1.57079637, 3.14159274])
    """
    return dispatch(REGISTRY["deg2rad"], (x,))


def rad2deg(x: Tensor, name: str | None = None) -> Tensor:
    """Converts angles from radians to degrees; integer inputs give the default float.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1.5707964, 3.1415927])
        >>> paddle.rad2deg(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.  , 90. , 180.])
    """
    return dispatch(REGISTRY["rad2deg"], (x,))


def i0(x: Tensor, name: str | None = None) -> Tensor:
    """Modified Bessel function of the first kind, order 0, elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1.0, 2.0])
        >>> paddle.i0(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 1.26606584, 2.27958536])
    """
    return dispatch(REGISTRY["i0"], (x,))


def i0e(x: Tensor, name: str | None = None) -> Tensor:
    """Exponentially scaled modified Bessel function of order 0: exp(-|x|) * i0(x).

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1.0, 2.0])
        >>> paddle.i0e(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1.        , 0.46575961, 0.30850834])
    """
    return dispatch(REGISTRY["i0e"], (x,))


def i1(x: Tensor, name: str | None = None) -> Tensor:
    """Modified Bessel function of the first kind, order 1, elementwise.

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1.0, 2.0])
        >>> paddle.i1(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.56515908, 1.59063685])
    """
    return dispatch(REGISTRY["i1"], (x,))


def i1e(x: Tensor, name: str | None = None) -> Tensor:
    """Exponentially scaled modified Bessel function of order 1: exp(-|x|) * i1(x).

    Args:
        x (Tensor): the input.
        name (str, optional): unused; kept for Paddle compatibility.

    Returns:
        Tensor: the elementwise result, shaped like x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.0, 1.0, 2.0])
        >>> paddle.i1e(x)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.20791042, 0.21526928])
    """
    return dispatch(REGISTRY["i1e"], (x,))

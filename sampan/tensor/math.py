"""Public math functions (paddle.add, paddle.exp, ...): Paddle signatures over dispatch."""
from __future__ import annotations

from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY
from ._helpers import binary

__all__ = ["add", "subtract", "multiply", "divide", "exp", "neg"]

_ADD = REGISTRY["add"]
_SUB = REGISTRY["subtract"]
_MUL = REGISTRY["multiply"]
_DIV = REGISTRY["divide"]
_EXP = REGISTRY["exp"]


def add(x, y, name=None):
    """Elementwise x + y with broadcasting.

    Examples:
        >>> import sampan as paddle
        >>> paddle.add(paddle.to_tensor([1., 2.]), paddle.to_tensor([3., 4.]))
        Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [4., 6.])
    """
    return binary(_ADD, x, y)


def subtract(x, y, name=None):
    """Elementwise x - y with broadcasting."""
    return binary(_SUB, x, y)


def multiply(x, y, name=None):
    """Elementwise x * y with broadcasting."""
    return binary(_MUL, x, y)


def divide(x, y, name=None):
    """Elementwise true division x / y; integer inputs give the default float dtype."""
    return binary(_DIV, x, y)


def exp(x, name=None):
    """Elementwise e ** x."""
    return dispatch(_EXP, (x,))


def neg(x, name=None):
    """Elementwise -x."""
    return dispatch(REGISTRY["neg"], (x,))

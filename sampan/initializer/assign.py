"""Assign: fill a parameter with a given array (a constant; static Programs assign it)."""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, wrap
from .base import Initializer

__all__ = ["Assign", "NumpyArrayInitializer"]


class NumpyArrayInitializer(Initializer):
    """Fill with a NumPy array of exactly the parameter's shape (Paddle's legacy name)."""

    _float_only = False

    def __init__(self, value) -> None:
        if not isinstance(value, np.ndarray):
            raise TypeError(f"{type(self).__name__}: value must be a numpy.ndarray, got "
                            f"{type(value).__name__}")
        self._value = value

    def _initial_value(self, shape: list, dtype):
        if list(self._value.shape) != list(shape):
            raise ValueError(f"{type(self).__name__}: the shape of value "
                             f"{list(self._value.shape)} does not match the parameter's "
                             f"shape {list(shape)}")
        # a copy: later changes to the user's array must not reach the parameter
        return wrap(np.array(self._value))


class Assign(NumpyArrayInitializer):
    """Fill the parameter with a given value (ndarray, list, tuple or Tensor).

    Args:
        value (ndarray|list|tuple|Tensor): the data; its shape must equal the parameter's.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([2], 'float32',
        ...                             default_initializer=paddle.nn.initializer.Assign([1, 2]))
        >>> w.numpy()
        array([1., 2.], dtype=float32)
    """

    def __init__(self, value, name=None) -> None:
        if isinstance(value, Tensor):
            value = value.numpy()
        elif isinstance(value, (list, tuple)):
            value = np.array(value)
        if not isinstance(value, np.ndarray):
            raise TypeError(f"Assign: value must be a numpy.ndarray, list, tuple or Tensor, "
                            f"got {type(value).__name__}")
        super().__init__(value)

"""Constant: fill a parameter with one value (a `full` op)."""
from __future__ import annotations

import numpy as np

from ..ops.dispatch import call
from .base import Initializer

__all__ = ["Constant", "ConstantInitializer"]


class ConstantInitializer(Initializer):
    """Fill with a constant (Paddle's legacy name; `force_cpu` is accepted and ignored)."""

    _float_only = False

    def __init__(self, value: float = 0.0, force_cpu: bool = False) -> None:
        if value is None:
            raise ValueError(f"{type(self).__name__}: value must not be None")
        if not isinstance(value, (bool, int, float, np.number)):
            raise TypeError(f"{type(self).__name__}: value must be a number, got "
                            f"{type(value).__name__}")
        self._value = value

    def _initial_value(self, shape: list, dtype):
        value = self._value.item() if isinstance(self._value, np.number) else self._value
        return call("full", shape=shape, fill_value=value, dtype=dtype.name)


class Constant(ConstantInitializer):
    """Fill the parameter with `value`.

    Args:
        value (float): the fill value. Default 0.0.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([2], 'float32',
        ...                             default_initializer=paddle.nn.initializer.Constant(2.0))
        >>> w.numpy()
        array([2., 2.], dtype=float32)
    """

    def __init__(self, value: float = 0.0) -> None:
        super().__init__(value)

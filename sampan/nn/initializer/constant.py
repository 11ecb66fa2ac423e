"""Constant and Assign: fill a parameter with one value or with a given array."""
from __future__ import annotations

import numpy as np

from ...framework.tensor import Tensor
from .initializer import Initializer

__all__ = ["Constant", "Assign", "ConstantInitializer", "NumpyArrayInitializer"]


class ConstantInitializer(Initializer):
    """Fill with a constant (Paddle's legacy name; `force_cpu` is accepted and ignored)."""

    def __init__(self, value: float = 0.0, force_cpu: bool = False) -> None:
        if value is None:
            raise ValueError(f"{type(self).__name__}: value must not be None")
        if not isinstance(value, (bool, int, float, np.number)):
            raise TypeError(f"{type(self).__name__}: value must be a number, got "
                            f"{type(value).__name__}")
        self._value = value

    def forward(self, param: Tensor, block=None) -> Tensor:
        self._check_param(param)
        return self._fill(param, np.full(param._data.shape, self._value,
                                         dtype=param._data.dtype))


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


class NumpyArrayInitializer(Initializer):
    """Fill with a NumPy array of exactly the parameter's shape (Paddle's legacy name)."""

    def __init__(self, value) -> None:
        if not isinstance(value, np.ndarray):
            raise TypeError(f"{type(self).__name__}: value must be a numpy.ndarray, got "
                            f"{type(value).__name__}")
        self._value = value

    def forward(self, param: Tensor, block=None) -> Tensor:
        self._check_param(param)
        if tuple(self._value.shape) != tuple(param._data.shape):
            raise ValueError(f"{type(self).__name__}: the shape of value "
                             f"{list(self._value.shape)} does not match the parameter's "
                             f"shape {param.shape}")
        return self._fill(param, np.array(self._value, dtype=param._data.dtype))


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

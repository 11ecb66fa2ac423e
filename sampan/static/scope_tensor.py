"""The DenseTensor of one Scope variable (`scope.var(name).get_tensor()`): reads show the
scope's current value, `set(array, place)` stores a new one. Imports only `framework`.
"""
from __future__ import annotations

import numpy as np

from ..framework.dense_tensor import DenseTensorHolder
from ..framework.tensor import Tensor, wrap


def _empty() -> Tensor:
    # NOTE: an unset variable reads as Paddle's uninitialised DenseTensor: shape [0].
    return wrap(np.zeros((0,), np.float32))


class ScopeDenseTensor(DenseTensorHolder):
    """Paddle's DenseTensor of the variable `name` of `scope` (a Scope's `_vars` dict holds
    the arrays); handles taken earlier see later `set`s.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> scope = paddle.static.Scope()
        >>> scope.var("data").get_tensor().set(np.ones((2, 2)), paddle.CPUPlace())
        >>> np.array(scope.find_var("data").get_tensor()).tolist()
        [[1.0, 1.0], [1.0, 1.0]]
    """

    __slots__ = ("_scope", "_name")

    def __init__(self, scope, name: str) -> None:
        self._scope = scope
        self._name = name

    @property
    def _tensor(self) -> Tensor:
        arr = self._scope._vars.get(self._name)
        return _empty() if arr is None else wrap(arr)

    def set(self, array, place=None) -> None:
        """Store a copy of `array` (NumPy array, Tensor or nested list) as the value."""
        holder = DenseTensorHolder(_empty())
        holder.set(array, place)
        self._scope._vars[self._name] = holder._tensor._data

    def _is_initialized(self) -> bool:
        return self._name in self._scope._vars

"""The Uniform initializer (random draws from the global generator)."""
from __future__ import annotations

import math

from .. import tensor as _T
from .base import Initializer, draw_dtype, uniform

__all__ = ["Uniform", "UniformInitializer"]


class UniformInitializer(Initializer):
    """U[low, high) (Paddle's legacy name; the diag_* arguments write `diag_val` on a
    strided diagonal of the flattened parameter, as Paddle's uniform_random op does)."""

    def __init__(self, low: float = -1.0, high: float = 1.0, seed: int = 0,
                 diag_num: int = 0, diag_step: int = 0, diag_val: float = 1.0) -> None:
        for arg, value in (("low", low), ("high", high)):
            if value is None:
                raise ValueError(f"{type(self).__name__}: {arg} must not be None")
        if high < low:
            raise ValueError(f"{type(self).__name__}: high must be >= low, got low={low}, "
                             f"high={high}")
        self._low, self._high, self._seed = float(low), float(high), int(seed)
        self._diag = (int(diag_num), int(diag_step), float(diag_val))

    def _initial_value(self, shape: list, dtype):
        value = uniform(shape, dtype, self._low, self._high, self._seed)
        num, step, val = self._diag
        if num <= 0:
            return value
        numel = math.prod(shape)
        if (num - 1) * (step + 1) >= numel:
            raise ValueError(f"{type(self).__name__}: the diagonal (diag_num={num}, "
                             f"diag_step={step}) reaches element {(num - 1) * (step + 1)} "
                             f"of a parameter of {numel} elements (shape {list(shape)})")
        idx = _T.arange(numel, dtype="int64")
        on_diag = _T.logical_and(_T.remainder(idx, _T.full([], step + 1, "int64")) == 0,
                                 idx < num * (step + 1))
        diag = _T.full([numel], val, draw_dtype(dtype))
        return _T.reshape(_T.where(on_diag, diag, _T.reshape(value, [-1])), shape)


class Uniform(UniformInitializer):
    """Fill with samples of U[low, high).

    Args:
        low (float): lower bound. Default -1.0.
        high (float): upper bound. Default 1.0.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([4], 'float32',
        ...                             default_initializer=paddle.nn.initializer.Uniform(0, 1))
        >>> bool(((w >= 0) & (w < 1)).all())
        True
    """

    def __init__(self, low: float = -1.0, high: float = 1.0, name=None) -> None:
        super().__init__(low=low, high=high)

"""Normal and TruncatedNormal initializers (random draws from the global generator)."""
from __future__ import annotations

import math

from .. import tensor as _T
from .base import Initializer, normal, uniform

__all__ = ["Normal", "TruncatedNormal", "NormalInitializer", "TruncatedNormalInitializer"]


class NormalInitializer(Initializer):
    """N(loc, scale**2) (Paddle's legacy name; seed 0 draws from the global generator)."""

    def __init__(self, loc: float = 0.0, scale: float = 1.0, seed: int = 0) -> None:
        for arg, value in (("loc", loc), ("scale", scale)):
            if value is None:
                raise ValueError(f"{type(self).__name__}: {arg} must not be None")
        self._mean, self._std, self._seed = float(loc), float(scale), int(seed)

    def _initial_value(self, shape: list, dtype):
        return normal(shape, dtype, self._mean, self._std, self._seed)


class Normal(NormalInitializer):
    """Fill with samples of N(mean, std**2).

    Args:
        mean (float): the mean. Default 0.0.
        std (float): the standard deviation. Default 1.0.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([2, 3], 'float32',
        ...                             default_initializer=paddle.nn.initializer.Normal())
        >>> w.shape
        paddle.Size([2, 3])
    """

    def __init__(self, mean: float = 0.0, std: float = 1.0, name=None) -> None:
        super().__init__(loc=mean, scale=std)


class TruncatedNormalInitializer(Initializer):
    """N(loc, scale**2) restricted to [a, b] (Paddle's legacy name)."""

    def __init__(self, loc: float = 0.0, scale: float = 1.0, seed: int = 0,
                 a: float = -2.0, b: float = 2.0) -> None:
        for arg, value in (("loc", loc), ("scale", scale), ("a", a), ("b", b)):
            if value is None:
                raise ValueError(f"{type(self).__name__}: {arg} must not be None")
        if a >= b:
            raise ValueError(f"{type(self).__name__}: a must be less than b, got a={a}, b={b}")
        self._mean, self._std, self._seed = float(loc), float(scale), int(seed)
        self._a, self._b = float(a), float(b)

    def _initial_value(self, shape: list, dtype):
        mean, std, a, b = self._mean, self._std, self._a, self._b
        if std <= 0:
            return _T.full(shape, min(max(mean, a), b), "float64")
        # Inverse-CDF sampling: u ~ U(Phi(alpha), Phi(beta)), x = mean + std*Phi^-1(u).
        cdf_a = 0.5 * (1 + math.erf((a - mean) / std / math.sqrt(2)))
        cdf_b = 0.5 * (1 + math.erf((b - mean) / std / math.sqrt(2)))
        u = _T.cast(uniform(shape, dtype, 2 * cdf_a - 1, 2 * cdf_b - 1, self._seed), "float64")
        u = _T.clip(u, -1 + 1e-15, 1 - 1e-15)
        return _T.clip(_T.erfinv(u) * (std * math.sqrt(2.0)) + mean, a, b)


class TruncatedNormal(TruncatedNormalInitializer):
    """Fill with samples of N(mean, std**2) truncated to [a, b] (absolute bounds).

    Args:
        mean (float): the mean. Default 0.0.
        std (float): the standard deviation. Default 1.0.
        a (float): the lower cutoff. Default -2.0.
        b (float): the upper cutoff. Default 2.0.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([100], 'float32',
        ...     default_initializer=paddle.nn.initializer.TruncatedNormal(a=-1.0, b=1.0))
        >>> bool((w.abs() <= 1.0).all())
        True
    """

    def __init__(self, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                 b: float = 2.0, name=None) -> None:
        super().__init__(loc=mean, scale=std, a=a, b=b)

"""Xavier (Glorot) initializers: limit/std scaled by sqrt(fan_in + fan_out)."""
from __future__ import annotations

import math

from .base import Initializer, compute_fans, normal, uniform

__all__ = ["XavierUniform", "XavierNormal", "XavierInitializer"]


class XavierInitializer(Initializer):
    """Glorot initialization (Paddle's legacy name).

    uniform=True: U[-limit, limit], limit = gain * sqrt(6 / (fan_in + fan_out));
    uniform=False: N(0, std**2), std = gain * sqrt(2 / (fan_in + fan_out)).
    fan_in / fan_out default to the parameter's ([in, out] matrices, [out, in, *k] kernels).
    """

    def __init__(self, uniform: bool = True, fan_in=None, fan_out=None, seed: int = 0,
                 gain: float = 1.0) -> None:
        self._uniform, self._fan_in, self._fan_out = bool(uniform), fan_in, fan_out
        self._seed, self._gain = int(seed), float(gain)

    def _initial_value(self, shape: list, dtype):
        f_in, f_out = compute_fans(shape)
        fan_in = f_in if self._fan_in is None else self._fan_in
        fan_out = f_out if self._fan_out is None else self._fan_out
        empty = 0 in (fan_in, fan_out)
        total = float(fan_in + fan_out)
        if self._uniform:
            limit = 0.0 if empty else self._gain * math.sqrt(6.0 / total)
            return uniform(shape, dtype, -limit, limit, self._seed)
        std = 0.0 if empty else self._gain * math.sqrt(2.0 / total)
        return normal(shape, dtype, 0.0, std, self._seed)


class XavierUniform(XavierInitializer):
    """Glorot uniform: U[-limit, limit], limit = gain * sqrt(6 / (fan_in + fan_out)).

    Args:
        fan_in (float, optional): overrides the inferred fan_in. Default None.
        fan_out (float, optional): overrides the inferred fan_out. Default None.
        gain (float): scale. Default 1.0.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([3, 5], 'float32',
        ...     default_initializer=paddle.nn.initializer.XavierUniform())
        >>> bool((w.abs() <= (6 / 8) ** 0.5).all())
        True
    """

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0, name=None) -> None:
        super().__init__(uniform=True, fan_in=fan_in, fan_out=fan_out, gain=gain)


class XavierNormal(XavierInitializer):
    """Glorot normal: N(0, std**2), std = gain * sqrt(2 / (fan_in + fan_out)).

    Args:
        fan_in (float, optional): overrides the inferred fan_in. Default None.
        fan_out (float, optional): overrides the inferred fan_out. Default None.
        gain (float): scale. Default 1.0.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([3, 5], 'float32',
        ...     default_initializer=paddle.nn.initializer.XavierNormal())
        >>> w.shape
        paddle.Size([3, 5])
    """

    def __init__(self, fan_in=None, fan_out=None, gain: float = 1.0, name=None) -> None:
        super().__init__(uniform=False, fan_in=fan_in, fan_out=fan_out, gain=gain)

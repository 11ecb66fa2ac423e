"""Kaiming (He / MSRA) initializers: limit/std scaled by gain / sqrt(fan_in)."""
from __future__ import annotations

import math

from .base import Initializer, compute_fans, normal, uniform
from .gain import calculate_gain

__all__ = ["KaimingNormal", "KaimingUniform", "MSRAInitializer"]


class MSRAInitializer(Initializer):
    """He initialization (Paddle's legacy name).

    gain = calculate_gain(nonlinearity, negative_slope); uniform=True:
    U[-limit, limit], limit = gain * sqrt(3 / fan); else N(0, std**2), std = gain / sqrt(fan),
    where fan is fan_in (given or inferred) for mode='fan_in' and the inferred fan_out for
    mode='fan_out'.
    """

    def __init__(self, uniform: bool = True, fan_in=None, seed: int = 0,
                 negative_slope: float = 0, nonlinearity: str = "relu",
                 mode: str = "fan_in") -> None:
        name = type(self).__name__
        if mode not in ("fan_in", "fan_out"):
            raise ValueError(f"{name}: mode should be 'fan_in' or 'fan_out', but received "
                             f"{mode!r}")
        if mode == "fan_out" and fan_in is not None:
            raise ValueError(f"{name}: mode is 'fan_out' but fan_in is set ({fan_in}); "
                             f"set fan_in to None")
        calculate_gain(nonlinearity, negative_slope)  # validates the nonlinearity early
        self._uniform, self._fan_in, self._seed = bool(uniform), fan_in, int(seed)
        self._negative_slope, self._nonlinearity = negative_slope, nonlinearity
        self._mode = mode

    def _initial_value(self, shape: list, dtype):
        f_in, f_out = compute_fans(shape)
        if self._mode == "fan_in":
            fan = f_in if self._fan_in is None else self._fan_in
        else:
            fan = f_out
        if fan == 0:  # an empty parameter: nothing to scale
            return normal(shape, dtype, 0.0, 0.0, self._seed)
        gain = calculate_gain(self._nonlinearity, self._negative_slope)
        if self._uniform:
            limit = gain * math.sqrt(3.0 / float(fan))
            return uniform(shape, dtype, -limit, limit, self._seed)
        return normal(shape, dtype, 0.0, gain / math.sqrt(float(fan)), self._seed)


class KaimingNormal(MSRAInitializer):
    """He normal: N(0, std**2), std = gain / sqrt(fan_in).

    Args:
        fan_in (float, optional): overrides the inferred fan_in. Default None.
        negative_slope (float): the negative slope for leaky_relu. Default 0.0.
        nonlinearity (str): the nonlinearity the gain is computed for. Default 'relu'.
        mode (str): 'fan_in' or 'fan_out'. Default 'fan_in'.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([4, 3, 3, 3], 'float32',
        ...     default_initializer=paddle.nn.initializer.KaimingNormal())
        >>> w.shape
        paddle.Size([4, 3, 3, 3])
    """

    def __init__(self, fan_in=None, negative_slope: float = 0.0, nonlinearity: str = "relu",
                 mode: str = "fan_in") -> None:
        super().__init__(uniform=False, fan_in=fan_in, negative_slope=negative_slope,
                         nonlinearity=nonlinearity, mode=mode)


class KaimingUniform(MSRAInitializer):
    """He uniform: U[-limit, limit], limit = gain * sqrt(3 / fan_in).

    Args:
        fan_in (float, optional): overrides the inferred fan_in. Default None.
        negative_slope (float): the negative slope for leaky_relu. Default 0.0.
        nonlinearity (str): the nonlinearity the gain is computed for. Default 'relu'.
        mode (str): 'fan_in' or 'fan_out'. Default 'fan_in'.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([8, 6], 'float32',
        ...     default_initializer=paddle.nn.initializer.KaimingUniform())
        >>> bool((w.abs() <= 2 ** 0.5 * (3 / 8) ** 0.5).all())
        True
    """

    def __init__(self, fan_in=None, negative_slope: float = 0.0, nonlinearity: str = "relu",
                 mode: str = "fan_in") -> None:
        super().__init__(uniform=True, fan_in=fan_in, negative_slope=negative_slope,
                         nonlinearity=nonlinearity, mode=mode)

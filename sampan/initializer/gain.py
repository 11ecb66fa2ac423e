"""calculate_gain: the recommended scale of initial weights for a nonlinearity."""
from __future__ import annotations

import math

__all__ = ["calculate_gain"]

_LINEAR = ("sigmoid", "linear", "conv1d", "conv2d", "conv3d", "conv1d_transpose",
           "conv_transpose1d", "conv2d_transpose", "conv_transpose2d", "conv3d_transpose",
           "conv_transpose3d")


def calculate_gain(nonlinearity: str, param=None) -> float:
    """The recommended gain for a nonlinearity (used to scale initial weights).

    Args:
        nonlinearity (str): sigmoid, linear, conv1d/2d/3d(_transpose), tanh, relu,
            leaky_relu or selu.
        param (bool|int|float, optional): the negative slope of leaky_relu (default 0.01).

    Returns:
        float: the gain.

    Examples:
        >>> import sampan as paddle
        >>> paddle.nn.initializer.calculate_gain('tanh')
        1.6666666666666667
        >>> paddle.nn.initializer.calculate_gain('leaky_relu', param=1.0)
        1.0
    """
    if param is None:
        slope = 0.01
    elif isinstance(param, (bool, int, float)):
        slope = float(param)
    else:
        raise TypeError(f"calculate_gain: param must be a bool, int or float, got "
                        f"{type(param).__name__}")
    if nonlinearity in _LINEAR:
        return 1
    gains = {"tanh": 5.0 / 3, "relu": math.sqrt(2.0),
             "leaky_relu": math.sqrt(2.0 / (1 + slope ** 2)), "selu": 3.0 / 4}
    if nonlinearity in gains:
        return gains[nonlinearity]
    raise ValueError(f"calculate_gain: nonlinearity function {nonlinearity!r} is not "
                     f"supported now; expected one of {list(_LINEAR) + list(gains)}")

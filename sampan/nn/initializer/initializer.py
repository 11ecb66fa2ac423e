"""The Initializer base class, fan computation, calculate_gain and the global initializers.

An initializer fills a Parameter (or any Tensor) in place, eagerly and without recording
gradients. Imports `framework` and `ops` only.
"""
from __future__ import annotations

import contextlib
import math

import numpy as np

from ...framework.flags import STATE, dispatch_bypass
from ...framework.random import next_seed
from ...framework.tensor import Tensor
from ...ops.dispatch import dispatch
from ...ops.opdef import REGISTRY

__all__ = ["Initializer", "calculate_gain", "set_global_initializer"]

_global_weight_init = None
_global_bias_init = None


@contextlib.contextmanager
def _filling():
    """Run ops eagerly with grad off, even inside program_guard / AMP.

    Parameters are eager tensors in sampan (a static Program sees them as persistable
    Variables), so their initial values are always computed now.
    """
    prev_grad = STATE.grad_enabled
    STATE.grad_enabled = False
    try:
        with dispatch_bypass():
            yield
    finally:
        STATE.grad_enabled = prev_grad


class Initializer:
    """Base class: `init(param)` fills `param` in place and returns it.

    Subclasses implement `forward(param, block)`, which computes the new value (under
    `_filling`) and writes it with `_fill`. `block` is accepted for Paddle compatibility
    and ignored.
    """

    def __call__(self, param: Tensor, block=None) -> Tensor:
        return self.forward(param, block)

    def forward(self, param: Tensor, block=None) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__}.forward is not implemented")

    def _name(self) -> str:
        return type(self).__name__

    def _check_param(self, param, float_only: bool = False) -> None:
        if not isinstance(param, Tensor):
            raise TypeError(f"{self._name()}: param must be a Tensor or Parameter, got "
                            f"{type(param).__name__}")
        if float_only and param.dtype.kind != "f":
            raise TypeError(f"{self._name()}: param must have a floating point dtype "
                            f"(float16, bfloat16, float32, float64), got "
                            f"{param.dtype.name}")

    def _fill(self, param: Tensor, value) -> Tensor:
        """Write `value` (Tensor or array of param's shape) into param, keeping its identity."""
        arr = value._data if isinstance(value, Tensor) else np.asarray(value)
        target = param._data.dtype
        if arr.dtype != target:
            arr = arr.astype(target)
        if arr.shape != param._data.shape:
            arr = arr.reshape(param._data.shape)
        param._data = arr
        param._version += 1
        return param

    def _compute_fans(self, var: Tensor) -> tuple:
        """(fan_in, fan_out) the Paddle way: [in, out] matrices, [out, in, *k] conv kernels."""
        return _compute_fans(var.shape)


def _draw_dtype(param: Tensor) -> str:
    """Half-precision params are drawn in float32 and cast (as Paddle does)."""
    name = param.dtype.name
    return name if name in ("float32", "float64") else "float32"


def _uniform(param: Tensor, low: float, high: float, seed: int = 0) -> Tensor:
    """U[low, high) of param's shape from the global generator (seed 0) or a fixed seed."""
    return dispatch(REGISTRY["uniform"], (), {
        "shape": list(param.shape), "dtype": _draw_dtype(param), "min": float(low),
        "max": float(high), "seed": int(seed) or next_seed()})


def _normal(param: Tensor, mean: float, std: float, seed: int = 0, shape=None) -> Tensor:
    """N(mean, std**2) of param's shape (or `shape`) from the global generator or a seed."""
    return dispatch(REGISTRY["normal"], (), {
        "shape": list(param.shape if shape is None else shape), "mean": float(mean),
        "std": float(std), "dtype": _draw_dtype(param), "seed": int(seed) or next_seed()})


def _compute_fans(shape) -> tuple:
    shape = list(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


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


def set_global_initializer(weight_init, bias_init=None) -> None:
    """Set the initializers every later-created weight / bias parameter uses by default.

    A ParamAttr's initializer still takes precedence; a layer's own default initializer
    does not. Pass None to cancel.

    Args:
        weight_init (Initializer|None): for weights.
        bias_init (Initializer|None, optional): for biases. Default None.
    """
    global _global_weight_init, _global_bias_init
    for arg, value in (("weight_init", weight_init), ("bias_init", bias_init)):
        if value is not None and not isinstance(value, Initializer):
            raise TypeError(f"set_global_initializer: {arg} must be an Initializer or None, "
                            f"got {type(value).__name__}")
    _global_weight_init = weight_init
    _global_bias_init = bias_init


def _global_weight_initializer():
    """The weight initializer set by set_global_initializer, or None."""
    return _global_weight_init


def _global_bias_initializer():
    """The bias initializer set by set_global_initializer, or None."""
    return _global_bias_init

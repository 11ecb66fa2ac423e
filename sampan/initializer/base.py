"""The Initializer base class, fan computation and the random draws initializers share.

An initializer computes a parameter's initial value through ops (`_initial_value`), so the
same code fills an eager Parameter in place and, called on a static Variable while a startup
Program is being built, appends the ops that compute it. Imports `framework`, `ops` and
`tensor` only (the room just above `tensor`).
"""
from __future__ import annotations

import math

from .. import tensor as _T
from ..framework import place as _place
from ..framework.flags import STATE, dispatch_bypass
from ..framework.random import op_seed
from ..framework.tensor import Tensor, is_variable
from ..ops.dispatch import call

__all__ = ["Initializer"]


class filling:
    """Run ops eagerly with grad off, in this thread, even while a Program is being built or
    a dispatch wrapper (AMP, profiler) is installed: an eager Parameter's initial value is
    always computed now. (A class, not a generator: it runs once per parameter created.)"""

    __slots__ = ("_grad", "_bypass")

    def __enter__(self) -> "filling":
        self._grad = STATE.grad_enabled
        STATE.grad_enabled = False
        self._bypass = dispatch_bypass() if STATE.intercept is not None else None
        if self._bypass is not None:
            self._bypass.__enter__()
        return self

    def __exit__(self, *exc) -> bool:
        try:
            if self._bypass is not None:
                self._bypass.__exit__(*exc)
        finally:
            STATE.grad_enabled = self._grad
        return False


class Initializer:
    """Base class of every initializer.

    `init(param)` fills an eager Parameter (or any Tensor) in place, without recording
    gradients, and returns it. `init(var, block)` on a static Variable, called while
    `block` is being built (static `create_parameter` does this on the startup program),
    appends the ops that compute the value and returns the Variable holding it.

    A subclass implements `_initial_value(shape, dtype)`: the value computed through ops
    (dispatch records them when building). Subclasses written Paddle's way may override
    `forward(param, block)` instead.
    """

    # False for initializers that accept any dtype (Constant, Assign)
    _float_only = True

    def __call__(self, param, block=None):
        return self.forward(param, block)

    def forward(self, param, block=None):
        if isinstance(param, Tensor):  # eager: compute now and fill in place
            dtype = param.dtype
            self._check_dtype(dtype)
            with filling():
                value = _as_dtype(self._initial_value(list(param._data.shape), dtype), dtype)
            return self._fill(param, value)
        if not is_variable(param):
            raise TypeError(f"{self._name()}: param must be a Tensor, Parameter or static "
                            f"Variable, got {type(param).__name__}")
        self._check_dtype(param.dtype)  # static: the ops go to the Block being built
        return _as_dtype(self._initial_value(list(param.shape), param.dtype), param.dtype)

    def _initial_value(self, shape: list, dtype):
        """The initial value of a parameter of `shape` and `dtype` (a Tensor or Variable)."""
        raise NotImplementedError(f"{self._name()}: neither forward nor _initial_value is "
                                  f"implemented")

    def _name(self) -> str:
        return type(self).__name__

    def _check_dtype(self, dtype) -> None:
        if self._float_only and dtype.kind != "f":
            raise TypeError(f"{self._name()}: param must have a floating point dtype "
                            f"(float16, bfloat16, float32, float64), got {dtype.name}")

    def _fill(self, param: Tensor, value: Tensor) -> Tensor:
        """Write the eager `value` (param's shape and dtype) into param, keeping its identity."""
        arr = value._data
        if arr.shape != param._data.shape:
            arr = arr.reshape(param._data.shape)
        if arr.__class__ is not param._data.__class__:  # initial values are drawn on the host
            arr = _place.move(arr, _place.place_of(param._data))
        param._data = arr
        param._version += 1
        return param

    def _compute_fans(self, var) -> tuple:
        """(fan_in, fan_out) the Paddle way: [in, out] matrices, [out, in, *k] conv kernels."""
        return compute_fans(var.shape)


def _as_dtype(value, dtype):
    return value if value.dtype == dtype else _T.cast(value, dtype)


def compute_fans(shape) -> tuple:
    """(fan_in, fan_out) of a parameter shape: 0-d (1, 1), 1-d (n, n), [in, out] matrices,
    [out, in, *k] kernels (fans multiplied by the receptive field)."""
    shape = list(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def draw_dtype(dtype) -> str:
    """Half-precision parameters are drawn in float32 and cast (as Paddle does)."""
    return dtype.name if dtype.name in ("float32", "float64") else "float32"


def uniform(shape, dtype, low: float, high: float, seed: int = 0):
    """U[low, high) of `shape` from the global generator (seed 0) or a fixed seed."""
    return call("uniform", shape=list(shape), dtype=draw_dtype(dtype), min=float(low),
                max=float(high), seed=op_seed(int(seed), program=True))


def normal(shape, dtype, mean: float, std: float, seed: int = 0):
    """N(mean, std**2) of `shape` from the global generator (seed 0) or a fixed seed."""
    return call("normal", shape=list(shape), mean=float(mean), std=float(std),
                dtype=draw_dtype(dtype), seed=op_seed(int(seed), program=True))

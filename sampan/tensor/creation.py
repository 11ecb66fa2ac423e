"""Public creation functions (to_tensor, zeros, ones, full, arange, ...)."""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from ..framework.tensor import Tensor, to_array, wrap

__all__ = ["to_tensor"]


def to_tensor(data, dtype=None, place=None, stop_gradient: bool = True):
    """Create a Tensor from Python data, a NumPy array or a Tensor (the data is copied).

    Python floats give the default float dtype (float32), ints int64, bools bool.

    Examples:
        >>> import sampan as paddle
        >>> paddle.to_tensor([[1, 2], [3, 4]])
        Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [[1, 2],
                [3, 4]])
    """
    arr = to_array(data, dtype)
    if isinstance(data, Tensor) and arr is data._data or arr is data:
        arr = arr.copy()
    t = wrap(arr)
    t.stop_gradient = bool(stop_gradient)
    return t

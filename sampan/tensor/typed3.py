"""Paddle 3.x's typed tensor constructors (FloatTensor, LongTensor, ...): each builds a
plain Tensor of its dtype, as `paddle.tensor.creation.dtype_tensor_factory` does; they are
factories, not Tensor subclasses (isinstance(t, paddle.FloatTensor) is False, as in
Paddle). Imports `framework` and `tensor.creation`.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from .creation import empty, to_tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor",
           "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "BoolTensor"]


class _TypedTensor:
    """FloatTensor() -> an empty [0] tensor; FloatTensor([1, 2]) -> the data as float32;
    FloatTensor(2, 3) -> an uninitialised [2, 3] tensor; an ndarray or Tensor keeps its
    own dtype (as Paddle's factory passes it to the Tensor constructor)."""

    dtype = "float32"

    def __new__(cls, *args, **kwargs):
        if not args:
            return empty([0], dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            return to_tensor(args[0], dtype=cls.dtype)
        if all(isinstance(arg, int) for arg in args):
            return empty(list(args), dtype=cls.dtype)
        if len(args) == 1 and isinstance(args[0], (np.ndarray, Tensor)):
            return to_tensor(args[0])
        raise ValueError(f"paddle.{cls.__name__}: expected no argument, a list or tuple of "
                         f"values, sizes as ints, an ndarray or a Tensor, got "
                         f"{', '.join(type(a).__name__ for a in args)}")


def _factory(name: str, dtype: str) -> type:
    doc = (f"Build a {dtype} Tensor: `paddle.{name}([1, 2])` (values), "
           f"`paddle.{name}(2, 3)` (shape), `paddle.{name}()` (empty).\n\n"
           f"    Examples:\n        >>> import sampan as paddle\n"
           f"        >>> paddle.{name}([1, 0]).dtype\n        paddle.{dtype}\n")
    return type(name, (_TypedTensor,), {"dtype": dtype, "__doc__": doc,
                                        "__module__": "sampan"})


FloatTensor = _factory("FloatTensor", "float32")
DoubleTensor = _factory("DoubleTensor", "float64")
HalfTensor = _factory("HalfTensor", "float16")
BFloat16Tensor = _factory("BFloat16Tensor", "bfloat16")
ByteTensor = _factory("ByteTensor", "uint8")
CharTensor = _factory("CharTensor", "int8")
ShortTensor = _factory("ShortTensor", "int16")
IntTensor = _factory("IntTensor", "int32")
LongTensor = _factory("LongTensor", "int64")
BoolTensor = _factory("BoolTensor", "bool")

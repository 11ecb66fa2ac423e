"""Public attribute functions (shape, rank, finfo/iinfo, tolist) and Tensor layout methods."""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from ..framework.tensor import Tensor, wrap
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY

__all__ = ["shape", "rank", "tolist", "finfo", "iinfo", "is_same_shape"]

_SHAPE = REGISTRY["shape"]


def shape(input, name=None):
    """The shape of `input` as a 1-D int64 Tensor.

    Examples:
        >>> import sampan as paddle
        >>> paddle.shape(paddle.zeros([2, 3]))
        Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [2, 3])
    """
    return dispatch(_SHAPE, (input,))


def rank(input, name=None):
    """The number of dimensions of `input` as a 0-D int32 Tensor."""
    return wrap(np.asarray(len(input.shape), dtype=np.int32))


def tolist(x) -> list:
    """The data of `x` as a (nested) Python list."""
    return x.tolist()


def is_same_shape(x, y) -> bool:
    """True when x and y have the same shape."""
    return list(x.shape) == list(y.shape)


class _Info:
    def __init__(self, dtype, info) -> None:
        self.dtype = dtype.name
        for key in ("bits", "min", "max", "eps", "resolution", "tiny", "smallest_normal"):
            if hasattr(info, key):
                value = getattr(info, key)
                setattr(self, key, float(value) if dtype.kind == "f" else int(value))

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class finfo(_Info):
    """Machine limits of a floating point dtype (paddle.finfo)."""

    def __init__(self, dtype) -> None:
        dt = _dt.convert_dtype(dtype)
        if dt.kind not in "fc":
            raise TypeError(f"finfo: dtype must be a floating point or complex type, got "
                            f"{dt.name}")
        import ml_dtypes
        info = ml_dtypes.finfo(dt.np) if dt is _dt.bfloat16 else np.finfo(dt.np)
        super().__init__(dt, info)


class iinfo(_Info):
    """Machine limits of an integer dtype (paddle.iinfo)."""

    def __init__(self, dtype) -> None:
        dt = _dt.convert_dtype(dtype)
        if dt.kind not in "iu":
            raise TypeError(f"iinfo: dtype must be an integer type, got {dt.name}")
        super().__init__(dt, np.iinfo(dt.np))


def _contiguous(self) -> Tensor:
    return self


def _is_contiguous(self) -> bool:
    return True


def _strides(self) -> list:
    return [s // self._data.itemsize for s in self._data.strides]


def _copy_(self, src, blocking: bool = True) -> Tensor:
    """Copy src's values into self (in place, same shape; cast to self's dtype)."""
    self.set_value(src)
    return self


Tensor.contiguous = _contiguous
Tensor.is_contiguous = _is_contiguous
Tensor.get_strides = _strides
Tensor.strides = property(_strides)
Tensor.offset = property(lambda self: 0)
Tensor.layout = property(lambda self: "NCHW")
Tensor.inplace_version = property(lambda self: self._version)
Tensor.grad_fn = property(lambda self: self._node)
Tensor.type = property(lambda self: "DenseTensor")
Tensor.copy_ = _copy_
Tensor.is_same_shape = is_same_shape

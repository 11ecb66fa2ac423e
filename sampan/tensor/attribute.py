"""Public attribute functions (shape, rank, finfo/iinfo, tolist) and Tensor layout methods."""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from ..framework.core import VarDesc
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
    _FIELDS: tuple = ()

    def __init__(self, dtype, info) -> None:
        for key in self._FIELDS:
            value = getattr(info, key)
            setattr(self, key, int(value) if key == "bits" or dtype.kind in "iu"
                    else float(value))
        if "resolution" in self._FIELDS:      # 10**-precision, exact as a Python float
            self.resolution = 10.0 ** -int(info.precision)
        self.dtype = str(np.dtype(info.dtype)) if dtype.kind == "c" else dtype.name

    def __repr__(self) -> str:
        """Paddle's text: `paddle.finfo(min=-3.40282e+38, ..., dtype=float32)` (floats as
        C's %g; a complex dtype reports its real part's dtype)."""
        fields = [f"{k}={getattr(self, k):g}" if isinstance(getattr(self, k), float) else
                  f"{k}={getattr(self, k)}" for k in self._FIELDS]
        return f"paddle.{type(self).__name__}({', '.join(fields)}, dtype={self.dtype})"


class finfo(_Info):
    """Machine limits of a floating point dtype (paddle.finfo).

    Examples:
        >>> import sampan as paddle
        >>> print(paddle.finfo(paddle.float32))
        paddle.finfo(min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, resolution=1e-06, \
smallest_normal=1.17549e-38, tiny=1.17549e-38, bits=32, dtype=float32)
    """

    _FIELDS = ("min", "max", "eps", "resolution", "smallest_normal", "tiny", "bits")

    def __init__(self, dtype) -> None:
        dt = _dt.convert_dtype(dtype)
        if dt.kind not in "fc":
            raise TypeError(f"finfo: dtype must be a floating point or complex type, got "
                            f"{dt.name}")
        import ml_dtypes
        info = ml_dtypes.finfo(dt.np) if dt is _dt.bfloat16 else np.finfo(dt.np)
        super().__init__(dt, info)


class iinfo(_Info):
    """Machine limits of an integer dtype (paddle.iinfo).

    Examples:
        >>> import sampan as paddle
        >>> print(paddle.iinfo(paddle.uint8))
        paddle.iinfo(min=0, max=255, bits=8, dtype=uint8)
    """

    _FIELDS = ("min", "max", "bits")

    def __init__(self, dtype) -> None:
        try:
            dt = _dt.convert_dtype(dtype)
        except TypeError as err:
            raise _NotIntegerError(f"iinfo: dtype must be an integer type, got "
                                   f"{dtype!r} ({err})") from None
        if dt.kind not in "iu":
            raise _NotIntegerError(f"iinfo: dtype must be an integer type, got {dt.name}")
        super().__init__(dt, np.iinfo(dt.np))


class _NotIntegerError(TypeError, ValueError):
    """paddle.iinfo of a non-integer dtype: Paddle raises ValueError; sampan's TypeError too."""


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
Tensor.type = property(lambda self: VarDesc.VarType.DENSE_TENSOR)
Tensor.copy_ = _copy_
Tensor.is_same_shape = is_same_shape

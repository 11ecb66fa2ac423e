"""The GPU backend: the `xp` namespace over CuPy (+ `cupyx.scipy.special` as `special`).

Imported only when a GPU place is first used (CUDAPlace, set_device('gpu'), Tensor.cuda()),
so `import sampan` never imports CuPy. CuPy is the optional `gpu` extra (cupy-cuda12x or
cupy-cuda13x matching the driver). Imports only `framework.place`, `backend`, NumPy and CuPy.
"""
from __future__ import annotations

import numpy as _np

try:
    import cupy as _cp
except ImportError:  # the module still imports (doctest collection); places refuse to use it
    _cp = None

from ml_dtypes import bfloat16  # noqa: F401  (CuPy has no bfloat16 kernels; ops say so)

from ..framework.place import CUDAPlace, Place, register_array_type
from .cupy_conv import kernels_for
from .cupy_einsum import make_einsum

#: ops whose kernels use NumPy features CuPy lacks (ufunc.accumulate of maximum/minimum/
#: logaddexp, take(mode=), matrix_rank(hermitian=), scalar special functions), seen by
#: bench/gpu_check.py on CuPy 14.2: they refuse GPU inputs with a clear error
CPU_ONLY = frozenset({"cummax", "cummin", "logcumsumexp", "as_strided", "combinations", "take",
                      "matrix_rank", "digamma", "polygamma", "mode"})

MISSING = ("sampan's GPU backend needs CuPy: pip install 'sampan[gpu]' (the cupy-cuda12x or "
           "cupy-cuda13x wheel matching your driver)")
if _cp is not None:
    globals().update({k: v for k, v in vars(_cp).items() if not k.startswith("_")})
    from cupy import fft, linalg, random  # noqa: F401
    ndarray = _cp.ndarray
    einsum = make_einsum(_cp)  # per-channel sums without CuPy's einsum planning
newaxis = None


class errstate:
    """NumPy's `errstate` for kernels (`with xp.errstate(invalid="ignore")`): CuPy never
    warns about floating-point errors, so here it changes nothing."""

    def __init__(self, **kwargs) -> None:
        pass

    def __enter__(self) -> "errstate":
        return self

    def __exit__(self, *exc) -> bool:
        return False


def __getattr__(name):
    if _cp is None:  # AttributeError keeps hasattr/doctest collection working
        raise AttributeError(f"backend cupy has no attribute {name!r}: {MISSING}")
    if name == "special":
        import cupyx.scipy.special as special
        globals()["special"] = special
        return special
    raise AttributeError(f"backend cupy has no attribute {name!r}")


def check_device(place: CUDAPlace) -> None:
    """Raise a clear error when GPU `place.id` does not exist."""
    count = _cp.cuda.runtime.getDeviceCount()
    if place.id >= count:
        raise ValueError(f"{place}: there are {count} GPU(s); valid ids are 0..{count - 1}")


# --- the place protocol (framework.place) --------------------------------------------
def place_of(arr) -> CUDAPlace:
    return CUDAPlace(arr.device.id)


def to_host(arr) -> _np.ndarray:
    return _cp.asnumpy(arr)


def from_host(arr: _np.ndarray, place: Place):
    with _cp.cuda.Device(place.id):
        return _cp.asarray(arr)


def adopt(value, op_name: str):
    """A kernel's result as a device array (host results are copied to the device)."""
    if value.__class__ is _cp.ndarray:
        return value
    return _cp.asarray(value)


if _cp is not None:
    register_array_type(_cp.ndarray, __import__(__name__, fromlist=["_"]))
    #: GEMM-shaped convolutions (backend/cupy_conv.py), found by backend/conv.py's `_own`
    conv_kernels = kernels_for(__import__(__name__, fromlist=["_"]))

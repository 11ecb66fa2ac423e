"""The NumPy backend namespace handed to every `compute` as `xp`.

It is NumPy's own namespace plus `special` (scipy.special) and `bfloat16`; `special` and
`random` are loaded on first use so that `import sampan` stays fast. Imports only
backend.threads (matmul goes through its BLAS thread policy).
"""
import numpy as _np
from ml_dtypes import bfloat16  # noqa: F401

# The namespace *is* NumPy's. Copy its loaded attributes instead of `import *`, which would
# import lazily loaded submodules (f2py, testing) and double the import time.
globals().update({k: v for k, v in vars(_np).items() if not k.startswith("_")})
from numpy import fft, linalg  # noqa: E402,F401  (random: loaded on first use, below)

ndarray = _np.ndarray
newaxis = None

_BF16 = _np.dtype(bfloat16)
_F32 = _np.dtype(_np.float32)


from .threads import matmul as _threaded_matmul  # noqa: E402  (np.matmul + the thread policy)


def matmul(a, b, out=None):
    """NumPy's matmul; bfloat16 operands multiply as float32 and round the result to bfloat16.

    NOTE: ml_dtypes' own bfloat16 matmul runs an element loop ~400x slower than BLAS and
    returns float32 (so kernels disagreed with infer). Products of bfloat16 values are exact
    in float32 and float32 accumulation is what bfloat16 hardware does, so this is the same
    arithmetic at BLAS speed.
    """
    if a.dtype is not _BF16 and b.dtype is not _BF16:   # the hot path: no keyword call
        return _threaded_matmul(a, b, out)
    res = _np.matmul(_to_f32(a), _to_f32(b))
    if _np.result_type(a.dtype, b.dtype) == _BF16:
        res = res.astype(_BF16)
    if out is None:
        return res
    out[...] = res
    return out


def _to_f32(a):
    """bfloat16 -> float32 exactly by placing the 16 bits high (14x faster than astype)."""
    if a.dtype is not _BF16:
        return a.astype(_F32, copy=False)
    return (a.view(_np.uint16).astype(_np.uint32) << 16).view(_F32)


def _tune_allocator() -> None:
    """Keep freed large blocks in the C heap instead of returning them to the OS at once.

    NOTE: training steps allocate and free the same large activations every step; glibc's
    default returns them to the OS (munmap) and the next step page-faults them back in.
    Raising the mmap/trim thresholds cut batch_norm's page faults 7.5x and the training
    benchmarks' CPU time by 7-13%, at the cost of holding up to 256 MB of freed memory.
    Set SAMPAN_TUNE_MALLOC=0 to keep the C library's defaults.
    """
    import os
    import sys
    if not sys.platform.startswith("linux") or os.environ.get("SAMPAN_TUNE_MALLOC") == "0":
        return
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 32 << 20)   # M_MMAP_THRESHOLD
        libc.mallopt(-1, 256 << 20)  # M_TRIM_THRESHOLD
    except (OSError, AttributeError):
        pass  # not glibc (musl, ...): keep the defaults


_tune_allocator()

#: NumPy uses the kernels of backend/conv.py itself (a backend may supply its own, see `_own`
#: there); defined so that lookup is a plain attribute read, not a failing __getattr__
conv_kernels = None


def __getattr__(name):
    if name == "special":
        import scipy.special as special
        globals()["special"] = special
        return special
    if name == "random":  # numpy.random costs ~8 ms of `import sampan`; random kernels load it
        import numpy.random as random
        globals()["random"] = random
        return random
    raise AttributeError(f"backend numpy has no attribute {name!r}")

"""The NumPy backend namespace handed to every `compute` as `xp`.

It is NumPy's own namespace plus `special` (scipy.special, loaded on first use so that
`import sampan` stays fast) and `bfloat16`. Imports nothing from sampan.
"""
import numpy as _np
from ml_dtypes import bfloat16  # noqa: F401

# The namespace *is* NumPy's. Copy its loaded attributes instead of `import *`, which would
# import lazily loaded submodules (f2py, testing) and double the import time.
globals().update({k: v for k, v in vars(_np).items() if not k.startswith("_")})
from numpy import fft, linalg, random  # noqa: E402,F401

ndarray = _np.ndarray
newaxis = None


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


def __getattr__(name):
    if name == "special":
        import scipy.special as special
        globals()["special"] = special
        return special
    raise AttributeError(f"backend numpy has no attribute {name!r}")

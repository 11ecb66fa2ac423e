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


def __getattr__(name):
    if name == "special":
        import scipy.special as special
        globals()["special"] = special
        return special
    raise AttributeError(f"backend numpy has no attribute {name!r}")

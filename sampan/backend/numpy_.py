"""The NumPy backend namespace handed to every `compute` as `xp`.

It is NumPy's own namespace plus `special` (scipy.special, loaded on first use so that
`import sampan` stays fast) and `bfloat16`. Imports nothing from sampan.
"""
from numpy import *  # noqa: F401,F403  (the namespace *is* NumPy's)
from numpy import fft, linalg, random  # noqa: F401
import numpy as _np
from ml_dtypes import bfloat16  # noqa: F401

ndarray = _np.ndarray
newaxis = None


def __getattr__(name):
    if name == "special":
        import scipy.special as special
        globals()["special"] = special
        return special
    raise AttributeError(f"backend numpy has no attribute {name!r}")

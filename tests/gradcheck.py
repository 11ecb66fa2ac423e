"""Finite differences shared by the layer tests (the op database has its own, per slot)."""
import numpy as np


def numeric_grad(fn, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar fn(x) with respect to every element of x."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (fn(hi) - fn(lo)) / (2 * eps)
    return g

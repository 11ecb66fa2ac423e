"""Public matrix composites: matrix_power, multi_dot, cond, cov, corrcoef, cdist (plain
sampan code over products, norms and decompositions). Re-exported by tensor/linalg.py,
which lists them in `__all__`.
"""
from __future__ import annotations

import math

import numpy as np

from ..framework.flags import in_dynamic_mode
from ..framework.tensor import Tensor, wrap
from ..ops.dispatch import call
from ..ops.linalg import mT
from .linalg import _check_tensor, _matrix_norm, _ndim, _pvalue, _vector_norm, matmul
from .linalg_decomp import inverse, svd


# --- composites --------------------------------------------------------------------------

def matrix_power(x, n: int, name=None):
    """x raised to the integer power n (n < 0 inverts first; n = 0 gives identity)."""
    _check_tensor("matrix_power", "x", x)
    if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"matrix_power: x must be a square matrix (or a batch of them), "
                         f"got shape {list(x.shape)}")
    if int(n) != n:
        raise TypeError(f"matrix_power: n must be an int, got {n!r}")
    n = int(n)
    if n == 0:
        eye = np.eye(x.shape[-1], dtype=x.dtype.np)
        return call("expand_as", eye, x)
    if n < 0:
        x, n = inverse(x), -n
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if n:
            base = matmul(base, base)
    return result


def multi_dot(x, name=None):
    """Chained matrix product of a list; the first/last may be 1-D (row/column vector)."""
    if not isinstance(x, (list, tuple)) or len(x) < 2:
        raise ValueError("multi_dot: x must be a list of at least 2 tensors")
    for i, t in enumerate(x):
        nd = _ndim(t)
        ok = nd in (1, 2) if i in (0, len(x) - 1) else nd == 2
        if not ok:
            raise ValueError(f"multi_dot: tensor {i} must be 2-D (the first and last may be "
                             f"1-D), got shape {list(t.shape)}")
    out = x[0]
    for t in x[1:]:
        out = matmul(out, t)
    return out


def cond(x, p=None, name=None):
    """Condition number of square (batched) x in norm p (None/2: ratio of singular values;
    'fro', 'nuc', inf, -inf, 1, -1: norm(x) * norm(inv(x)); -2: smallest/largest)."""
    _check_tensor("cond", "x", x)
    nd = len(x.shape)
    if nd < 2:
        raise ValueError(f"cond: x must be a matrix [..., M, N], got shape {list(x.shape)}")
    if 0 in x.shape and not in_dynamic_mode():  # as Paddle: eager mode gives an empty result
        raise ValueError(f"cond: x must not be empty in static graph mode, got shape "
                         f"{list(x.shape)}")
    if p is None or p in (2, -2):
        s = svd(x)[1]
        hi = _vector_norm(s, math.inf, -1, False)
        lo = _vector_norm(s, -math.inf, -1, False)
        return lo / hi if p == -2 else hi / lo
    if p not in ("fro", "nuc") and _pvalue("cond", p) not in (math.inf, -math.inf, 1, -1):
        raise ValueError(f"cond: p must be None, 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, "
                         f"got {p!r}")
    axes = (nd - 2, nd - 1)
    return _matrix_norm(x, p, axes, False) * _matrix_norm(inverse(x), p, axes, False)


class _RankError(AssertionError, ValueError):
    """A wrong rank where Paddle asserts (pdist); sampan raised ValueError before."""


def cov(x, rowvar: bool = True, ddof: bool = True, fweights=None, aweights=None,
        name=None):
    """Covariance matrix of the variables in x (rows, or columns if not rowvar).

    Args:
        x (Tensor): 1-D (one variable) or 2-D [variables, observations].
        rowvar (bool): rows are variables. Default True.
        ddof (bool): divide by N - 1 (unbiased) instead of N. Default True.
        fweights (Tensor): int frequency weights per observation. Optional.
        aweights (Tensor): float observation weights. Optional.
    Returns:
        Tensor: [variables, variables] (0-D for a single variable).
    """
    _check_tensor("cov", "x", x)
    if len(x.shape) > 2:
        raise ValueError(f"cov: x must be 1-D or 2-D, got shape {list(x.shape)}")
    single = len(x.shape) < 2
    xm = call("reshape", x, shape=[1, -1]) if single else (x if rowvar else mT(x))
    n_obs = xm.shape[1]
    w = None
    dtype = x.dtype.name
    for arg, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        if len(wt.shape) != 1 or wt.shape[0] != n_obs:
            raise ValueError(f"cov: {arg} must be 1-D with {n_obs} entries (one per "
                             f"observation), got shape {list(wt.shape)}")
        if isinstance(wt, Tensor) and wt.size and float(wt.numpy().min()) < 0:
            raise ValueError(f"cov: the values of {arg} cannot be negative, got a minimum of "
                             f"{wt.numpy().min()}")
        wt = call("cast", wt, dtype=dtype)
        w = wt if w is None else w * wt
    if w is None:
        avg = call("sum", xm, axis=1, keepdim=True, dtype=None) / float(n_obs)
        fact = float(n_obs - (1 if ddof else 0))
        xc = xm - avg
        c = matmul(xc, xc, transpose_y=True) / fact
    else:
        w_sum = call("sum", w, axis=None, keepdim=False, dtype=None)
        if isinstance(w_sum, Tensor) and float(w_sum.numpy()) == 0:
            raise ValueError("cov: the sum of weights is zero, can't be normalized")
        avg = call("sum", xm * w, axis=1, keepdim=True, dtype=None) / w_sum
        if not ddof:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - 1.0
        else:
            aw = call("cast", aweights, dtype=dtype)
            fact = w_sum - call("sum", w * aw, axis=None, keepdim=False, dtype=None) / w_sum
        xc = xm - avg
        c = matmul(xc * w, xc, transpose_y=True) / fact
    return call("reshape", c, shape=[]) if single else c


def corrcoef(x, rowvar: bool = True, name=None):
    """Pearson correlation coefficients of the variables in x (see cov); real x only."""
    if x.dtype.kind == "c":  # Paddle: float32/float64 only
        raise TypeError(f"corrcoef: x must be a real (float32 or float64) tensor, got "
                        f"{x.dtype.name}")
    c = cov(x, rowvar)
    if len(c.shape) == 0:
        return c / c
    std = call("sqrt", call("einsum", [c], equation="ii->i"))
    return c / call("reshape", std, shape=[-1, 1]) / call("reshape", std, shape=[1, -1])


def cdist(x, y, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary",
          name=None):
    """Pairwise p-norm distances between the rows of x [..., P, M] and y [..., R, M].

    Returns:
        Tensor: [..., P, R] (batch dims broadcast).
    """
    _check_tensor("cdist", "x", x)
    _check_tensor("cdist", "y", y)
    if len(x.shape) < 2 or len(y.shape) < 2 or x.shape[-1] != y.shape[-1]:
        raise ValueError(f"cdist: x [..., P, M] and y [..., R, M] must be at least 2-D with "
                         f"the same last dim, got shapes {list(x.shape)} and "
                         f"{list(y.shape)}")
    xs = call("reshape", x, shape=list(x.shape[:-1]) + [1, x.shape[-1]])
    ys = call("reshape", y, shape=list(y.shape[:-2]) + [1] + list(y.shape[-2:]))
    return _vector_norm(xs - ys, _pvalue("cdist", p), -1, False)


def pdist(x, p: float = 2.0, name=None):
    """p-norm distances between every pair of rows of x: the upper triangle of cdist(x, x),
    row by row (pairs (0, 1), (0, 2), ..., (N-2, N-1)).

    Args:
        x (Tensor): float tensor of shape [N, M].
        p (float, optional): the norm order, >= 0 (0 counts differing coordinates, inf is
            the largest difference). Default 2.0.

    Returns:
        Tensor: shape [N * (N - 1) / 2], x's dtype.

    Examples:
        >>> import sampan as paddle
        >>> paddle.pdist(paddle.to_tensor([[0., 0.], [3., 4.], [6., 8.]]))
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [5. , 10., 5. ])
    """
    _check_tensor("pdist", "x", x)
    if len(x.shape) != 2:
        raise _RankError(f"pdist: x must be a 2-D tensor [N, M], got shape {list(x.shape)}")
    p = float(p)
    if not p >= 0:
        raise ValueError(f"pdist: p must be >= 0, got {p}")
    rows, cols = np.triu_indices(x.shape[0], 1)
    diff = (call("gather", x, wrap(rows.astype(np.int64)), axis=0)
            - call("gather", x, wrap(cols.astype(np.int64)), axis=0))
    return _vector_norm(diff, p, [1], False)


def lu_solve(b, lu, pivots, trans: str = "N", name=None):
    """Solve A X = b (or A^T X = b) from the LU factorization of A (paddle.linalg.lu).

    Args:
        b (Tensor): right-hand sides [*, N, K].
        lu (Tensor): the packed LU factors of A [*, N, N], from ``paddle.linalg.lu``.
        pivots (Tensor): the int32 pivots from ``paddle.linalg.lu``.
        trans (str, optional): 'N' solves A X = b, 'T' (or 'C', the same for real A)
            solves A^T X = b. Default 'N'.

    Returns:
        Tensor: X, shaped like b.

    Examples:
        >>> import sampan as paddle
        >>> A = paddle.to_tensor([[3., 1.], [6., 4.]])
        >>> lu, piv = paddle.linalg.lu(A)
        >>> paddle.linalg.lu_solve(paddle.to_tensor([[5.], [14.]]), lu, piv)
        Tensor(shape=[2, 1], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1.],
                [2.]])
    """
    if trans not in ("N", "T", "C"):
        raise ValueError(f"linalg.lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    for arg, v in (("b", b), ("lu", lu), ("pivots", pivots)):
        _check_tensor("lu_solve", arg, v)
    if len(b.shape) < 2 or b.shape[-2] != lu.shape[-1]:
        raise ValueError(f"linalg.lu_solve: b must be [*, N, K] with N = {lu.shape[-1]} (the "
                         f"size of lu), got b of shape {list(b.shape)}")
    perm, lower, upper = call("lu_unpack", lu, pivots)  # A = P L U
    if trans == "N":  # U X = L^-1 P^T b
        y = _tri(lower, matmul(perm, b, transpose_x=True), upper=False, unit=True)
        return _tri(upper, y, upper=True)
    y = _tri(upper, b, upper=True, transpose=True)  # A^T = U^T L^T P^T
    return matmul(perm, _tri(lower, y, upper=False, unit=True, transpose=True))


def _tri(a, b, upper: bool, unit: bool = False, transpose: bool = False):
    return call("triangular_solve", a, b, upper=upper, transpose=transpose,
                unitriangular=unit)

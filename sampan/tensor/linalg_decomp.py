"""Public decompositions and solvers (cholesky, qr, svd, eig*, inverse, pinv, det, solve,
lstsq, lu, ...) and the composites built on them: cholesky_solve, householder_product,
pca_lowrank. Re-exported by tensor/linalg.py, which lists them in `__all__`.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, wrap
from ..ops.dispatch import call
from .linalg import _check_tensor, matmul, require_tensor


# --- decompositions ----------------------------------------------------------------------

def cholesky(x, upper: bool = False, name=None):
    """Cholesky factor of symmetric positive definite x: lower L (x = L L^T) or upper U."""
    return call("cholesky", x, upper=bool(upper))


def qr(x, mode: str = "reduced", name=None):
    """QR decomposition: (Q, R) for mode 'reduced'/'complete'; R only for mode 'r'."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    q, r = call("qr", x, mode="reduced" if mode == "r" else mode)
    return r if mode == "r" else (q, r)


def svd(x, full_matrices: bool = False, name=None):
    """Singular value decomposition x = U diag(S) VH; returns (U, S, VH)."""
    return call("svd", x, full_matrices=bool(full_matrices))


def eig(x, name=None):
    """Eigenvalues and eigenvectors of a general square matrix (complex results)."""
    return call("eig", x)


def eigvals(x, name=None):
    """Eigenvalues of a general square matrix (complex result)."""
    return call("eigvals", x)


def eigh(x, UPLO: str = "L", name=None):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix: (w, V)."""
    return call("eigh", x, UPLO=UPLO)


def eigvalsh(x, UPLO: str = "L", name=None):
    """Eigenvalues (ascending) of a symmetric matrix."""
    return call("eigh", x, UPLO=UPLO)[0]


def inverse(x, name=None):
    """Inverse of a square (batched) matrix; raises ValueError if it is singular."""
    return call("inverse", x)


def pinv(x, rcond: float = 1e-15, hermitian: bool = False, name=None):
    """Moore-Penrose pseudo-inverse [..., N, M] of x [..., M, N]."""
    return call("pinv", x, rcond=float(rcond), hermitian=bool(hermitian))


def det(x, name=None):
    """Determinant of a square (batched) matrix."""
    return call("det", x)


def slogdet(x, name=None):
    """Sign and log|det| of a square (batched) matrix, stacked: shape [2, *batch]."""
    return call("slogdet", x)


def solve(x, y, left: bool = True, name=None):
    """Solution of x @ out = y; x [..., M, M], y [..., M, K] or [M]. With left=False
    (Paddle 3.x) the solution of out @ x = y, y [..., K, M]."""
    if left:
        return call("solve", x, y)
    _check_tensor("solve", "x", x)
    _check_tensor("solve", "y", y)
    if y.ndim < 2:
        raise ValueError(f"solve: left=False needs y with at least 2 dims, got shape "
                         f"{list(y.shape)}")
    return _mt(call("solve", _mt(x), _mt(y)))


def _mt(t):
    """t with its last two dims swapped."""
    perm = list(range(t.ndim))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return call("transpose", t, perm=perm)


def triangular_solve(x, y, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, name=None):
    """Solution of op(T) @ out = y with T the upper/lower triangle of x."""
    return call("triangular_solve", x, y, upper=bool(upper), transpose=bool(transpose),
                unitriangular=bool(unitriangular))


def cholesky_solve(x, y, upper: bool = False, name=None):
    """Solve A @ out = x given the Cholesky factor y of A (lower, or upper if `upper`)."""
    if upper:   # A = U^T U
        z = triangular_solve(y, x, upper=True, transpose=True)
        return triangular_solve(y, z, upper=True, transpose=False)
    z = triangular_solve(y, x, upper=False, transpose=False)   # A = L L^T
    return triangular_solve(y, z, upper=False, transpose=True)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """Least squares: (solution, residuals, rank, singular_values); see OpDef lstsq."""
    return call("lstsq", x, y, rcond=None if rcond is None else float(rcond),
                driver=driver or "gelsy")


def matrix_rank(x, tol=None, hermitian: bool = False, atol=None, rtol=None, name=None):
    """Rank of (batched) x: singular values above tol (default max(M,N)*eps*max(s)); or, with
    Paddle 3.x's atol/rtol (not with tol), above max(atol, rtol * max(s)), a missing one 0."""
    if isinstance(tol, Tensor):
        tol = float(tol)
    if atol is None and rtol is None:
        return call("matrix_rank", x, tol=None if tol is None else float(tol),
                    hermitian=bool(hermitian))
    if tol is not None:
        raise ValueError(f"matrix_rank: use tol alone or atol/rtol without tol, got tol={tol}, "
                         f"atol={atol}, rtol={rtol}")
    _check_tensor("matrix_rank", "x", x)
    if hermitian:
        s = call("abs", eigvalsh(x))
    else:
        s = call("svd", x, full_matrices=False)[1]
    smax = call("max", s, axis=[-1], keepdim=True)
    limit = call("scale", smax, scale=0.0 if rtol is None else float(rtol), bias=0.0)
    if atol is not None:
        limit = call("maximum", limit, call("full_like", smax, fill_value=float(atol),
                                            dtype=None))
    return call("sum", call("cast", call("greater_than", s, limit), dtype="int64"),
                axis=[-1], keepdim=False)


def lu(x, pivot: bool = True, get_infos: bool = False, name=None):
    """LU factorization: (LU, pivots) or (LU, pivots, infos) when get_infos."""
    lu_, piv, info = call("lu", x, pivot=bool(pivot))
    return (lu_, piv, info) if get_infos else (lu_, piv)


def lu_unpack(x, y, unpack_ludata: bool = True, unpack_pivots: bool = True, name=None):
    """Unpack lu's (LU, pivots) into (P, L, U) with P @ L @ U = the factored matrix."""
    return call("lu_unpack", x, y, unpack_ludata=bool(unpack_ludata),
                unpack_pivots=bool(unpack_pivots))


def _select(n: int, idx: list, dtype) -> np.ndarray:
    """Constant [n, len(idx)] matrix whose columns pick `idx` (x @ sel == x[..., idx])."""
    return wrap(np.ascontiguousarray(np.eye(n, dtype=dtype.np)[:, idx]))


class _ShapeError(AssertionError, ValueError):
    """Paddle asserts these shapes (AssertionError); a ValueError by sampan's rule too."""


def householder_product(x, tau, name=None):
    """First N columns of the product H_0 H_1 ... H_{K-1} of Householder reflectors
    H_i = I - tau_i v_i v_i^T, where v_i is column i of x [..., M, N] below the diagonal
    with an implicit 1 on it (the LAPACK 'orgqr' convention); tau is [..., K]."""
    _check_tensor("householder_product", "x", x)
    _check_tensor("householder_product", "tau", tau)
    for arg, t in (("x", x), ("tau", tau)):
        if t.dtype.name not in ("float32", "float64", "complex64", "complex128"):
            raise TypeError(f"householder_product: {arg} must be float32, float64, complex64 "
                            f"or complex128, got {t.dtype.name}")
    if x.ndim < 2 or tau.ndim < 1 or x.ndim != tau.ndim + 1 or \
            x.shape[-2] < x.shape[-1] or tau.shape[-1] > x.shape[-1] or \
            list(tau.shape[:-1]) != list(x.shape[:-2]):
        raise _ShapeError(f"householder_product: need x [..., M, N] with M >= N and tau "
                          f"[..., K] with K <= N and the same batch dims, got shapes "
                          f"{list(x.shape)} and {list(tau.shape)}")
    m, n = x.shape[-2:]
    k = tau.shape[-1]
    dt = x.dtype
    q = None
    for i in range(k):
        below = np.zeros(m, dtype=dt.np)
        below[i + 1:] = 1
        unit = np.zeros(m, dtype=dt.np)
        unit[i] = 1
        col = call("einsum", [x, _select(n, [i], dt)], equation="...mn,nk->...m")
        v = col * below + unit
        t = call("einsum", [tau, _select(k, [i], dt)], equation="...k,kj->...")
        vvt = call("einsum", [v, v], equation="...i,...j->...ij")
        h = np.eye(m, dtype=dt.np) - call("reshape", t, shape=list(t.shape) + [1, 1]) * vvt
        q = h if q is None else matmul(q, h)
    if q is None:  # no reflectors: the identity's first N columns
        return call("expand_as", np.eye(m, n, dtype=dt.np), x)
    return matmul(q, _select(m, list(range(n)), dt))


def pca_lowrank(x, q=None, center: bool = True, niter: int = 2, name=None):
    """Principal components of x [..., M, N]: (U [..., M, q], S [..., q], V [..., N, q]).

    NOTE: computed with an exact SVD (Paddle uses a randomized one; `niter` is accepted
    and ignored), so results agree with Paddle's up to the signs of singular vectors.
    """
    require_tensor("pca_lowrank", "x", x)
    if isinstance(niter, bool) or not isinstance(niter, int) or niter < 0:
        raise ValueError(f"pca_lowrank: niter must be a non-negative int, got {niter!r}")
    m, n = x.shape[-2:]
    q = min(6, m, n) if q is None else int(q)
    if not 0 <= q <= min(m, n):
        raise ValueError(f"pca_lowrank: q must be in [0, min(M, N)] = [0, {min(m, n)}], "
                         f"got {q}")
    if center:
        mean = call("sum", x, axis=-2, keepdim=True, dtype=None) / float(m)
        x = x - mean
    u, s, vh = svd(x)
    k = min(m, n)
    sel = _select(k, list(range(q)), x.dtype)
    return (matmul(u, sel), call("einsum", [s, sel], equation="...k,kq->...q"),
            matmul(vh, sel, transpose_x=True))

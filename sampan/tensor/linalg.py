"""Public linalg functions (paddle.matmul, paddle.linalg.*): Paddle signatures over dispatch.

Products, einsum, norms, decompositions and solvers; composites (mm, bmm, dot, inner,
outer, dist, cov, corrcoef, cond, matrix_power, multi_dot, cholesky_solve, ...) are plain
sampan code over the primitives in ops/linalg.py and ops/linalg_decomp.py.
"""
from __future__ import annotations

import math
import string

import numpy as np

from ..framework.tensor import Tensor, wrap
from ..ops.dispatch import call, dispatch
from ..ops.linalg import mT, parse_einsum
from ..ops.opdef import REGISTRY, norm_axis

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "inner", "outer", "einsum", "norm", "dist",
           "cross", "cholesky", "qr", "svd", "eig", "eigh", "eigvals", "eigvalsh", "inverse",
           "pinv", "det", "slogdet", "solve", "triangular_solve", "cholesky_solve", "lstsq",
           "matrix_power", "matrix_rank", "multi_dot", "cond", "cov", "corrcoef", "lu",
           "lu_unpack", "cdist", "householder_product", "pca_lowrank"]

_MATMUL = REGISTRY["matmul"]
_NO_T: dict = {}  # defaults (no transposes): dispatch skips keyword passing


def _ndim(x) -> int:
    return len(x.shape) if hasattr(x, "shape") else np.ndim(x)


def _check_tensor(api: str, arg: str, x) -> None:
    if not hasattr(x, "shape"):
        raise TypeError(f"{api}: {arg} must be a Tensor, got {type(x).__name__}")


# --- products ----------------------------------------------------------------------------

def matmul(x, y, transpose_x: bool = False, transpose_y: bool = False, name=None):
    """Matrix product with broadcasting batch dims; 1-D operands act as vectors.

    Args:
        x (Tensor): [..., M, K] (or [K]).
        y (Tensor): [..., K, N] (or [K]).
        transpose_x (bool): transpose the last two dims of x first. Default False.
        transpose_y (bool): transpose the last two dims of y first. Default False.
    Returns:
        Tensor: [..., M, N] (vector dims removed).

    Examples:
        >>> import sampan as paddle
        >>> paddle.matmul(paddle.ones([2, 3]), paddle.ones([3])).shape
        [2]
    """
    if transpose_x or transpose_y:
        return dispatch(_MATMUL, (x, y), {"transpose_x": bool(transpose_x),
                                          "transpose_y": bool(transpose_y)})
    return dispatch(_MATMUL, (x, y), _NO_T)


def mm(input, mat2, name=None):
    """Matrix product input @ mat2 (same rules as matmul)."""
    return dispatch(_MATMUL, (input, mat2), _NO_T)


def bmm(x, y, name=None):
    """Batched matrix product of x [B, M, K] and y [B, K, N] (no broadcasting)."""
    _check_tensor("bmm", "x", x)
    _check_tensor("bmm", "y", y)
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise ValueError(f"bmm: x and y must be 3-D tensors [B, M, K] and [B, K, N], got "
                         f"shapes {list(x.shape)} and {list(y.shape)}")
    if x.shape[0] != y.shape[0]:
        raise ValueError(f"bmm: the batch sizes of x (shape {list(x.shape)}) and y (shape "
                         f"{list(y.shape)}) must be equal; got {x.shape[0]} vs {y.shape[0]}")
    if x.shape[2] != y.shape[1]:
        raise ValueError(f"bmm: the last dim of x (shape {list(x.shape)}) must equal the "
                         f"second dim of y (shape {list(y.shape)}); got {x.shape[2]} vs "
                         f"{y.shape[1]}")
    return dispatch(_MATMUL, (x, y), _NO_T)


def mv(x, vec, name=None):
    """Matrix-vector product of x [M, N] and vec [N] -> [M]."""
    _check_tensor("mv", "x", x)
    _check_tensor("mv", "vec", vec)
    if len(x.shape) != 2 or len(vec.shape) != 1:
        raise ValueError(f"mv: x must be 2-D and vec 1-D, got shapes {list(x.shape)} and "
                         f"{list(vec.shape)}")
    return dispatch(_MATMUL, (x, vec), _NO_T)


def dot(x, y, name=None):
    """Inner product of 1-D x and y (0-D result), or row-wise for 2-D [B, N] inputs ([B])."""
    _check_tensor("dot", "x", x)
    _check_tensor("dot", "y", y)
    nd = len(x.shape)
    if nd not in (1, 2) or list(x.shape) != list(y.shape):
        raise ValueError(f"dot: x and y must be 1-D or 2-D tensors of the same shape, got "
                         f"{list(x.shape)} and {list(y.shape)}")
    eq = "i,i->" if nd == 1 else "bi,bi->b"
    return call("einsum", [x, y], equation=eq)


def inner(x, y, name=None):
    """Sum product over the last dims: out shape x.shape[:-1] + y.shape[:-1]."""
    nx, ny = _ndim(x), _ndim(y)
    if nx == 0 or ny == 0:
        return call("multiply", x, y)
    if x.shape[-1] != y.shape[-1]:
        raise ValueError(f"inner: the last dims of x (shape {list(x.shape)}) and y (shape "
                         f"{list(y.shape)}) must be equal; got {x.shape[-1]} vs "
                         f"{y.shape[-1]}")
    letters = string.ascii_letters.replace("z", "")
    a, b = letters[:nx - 1], letters[nx - 1:nx + ny - 2]
    return call("einsum", [x, y], equation=f"{a}z,{b}z->{a}{b}")


def outer(x, y, name=None):
    """Outer product of x and y flattened: [x.size, y.size]."""
    xf = call("reshape", x, shape=[-1])
    yf = call("reshape", y, shape=[-1])
    return call("einsum", [xf, yf], equation="i,j->ij")


def einsum(equation: str, *operands):
    """Einstein summation, e.g. einsum('bij,bjk->bik', a, b); '...' broadcasts.

    Args:
        equation (str): subscripts, explicit ('ij->ji') or implicit ('ij,jk').
        *operands (Tensor): the inputs (a single list of Tensors is accepted too).
    Returns:
        Tensor: the result.
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum: equation must be a str, got {type(equation).__name__}")
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum: at least one operand is required")
    terms, out = parse_einsum("einsum", equation, [_ndim(t) for t in operands])
    explicit = ",".join("".join(t) for t in terms) + "->" + "".join(out)
    return call("einsum", list(operands), equation=explicit)


# --- norms -------------------------------------------------------------------------------

def _pvalue(api: str, p) -> float:
    if isinstance(p, str):
        raise ValueError(f"{api}: p must be 'fro', 'nuc' or a number, got {p!r}")
    try:
        return float(p)
    except (TypeError, ValueError):
        raise TypeError(f"{api}: p must be a number, got {type(p).__name__}") from None


def _vector_norm(x, p: float, axis, keepdim: bool):
    return call("norm", x, p=p, axis=axis, keepdim=bool(keepdim))


def _svdvals_last2(x, a: int, b: int):
    """Singular values of x viewed as matrices over dims (a, b): shape [...rest, k]."""
    nd = len(x.shape)
    letters = string.ascii_letters[:nd]
    rest = "".join(letters[i] for i in range(nd) if i not in (a, b))
    moved = call("einsum", [x], equation=f"{letters}->{rest}{letters[a]}{letters[b]}")
    return svd(moved)[1]


def _keep(out, x, axes, keepdim: bool):
    if not keepdim:
        return out
    return call("reshape", out, shape=[1 if i in axes else d for i, d in enumerate(x.shape)])


def _matrix_norm(x, p, axes, keepdim: bool):
    """Matrix norms over the two dims `axes` (Paddle 3 semantics)."""
    a, b = axes
    if p in ("fro", None):
        return _vector_norm(x, 2.0, [a, b], keepdim)
    if p == "nuc" or p in (2, -2):
        s = _svdvals_last2(x, a, b)
        if p == "nuc":
            out = call("sum", s, axis=-1, keepdim=False, dtype=None)
        else:
            out = _vector_norm(s, math.inf if p == 2 else -math.inf, -1, False)
        return _keep(out, x, (a, b), keepdim)
    p = _pvalue("norm", p)
    if p in (math.inf, -math.inf):   # max/min over rows of the row sums of |x|
        return _vector_norm(_vector_norm(x, 1.0, b, True), p, a, keepdim) if keepdim else \
            _vector_norm(_vector_norm(x, 1.0, b, True), p, [a, b], False)
    if p in (1.0, -1.0):             # max/min over columns of the column sums of |x|
        inf = math.inf if p == 1 else -math.inf
        return _vector_norm(_vector_norm(x, 1.0, a, True), inf, b, keepdim) if keepdim else \
            _vector_norm(_vector_norm(x, 1.0, a, True), inf, [a, b], False)
    raise ValueError(f"norm: p={p} is not supported for matrix norms (axis with two "
                     f"dims); use 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2")


def norm(x, p="fro", axis=None, keepdim: bool = False, name=None):
    """Vector or matrix norm.

    Args:
        x (Tensor): float input.
        p (float|str): 'fro' (default), 'nuc', inf, -inf, 0, 1, 2 or any real p. With
            axis None or an int the vector p-norm is taken ('fro' = 2-norm over all dims);
            with a two-element axis, the matrix norm (Paddle 3 semantics: 2 is the largest
            singular value, inf the largest absolute row sum, ...).
        axis (int|list|tuple|None): dims to reduce. Default None (all).
        keepdim (bool): keep reduced dims as size 1. Default False.
    Returns:
        Tensor: the norm (0-D when all dims are reduced).
    """
    _check_tensor("norm", "x", x)
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = int(axis[0])
    if isinstance(axis, (list, tuple)):
        if len(axis) != 2:
            raise ValueError(f"norm: axis must be an int or a list of 1 or 2 ints, got "
                             f"{list(axis)}")
        nd = len(x.shape)
        axes = (norm_axis("norm", int(axis[0]), nd), norm_axis("norm", int(axis[1]), nd))
        if axes[0] == axes[1]:
            raise ValueError(f"norm: the two dims of axis {list(axis)} must differ")
        return _matrix_norm(x, p, axes, keepdim)
    if p == "nuc":
        if len(x.shape) != 2 or axis is not None:
            raise ValueError("norm: p='nuc' needs a matrix; pass axis=[dim0, dim1]")
        return _matrix_norm(x, p, (0, 1), keepdim)
    if p in ("fro", None):
        return _vector_norm(x, 2.0, axis, keepdim)
    return _vector_norm(x, _pvalue("norm", p), axis, keepdim)


def dist(x, y, p=2, name=None):
    """p-norm of x - y (broadcast) over all elements; 0-D result."""
    return _vector_norm(call("subtract", x, y), _pvalue("dist", p), None, False)


def cross(x, y, axis: int = 9, name=None):
    """Cross product of 3-vectors along `axis` (default: the first dim of size 3)."""
    _check_tensor("cross", "x", x)
    if axis == 9 or axis is None:
        found = [i for i, d in enumerate(x.shape) if d == 3]
        if not found:
            raise ValueError(f"cross: x (shape {list(x.shape)}) has no dim of size 3; pass "
                             f"axis explicitly")
        axis = found[0]
    return call("cross", x, y, axis=int(axis))


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


def solve(x, y, name=None):
    """Solution of x @ out = y; x [..., M, M], y [..., M, K] or [M]."""
    return call("solve", x, y)


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


def matrix_rank(x, tol=None, hermitian: bool = False, name=None):
    """Rank of (batched) x: singular values above tol (default max(M,N)*eps*max(s))."""
    if isinstance(tol, Tensor):
        tol = float(tol)
    return call("matrix_rank", x, tol=None if tol is None else float(tol),
                hermitian=bool(hermitian))


def lu(x, pivot: bool = True, get_infos: bool = False, name=None):
    """LU factorization: (LU, pivots) or (LU, pivots, infos) when get_infos."""
    lu_, piv, info = call("lu", x, pivot=bool(pivot))
    return (lu_, piv, info) if get_infos else (lu_, piv)


def lu_unpack(x, y, unpack_ludata: bool = True, unpack_pivots: bool = True, name=None):
    """Unpack lu's (LU, pivots) into (P, L, U) with P @ L @ U = the factored matrix."""
    return call("lu_unpack", x, y, unpack_ludata=bool(unpack_ludata),
                unpack_pivots=bool(unpack_pivots))


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
        wt = call("cast", wt, dtype=dtype)
        w = wt if w is None else w * wt
    if w is None:
        avg = call("sum", xm, axis=1, keepdim=True, dtype=None) / float(n_obs)
        fact = float(n_obs - (1 if ddof else 0))
        xc = xm - avg
        c = matmul(xc, xc, transpose_y=True) / fact
    else:
        w_sum = call("sum", w, axis=None, keepdim=False, dtype=None)
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
    """Pearson correlation coefficients of the variables in x (see cov)."""
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


def _select(n: int, idx: list, dtype) -> np.ndarray:
    """Constant [n, len(idx)] matrix whose columns pick `idx` (x @ sel == x[..., idx])."""
    return wrap(np.ascontiguousarray(np.eye(n, dtype=dtype.np)[:, idx]))


def householder_product(x, tau, name=None):
    """First N columns of the product H_0 H_1 ... H_{K-1} of Householder reflectors
    H_i = I - tau_i v_i v_i^T, where v_i is column i of x [..., M, N] below the diagonal
    with an implicit 1 on it (the LAPACK 'orgqr' convention); tau is [..., K]."""
    _check_tensor("householder_product", "x", x)
    _check_tensor("householder_product", "tau", tau)
    m, n = x.shape[-2:]
    k = tau.shape[-1]
    if m < n or k > n or list(tau.shape[:-1]) != list(x.shape[:-2]):
        raise ValueError(f"householder_product: need x [..., M, N] with M >= N and tau "
                         f"[..., K] with K <= N and the same batch dims, got shapes "
                         f"{list(x.shape)} and {list(tau.shape)}")
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
    _check_tensor("pca_lowrank", "x", x)
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

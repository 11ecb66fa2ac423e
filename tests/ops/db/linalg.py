"""Op database entries for sampan/ops/linalg.py and sampan/ops/linalg_decomp.py.

Matrix samples are well conditioned (diagonally shifted), with distinct singular values /
eigenvalues where the gradient needs them. Symmetric-input ops (cholesky, eigh, hermitian
pinv) are tested through a wrapper that symmetrizes the input, so finite differences see the
same function whichever triangle the kernel reads.
"""
import math

import numpy as np
import scipy.linalg

import sampan as paddle
import sampan.linalg as L
from sampan.ops.linalg import mT
from tests.ops.op_db import OpEntry, Sample


def _r(rng, dtype, *shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(dtype)


def _away(rng, dtype, *shape):
    """Values with |x| in [0.5, 1.5] and random signs (away from the kinks of |x|)."""
    mag = rng.uniform(0.5, 1.5, shape)
    return (mag * rng.choice([-1.0, 1.0], shape)).astype(dtype)


def _wellcond(rng, dtype, *shape):
    n = shape[-1]
    return (rng.uniform(-1, 1, shape) + 3 * np.eye(n)).astype(dtype)


def _spd(rng, dtype, *shape):
    b = rng.uniform(-1, 1, shape)
    return (b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _sym_np(a):
    return (a + np.swapaxes(a, -1, -2)) / 2


def _sym(a):
    return (a + mT(a)) * 0.5


# --- products ----------------------------------------------------------------------------

def _matmul_ref(x, y, transpose_x=False, transpose_y=False):
    if transpose_x and x.ndim >= 2:
        x = np.swapaxes(x, -1, -2)
    if transpose_y and y.ndim >= 2:
        y = np.swapaxes(y, -1, -2)
    return np.matmul(x, y)


def _matmul_samples(rng, dt):
    r = lambda *s: _r(rng, dt, *s)  # noqa: E731
    return [Sample((r(3, 4), r(4, 2)), name="2d"),
            Sample((r(4), r(4, 2)), name="1d-2d"),
            Sample((r(3, 4), r(4)), name="2d-1d"),
            Sample((r(4), r(4)), name="1d-1d"),
            Sample((r(2, 1, 2, 3), r(3, 3, 2)), name="batch-broadcast"),
            Sample((r(2, 3, 4), r(4)), name="batch-1d"),
            Sample((r(4), r(2, 4, 3)), name="1d-batch"),
            Sample((r(4, 3), r(4, 2)), {"transpose_x": True}, name="tx"),
            Sample((r(3, 4), r(2, 4)), {"transpose_y": True}, name="ty"),
            Sample((r(2, 4, 3), r(2, 4)), {"transpose_x": True, "transpose_y": True},
                   name="txty"),
            Sample((r(4), r(2, 4)), {"transpose_x": True, "transpose_y": True},
                   name="1d-ty"),
            Sample((r(4, 3).T, r(2, 4).T), name="non-contiguous"),
            Sample((r(0, 3), r(3, 2)), name="empty"),
            Sample((r(2, 0), r(0, 3)), name="empty-k")]


def _mm_samples(rng, dt):
    return [Sample((_r(rng, dt, 3, 4), _r(rng, dt, 4, 2))),
            Sample((_r(rng, dt, 2, 3, 4), _r(rng, dt, 4, 2)), name="broadcast")]


def _bmm_samples(rng, dt):
    return [Sample((_r(rng, dt, 2, 3, 4), _r(rng, dt, 2, 4, 2)))]


def _mv_samples(rng, dt):
    return [Sample((_r(rng, dt, 3, 4), _r(rng, dt, 4)))]


def _dot_samples(rng, dt):
    return [Sample((_r(rng, dt, 5), _r(rng, dt, 5)), name="1d"),
            Sample((_r(rng, dt, 3, 4), _r(rng, dt, 3, 4)), name="2d")]


def _inner_samples(rng, dt):
    return [Sample((_r(rng, dt, 4), _r(rng, dt, 4)), name="1d"),
            Sample((_r(rng, dt, 2, 3), _r(rng, dt, 4, 3)), name="2d"),
            Sample((_r(rng, dt, 2, 2, 3), _r(rng, dt, 3)), name="3d-1d"),
            Sample((_r(rng, dt), _r(rng, dt, 3)), name="0d")]


def _outer_samples(rng, dt):
    return [Sample((_r(rng, dt, 3), _r(rng, dt, 4))),
            Sample((_r(rng, dt, 2, 2), _r(rng, dt, 3)), name="flattened")]


def _einsum(*ops, equation):
    return paddle.einsum(equation, *ops)


def _einsum_ref(*ops, equation):
    return np.einsum(equation, *ops)


def _einsum_samples(rng, dt):
    r = lambda *s: _r(rng, dt, *s)  # noqa: E731
    cases = [("ij,jk->ik", (3, 4), (4, 2)), ("ij,jk", (3, 4), (4, 2)),
             ("ii->i", (3, 3)), ("ii", (3, 3)), ("ij->ji", (2, 3)), ("ij->", (2, 3)),
             ("ij->j", (2, 3)), ("bij,bjk->bik", (2, 2, 3), (2, 3, 2)),
             ("...ij,...jk->...ik", (2, 2, 3), (3, 2)), ("...ij,...jk", (1, 2, 3), (2, 3, 2)),
             ("i,j->ij", (3,), (4,)), ("i,i", (4,), (4,)), ("...i,i->...", (2, 3), (3,)),
             ("i...->...", (2, 3)), ("ij,j->i", (3, 1), (4,)), ("iij->j", (2, 2, 3)),
             ("ijk,kj->i", (2, 3, 2), (2, 3)), ("ij,ij,ij->i", (2, 3), (2, 3), (2, 3)),
             ("i,->i", (3,), ()), ("ij,jk->ik", (0, 2), (2, 3))]
    out = []
    for eq, *shapes in cases:
        out.append(Sample(tuple(r(*s) for s in shapes), {"equation": eq}, name=eq))
    return out


# --- norms -------------------------------------------------------------------------------

def _norm_ref(x, p="fro", axis=None, keepdim=False):
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        out = np.linalg.norm(x, ord=p, axis=tuple(axis), keepdims=keepdim)
        return np.asarray(out, dtype=x.dtype)
    q = 2 if p == "fro" else p
    a = np.abs(x)
    ax = tuple(range(x.ndim)) if axis is None else tuple(np.atleast_1d(axis))
    if q == math.inf:
        out = np.max(a, axis=ax, keepdims=keepdim)
    elif q == -math.inf:
        out = np.min(a, axis=ax, keepdims=keepdim)
    elif q == 0:
        out = np.sum(a != 0, axis=ax, keepdims=keepdim)
    else:
        out = np.sum(a ** q, axis=ax, keepdims=keepdim) ** (1.0 / q)
    return np.asarray(out, dtype=x.dtype)


def _norm_samples(rng, dt):
    x = lambda *s: _away(rng, dt, *s)  # noqa: E731
    return [Sample((x(3, 4),), name="fro-all"),
            Sample((x(2, 3, 2),), {"p": 2, "axis": -1}, name="p2-axis"),
            Sample((x(2, 3),), {"p": 1, "axis": 1, "keepdim": True}, name="p1-keepdim"),
            Sample((x(2, 3),), {"p": 3, "axis": 0}, name="p3"),
            Sample((x(2, 3),), {"p": 0.5, "axis": [1]}, name="p0.5"),
            Sample((x(2, 3),), {"p": math.inf, "axis": 1}, name="inf"),
            Sample((x(2, 3),), {"p": -math.inf, "axis": 1}, name="-inf"),
            Sample((x(2, 3),), {"p": 0, "axis": 1}, name="p0"),
            Sample((x(2, 3, 2),), {"p": "fro", "axis": [0, 2]}, name="fro-2axes"),
            Sample((x(),), name="0-d"),
            Sample((x(4, 3).T,), {"p": 2, "axis": 0}, name="non-contiguous")]


def _matrix_norm_samples(rng, dt):
    x = lambda *s: _wellcond(rng, dt, *s)  # noqa: E731
    out = []
    for p in (math.inf, -math.inf, 1, -1, 2, -2):
        out.append(Sample((x(3, 3),), {"p": p, "axis": [0, 1]}, name=f"p{p}"))
    out.append(Sample((x(3, 3),), {"p": 1, "axis": [-2, -1], "keepdim": True},
                      name="keepdim"))
    return out


def _nuc_samples(rng, dt):
    return [Sample((_wellcond(rng, dt, 3, 3),), {"p": "nuc", "axis": [0, 1]}),
            Sample((_r(rng, dt, 3, 2),), {"p": "nuc", "axis": [0, 1]}, name="rect"),
            Sample((_wellcond(rng, dt, 2, 3, 3),), {"p": 2, "axis": [1, 2]}, name="batch-p2")]


def _dist_ref(x, y, p=2):
    return _norm_ref(np.asarray(x - y, dtype=np.result_type(x, y)), p)


def _dist_samples(rng, dt):
    return [Sample((_r(rng, dt, 3, 4), _r(rng, dt, 3, 4) + 3)),
            Sample((_r(rng, dt, 2, 3), _r(rng, dt, 3) + 3), {"p": 1}, name="p1-broadcast"),
            Sample((_r(rng, dt, 2, 3), _r(rng, dt, 3) + 3), {"p": math.inf}, name="inf"),
            Sample((_r(rng, dt, 4), _r(rng, dt, 4) + 3), {"p": 3.5}, name="p3.5")]


def _cross_ref(x, y, axis=9):
    if axis == 9:
        axis = [i for i, d in enumerate(np.broadcast_shapes(x.shape, y.shape)) if d == 3][0]
    return np.cross(x, y, axis=axis)


def _cross_samples(rng, dt):
    return [Sample((_r(rng, dt, 4, 3), _r(rng, dt, 4, 3)), name="default-axis"),
            Sample((_r(rng, dt, 3, 2), _r(rng, dt, 3, 2)), {"axis": 0}, name="axis0"),
            Sample((_r(rng, dt, 2, 3), _r(rng, dt, 3)), {"axis": -1}, name="broadcast")]


# --- decompositions ----------------------------------------------------------------------

def _cholesky(x, upper=False):
    return L.cholesky(_sym(x), upper=upper)


def _cholesky_ref(x, upper=False):
    low = np.linalg.cholesky(_sym_np(x))
    return np.swapaxes(low, -1, -2) if upper else low


def _spd_samples(rng, dt):
    return [Sample((_spd(rng, dt, 3, 3),)),
            Sample((_spd(rng, dt, 2, 3, 3),), name="batch"),
            Sample((_spd(rng, dt, 3, 3),), {"upper": True}, name="upper")]


def _qr_samples(rng, dt):
    return [Sample((_wellcond(rng, dt, 3, 3),), name="square"),
            Sample((_r(rng, dt, 4, 3),), name="tall"),
            Sample((_r(rng, dt, 2, 4),), name="wide"),
            Sample((_r(rng, dt, 2, 3, 2),), name="batch"),
            Sample((_r(rng, dt, 2, 3),), {"mode": "complete"}, name="complete-wide"),
            Sample((_r(rng, dt, 3, 3),), {"mode": "complete"}, name="complete-square")]


def _qr_ref(x, mode="reduced"):
    return tuple(np.linalg.qr(x, mode=mode))


def _svd_samples(rng, dt):
    return [Sample((_r(rng, dt, 3, 3),), name="square"),
            Sample((_r(rng, dt, 4, 3),), name="tall"),
            Sample((_r(rng, dt, 2, 4),), name="wide"),
            Sample((_r(rng, dt, 2, 3, 2),), name="batch"),
            Sample((_r(rng, dt, 3, 3),), {"full_matrices": True}, name="full-square")]


def _svd_ref(x, full_matrices=False):
    return tuple(np.linalg.svd(x, full_matrices=full_matrices))


def _eigh(x, UPLO="L"):
    return L.eigh(_sym(x), UPLO=UPLO)


def _eigh_ref(x, UPLO="L"):
    return tuple(np.linalg.eigh(_sym_np(x), UPLO=UPLO))


def _sym_samples(rng, dt):
    return [Sample((_r(rng, dt, 3, 3),)),
            Sample((_r(rng, dt, 2, 3, 3),), name="batch"),
            Sample((_r(rng, dt, 3, 3),), {"UPLO": "U"}, name="upper")]


def _eig_samples(rng, dt):
    return [Sample((_r(rng, dt, 3, 3),)), Sample((_r(rng, dt, 2, 3, 3),), name="batch")]


def _eig_ref(x):
    w, v = np.linalg.eig(x)
    c = np.complex128 if x.dtype == np.float64 else np.complex64
    return w.astype(c), v.astype(c)


def _eigvals_ref(x):
    return _eig_ref(x)[0]


def _square_samples(rng, dt):
    return [Sample((_wellcond(rng, dt, 3, 3),)),
            Sample((_wellcond(rng, dt, 2, 3, 3),), name="batch"),
            Sample((_wellcond(rng, dt, 1, 1),), name="1x1"),
            Sample((np.ascontiguousarray(_wellcond(rng, dt, 3, 3)).T,), name="non-contiguous")]


def _pinv_samples(rng, dt):
    return [Sample((_r(rng, dt, 3, 2),), name="tall"),
            Sample((_r(rng, dt, 2, 3),), name="wide"),
            Sample((_wellcond(rng, dt, 2, 3, 3),), name="batch")]


def _pinv_h(x, rcond=1e-15):
    return L.pinv(_sym(x), rcond=rcond, hermitian=True)


def _pinv_h_ref(x, rcond=1e-15):
    return np.linalg.pinv(_sym_np(x), rcond=rcond, hermitian=True)


def _slogdet_ref(x):
    s, l = np.linalg.slogdet(x)
    return np.stack([s, l]).astype(x.dtype)


def _solve_samples(rng, dt):
    a = lambda *s: _wellcond(rng, dt, *s)  # noqa: E731
    r = lambda *s: _r(rng, dt, *s)  # noqa: E731
    return [Sample((a(3, 3), r(3, 2)), name="matrix"),
            Sample((a(3, 3), r(3)), name="vector"),
            Sample((a(2, 3, 3), r(3)), name="batch-vector"),
            Sample((a(2, 3, 3), r(3, 1)), name="broadcast-y"),
            Sample((a(3, 3), r(2, 3, 2)), name="broadcast-x")]


def _tri_ref(x, y, upper=True, transpose=False, unitriangular=False):
    t = np.triu(x) if upper else np.tril(x)
    if unitriangular:
        n = x.shape[-1]
        t = t * (1 - np.eye(n)) + np.eye(n)
    if transpose:
        t = np.swapaxes(t, -1, -2)
    return np.linalg.solve(t, y).astype(np.result_type(x, y))


def _tri_samples(rng, dt):
    a = lambda *s: _wellcond(rng, dt, *s)  # noqa: E731
    r = lambda *s: _r(rng, dt, *s)  # noqa: E731
    return [Sample((a(3, 3), r(3, 2)), name="upper"),
            Sample((a(3, 3), r(3, 2)), {"upper": False}, name="lower"),
            Sample((a(3, 3), r(3, 2)), {"transpose": True}, name="transpose"),
            Sample((a(3, 3), r(3, 2)), {"upper": False, "transpose": True,
                                        "unitriangular": True}, name="lower-t-unit"),
            Sample((a(3, 3), r(3, 2)), {"unitriangular": True}, name="unit"),
            Sample((a(2, 3, 3), r(3, 1)), name="batch-broadcast")]


def _chol_solve_ref(x, y, upper=False):
    a = np.swapaxes(y, -1, -2) @ y if upper else y @ np.swapaxes(y, -1, -2)
    return np.linalg.solve(a, x)


def _chol_solve_samples(rng, dt):
    low = np.tril(_wellcond(rng, dt, 3, 3))
    up = np.triu(_wellcond(rng, dt, 3, 3))
    return [Sample((_r(rng, dt, 3, 2), low), name="lower"),
            Sample((_r(rng, dt, 3, 2), up), {"upper": True}, name="upper")]


def _lstsq_ref(x, y, rcond=None, driver=None):
    batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
    xb = np.broadcast_to(x, batch + x.shape[-2:]).reshape((-1,) + x.shape[-2:])
    yb = np.broadcast_to(y, batch + y.shape[-2:]).reshape((-1,) + y.shape[-2:])
    sols, ranks, svs = [], [], []
    for a, b in zip(xb, yb):
        sol, _, rank, sv = np.linalg.lstsq(a, b, rcond=rcond)
        sols.append(sol)
        ranks.append(rank)
        svs.append(sv)
    m, n, k = x.shape[-2], x.shape[-1], y.shape[-1]
    sol = np.asarray(sols, dtype=x.dtype).reshape(batch + (n, k))
    res = (np.sum((np.matmul(x, sol) - y) ** 2, axis=-2).astype(x.dtype) if m > n
           else np.zeros((0,), x.dtype))
    sv = (np.asarray(svs, dtype=x.dtype).reshape(batch + (min(m, n),))
          if driver in ("gelsd", "gelss") else np.zeros((0,), x.dtype))
    return sol, res, np.asarray(ranks, np.int32).reshape(batch), sv


def _lstsq_samples(rng, dt):
    r = lambda *s: _r(rng, dt, *s)  # noqa: E731
    return [Sample((r(4, 3), r(4, 2)), name="tall"),
            Sample((r(2, 3), r(2, 1)), {"driver": "gelsd"}, name="wide-gelsd"),
            Sample((r(2, 4, 2), r(4, 1)), {"driver": "gelss"}, name="batch")]


def _rank_samples(rng, dt):
    b = _r(rng, dt, 4, 2)
    low = (b @ _r(rng, dt, 2, 3)).astype(dt)
    return [Sample((_r(rng, dt, 3, 3),), name="full"),
            Sample((low,), name="rank2"),
            Sample((np.stack([low[:3], _r(rng, dt, 3, 3)]),), name="batch"),
            Sample((low,), {"tol": 0.5}, name="tol"),
            Sample((_sym_np(_r(rng, dt, 3, 3)),), {"hermitian": True}, name="hermitian")]


def _lu_ref(x, pivot=True):
    m, n = x.shape[-2:]
    flat = x.reshape((-1, m, n))
    lus, pivs = [], []
    for a in flat:
        lu_, piv = scipy.linalg.lu_factor(a) if m == n else _lu_rect(a)
        lus.append(lu_)
        pivs.append(piv + 1)
    k = min(m, n)
    return (np.asarray(lus, x.dtype).reshape(x.shape),
            np.asarray(pivs, np.int32).reshape(x.shape[:-2] + (k,)),
            np.zeros(x.shape[:-2], np.int32))


def _lu_rect(a):
    """Partial-pivoting LU of a rectangular matrix from scipy's P, L, U (ref only)."""
    p, low, up = scipy.linalg.lu(a)
    m, n = a.shape
    k = min(m, n)
    packed = np.zeros((m, n), a.dtype)
    packed[:, :k] += np.tril(low, -1)[:, :k]
    packed[:k, :] += up[:k]
    perm = list(np.argmax(p, axis=0))   # row j of P^T a is a[perm[j]]
    cur = list(range(m))
    piv = []
    for j in range(k):
        src = cur.index(perm[j])
        piv.append(src)
        cur[j], cur[src] = cur[src], cur[j]
    return packed, np.asarray(piv)


def _lu_samples(rng, dt):
    return [Sample((_r(rng, dt, 3, 3),), name="square"),
            Sample((_r(rng, dt, 2, 4, 4),), name="batch"),
            Sample((np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dt),), name="tall"),
            Sample((_r(rng, dt, 2, 4),), name="wide")]


def _lu_fn(x, pivot=True):
    return L.lu(x, pivot=pivot, get_infos=True)


def _lu_unpack_ref(x, y, unpack_ludata=True, unpack_pivots=True):
    m, n = x.shape[-2:]
    k = min(m, n)
    low = np.tril(x[..., :, :k], -1) + np.eye(m, k, dtype=x.dtype)
    up = np.triu(x[..., :k, :])
    flat_piv = y.reshape((-1, k)) - 1
    ps = []
    for piv in flat_piv:
        perm = list(range(m))
        for j, p in enumerate(piv):
            perm[j], perm[p] = perm[p], perm[j]
        ps.append(np.eye(m, dtype=x.dtype)[:, perm])
    return np.asarray(ps, x.dtype).reshape(x.shape[:-2] + (m, m)), low, up


def _lu_unpack_samples(rng, dt):
    out = []
    for shape in ((3, 3), (2, 4, 4), (3, 2), (2, 3)):
        lu_, piv, _ = _lu_ref(_r(rng, dt, *shape))
        out.append(Sample((lu_, piv), name=str(shape)))
    return out


# --- composites --------------------------------------------------------------------------

def _matrix_power_samples(rng, dt):
    a = _wellcond(rng, dt, 3, 3) / 3
    return [Sample((a,), {"n": 3}, name="n3"), Sample((a,), {"n": 2}, name="n2"),
            Sample((_wellcond(rng, dt, 2, 2, 2) / 3,), {"n": 5}, name="batch-n5"),
            Sample((a,), {"n": -2}, name="n-2")]


def _matrix_power_ref(x, n):
    return np.linalg.matrix_power(x, n)


def _multi_dot(*xs):
    return L.multi_dot(list(xs))


def _multi_dot_ref(*xs):
    return np.linalg.multi_dot(list(xs))


def _multi_dot_samples(rng, dt):
    r = lambda *s: _r(rng, dt, *s)  # noqa: E731
    return [Sample((r(2, 3), r(3, 4), r(4, 2)), name="three"),
            Sample((r(3), r(3, 4), r(4)), name="vectors"),
            Sample((r(2, 3), r(3, 2)), name="two")]


def _cond_ref(x, p=None):
    return np.asarray(np.linalg.cond(x, p), dtype=x.dtype)


def _cond_samples(rng, dt):
    a = lambda *s: _wellcond(rng, dt, *s)  # noqa: E731
    return [Sample((a(3, 3),), name="default"), Sample((a(2, 3, 3),), {"p": 2}, name="p2"),
            Sample((a(3, 3),), {"p": -2}, name="p-2")]


def _cond_norm_samples(rng, dt):
    a = lambda *s: _wellcond(rng, dt, *s)  # noqa: E731
    return [Sample((a(3, 3),), {"p": p}, name=str(p))
            for p in ("fro", math.inf, -math.inf, 1, -1)]


def _cov_ref(x, rowvar=True, ddof=True, fweights=None, aweights=None):
    return np.asarray(np.cov(x, rowvar=rowvar, ddof=1 if ddof else 0, fweights=fweights,
                             aweights=aweights), dtype=x.dtype)


def _cov_samples(rng, dt):
    r = lambda *s: _r(rng, dt, *s)  # noqa: E731
    return [Sample((r(3, 5),), name="rows"),
            Sample((r(5, 3),), {"rowvar": False}, name="cols"),
            Sample((r(3, 5),), {"ddof": False}, name="biased"),
            Sample((r(6),), name="1-d"),
            Sample((r(2, 4),), {"fweights": np.array([1, 2, 1, 3])}, name="fweights"),
            Sample((r(2, 4),), {"aweights": np.array([0.5, 1.0, 2.0, 1.5])},
                   name="aweights"),
            Sample((r(2, 4),), {"fweights": np.array([1, 2, 1, 3]),
                                "aweights": np.array([0.5, 1.0, 2.0, 1.5]), "ddof": False},
                   name="both-biased")]


def _cov_fn(x, **kw):
    for k in ("fweights", "aweights"):
        if kw.get(k) is not None:
            kw[k] = paddle.to_tensor(kw[k])
    return L.cov(x, **kw)


def _corrcoef_ref(x, rowvar=True):
    return np.asarray(np.corrcoef(x, rowvar=rowvar), dtype=x.dtype)


def _corrcoef_samples(rng, dt):
    return [Sample((_r(rng, dt, 3, 5),)), Sample((_r(rng, dt, 5, 2),), {"rowvar": False},
                                                 name="cols")]


def _cdist_ref(x, y, p=2.0):
    d = x[..., :, None, :] - y[..., None, :, :]
    return _norm_ref(d, p, axis=-1)


def _cdist_samples(rng, dt):
    r = lambda *s: _r(rng, dt, *s)  # noqa: E731
    return [Sample((r(3, 2), r(4, 2)), name="p2"),
            Sample((r(2, 2, 3), r(2, 3)), {"p": 1.0}, name="p1-batch"),
            Sample((r(2, 2), r(3, 2)), {"p": math.inf}, name="inf")]


def _householder_ref(x, tau):
    m, n = x.shape[-2:]
    flat_x = x.reshape((-1, m, n))
    flat_t = tau.reshape((-1, tau.shape[-1]))
    out = []
    for a, t in zip(flat_x, flat_t):
        q = np.eye(m)
        for i in range(len(t)):
            v = np.zeros(m)
            v[i] = 1
            v[i + 1:] = a[i + 1:, i]
            q = q @ (np.eye(m) - t[i] * np.outer(v, v))
        out.append(q[:, :n])
    return np.asarray(out, x.dtype).reshape(x.shape)


def _householder_samples(rng, dt):
    return [Sample((_r(rng, dt, 4, 3), _r(rng, dt, 3))),
            Sample((_r(rng, dt, 2, 3, 2), _r(rng, dt, 2, 1)), name="batch-k1")]


def _pca_ref(x, q=None, center=True):
    if center:
        x = x - x.mean(axis=-2, keepdims=True)
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    return u[..., :q], s[..., :q], np.swapaxes(vh, -1, -2)[..., :q]


def _pca_samples(rng, dt):
    return [Sample((_r(rng, dt, 5, 3),), {"q": 2}),
            Sample((_r(rng, dt, 4, 3),), {"q": 3, "center": False}, name="no-center")]


ENTRIES = [
    OpEntry("norm", paddle.cdist, _cdist_ref, _cdist_samples, name="cdist"),
    OpEntry("einsum", L.householder_product, _householder_ref, _householder_samples,
            name="householder_product"),
    OpEntry("svd", L.pca_lowrank, _pca_ref, _pca_samples, name="pca_lowrank", tol=10),
    OpEntry("matmul", paddle.matmul, _matmul_ref, _matmul_samples),
    OpEntry("matmul", paddle.mm, np.matmul, _mm_samples, name="mm"),
    OpEntry("matmul", paddle.bmm, np.matmul, _bmm_samples, name="bmm"),
    OpEntry("matmul", paddle.mv, np.matmul, _mv_samples, name="mv"),
    OpEntry("matmul", L.matrix_power, _matrix_power_ref,
            _matrix_power_samples, name="matrix_power",
            onnx=False),  # negative powers use inverse, which has no ONNX lowering
    OpEntry("matmul", _multi_dot, _multi_dot_ref, _multi_dot_samples, name="multi_dot"),
    OpEntry("matmul", _cov_fn, _cov_ref, _cov_samples, name="cov"),
    OpEntry("matmul", L.corrcoef, _corrcoef_ref, _corrcoef_samples, name="corrcoef"),
    OpEntry("einsum", _einsum, _einsum_ref, _einsum_samples),
    OpEntry("einsum", paddle.dot, lambda x, y: np.sum(x * y, axis=-1), _dot_samples,
            name="dot"),
    OpEntry("einsum", paddle.inner, np.inner, _inner_samples, name="inner"),
    OpEntry("einsum", paddle.outer, np.outer, _outer_samples, name="outer"),
    OpEntry("norm", L.norm, _norm_ref, _norm_samples),
    OpEntry("norm", L.norm, _norm_ref, _matrix_norm_samples, name="norm-matrix",
            onnx=False),  # the p=+-2 matrix norms use svd, which has no ONNX lowering
    OpEntry("svd", L.norm, _norm_ref, _nuc_samples, name="norm-nuc"),
    OpEntry("norm", paddle.dist, _dist_ref, _dist_samples, name="dist"),
    OpEntry("cross", paddle.cross, _cross_ref, _cross_samples),
    OpEntry("cholesky", _cholesky, _cholesky_ref, _spd_samples, tol=10),
    OpEntry("triangular_solve", L.cholesky_solve, _chol_solve_ref, _chol_solve_samples,
            name="cholesky_solve", tol=10),
    OpEntry("qr", L.qr, _qr_ref, _qr_samples, tol=10),
    OpEntry("svd", L.svd, _svd_ref, _svd_samples, tol=10),
    OpEntry("eigh", _eigh, _eigh_ref, _sym_samples, tol=10),
    OpEntry("eigh", lambda x, UPLO="L": L.eigvalsh(_sym(x), UPLO),
            lambda x, UPLO="L": np.linalg.eigvalsh(_sym_np(x), UPLO),
            _sym_samples, name="eigvalsh", tol=10),
    OpEntry("eig", L.eig, _eig_ref, _eig_samples, grad=False, tol=10),
    OpEntry("eigvals", L.eigvals, _eigvals_ref, _eig_samples, grad=False, tol=10),
    OpEntry("inverse", L.inv, np.linalg.inv, _square_samples, tol=10),
    OpEntry("pinv", L.pinv, np.linalg.pinv, _pinv_samples, tol=10),
    OpEntry("pinv", _pinv_h, _pinv_h_ref, lambda rng, dt: [Sample((_r(rng, dt, 3, 3),))],
            name="pinv-hermitian", tol=10),
    OpEntry("det", L.det, np.linalg.det, _square_samples, tol=10),
    OpEntry("slogdet", L.slogdet, _slogdet_ref, _square_samples, tol=10),
    OpEntry("solve", L.solve, np.linalg.solve, _solve_samples, tol=10),
    OpEntry("triangular_solve", L.triangular_solve, _tri_ref, _tri_samples, tol=10),
    OpEntry("lstsq", L.lstsq, _lstsq_ref, _lstsq_samples, grad=False, tol=100),
    OpEntry("matrix_rank", L.matrix_rank, np.linalg.matrix_rank, _rank_samples, grad=False),
    OpEntry("svd", L.cond, _cond_ref, _cond_samples, name="cond", tol=10),
    OpEntry("inverse", L.cond, _cond_ref, _cond_norm_samples, name="cond-norms", tol=10),
    OpEntry("lu", _lu_fn, _lu_ref, _lu_samples, grad=False, tol=10),
    OpEntry("lu_unpack", L.lu_unpack, _lu_unpack_ref, _lu_unpack_samples, grad=False),
]

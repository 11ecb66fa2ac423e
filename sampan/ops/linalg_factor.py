"""Forward-only linalg operators: eig/eigvals (complex results), matrix_rank, lstsq, lu and
lu_unpack. Imports `framework` and `ops` only.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from .linalg import _real
from .linalg_decomp import _float_kernel_check, _matrix
from .opdef import OpDef, TensorSpec, broadcast_shapes, register


def _complex(dtype):
    return _dt.complex128 if dtype.name in ("float64", "complex128") else _dt.complex64


@register
class Eig(OpDef):
    """Eigenvalues and eigenvectors of a general square x (always complex). No gradient."""

    name = "eig"
    outputs = ("w", "v")

    def infer(self, x):
        _matrix(self.name, x, square=True)
        c = _complex(x.dtype)
        return TensorSpec(x.shape[:-1], c), TensorSpec(x.shape, c)

    def compute(self, xp, x):
        _float_kernel_check(self.name, xp, x)
        w, v = xp.linalg.eig(x)
        c = _complex(_dt.from_numpy(x.dtype)).np
        return w.astype(c), v.astype(c)


@register
class Eigvals(OpDef):
    """Eigenvalues of a general square x (always complex). No gradient."""

    name = "eigvals"

    def infer(self, x):
        _matrix(self.name, x, square=True)
        return TensorSpec(x.shape[:-1], _complex(x.dtype))

    def compute(self, xp, x):
        _float_kernel_check(self.name, xp, x)
        return xp.linalg.eigvals(x).astype(_complex(_dt.from_numpy(x.dtype)).np)


@register
class MatrixRank(OpDef):
    """Number of singular values above `tol` (default max(M, N) * eps * max(s)). int64."""

    name = "matrix_rank"
    attrs = {"tol": None, "hermitian": False}

    def infer(self, x, tol=None, hermitian=False):
        _matrix(self.name, x, square=hermitian)
        return TensorSpec(x.shape[:-2], _dt.int64)

    def compute(self, xp, x, tol=None, hermitian=False):
        _float_kernel_check(self.name, xp, x)
        return xp.asarray(xp.linalg.matrix_rank(x, tol=tol, hermitian=hermitian),
                          dtype=xp.int64)


@register
class Lstsq(OpDef):
    """Least-squares solution of x @ out = y for x [..., M, N], y [..., M, K]: returns
    (solution [..., N, K], residuals [..., K] when M > N else empty, rank int32 [...],
    singular_values [..., min(M, N)] for drivers 'gelsd'/'gelss' else empty).
    NOTE: residuals are returned whenever M > N (Paddle also requires full rank)."""

    name = "lstsq"
    inputs = ("x", "y")
    outputs = ("solution", "residuals", "rank", "singular_values")
    attrs = {"rcond": None, "driver": "gelsy"}
    promote = True

    def infer(self, x, y, rcond=None, driver="gelsy"):
        _matrix(self.name, x)
        _matrix(self.name, y, "y")
        m, n = x.shape[-2:]
        if -1 not in (m, y.shape[-2]) and m != y.shape[-2]:
            raise ValueError(f"lstsq: x (shape {list(x.shape)}) and y (shape "
                             f"{list(y.shape)}) must have the same number of rows")
        if driver not in ("gels", "gelsy", "gelsd", "gelss"):
            raise ValueError(f"lstsq: driver must be one of 'gels', 'gelsy', 'gelsd', "
                             f"'gelss', got {driver!r}")
        batch = tuple(broadcast_shapes(self.name, x.shape[:-2], y.shape[:-2]))
        k = y.shape[-1]
        dtype = _dt.promote_types(x.dtype, y.dtype)
        res = batch + (k,) if m > n else (0,)
        sv = batch + (min(m, n),) if driver in ("gelsd", "gelss") else (0,)
        return (TensorSpec(batch + (n, k), dtype), TensorSpec(res, dtype),
                TensorSpec(batch, _dt.int32), TensorSpec(sv, _real(dtype)))

    def compute(self, xp, x, y, rcond=None, driver="gelsy"):
        _float_kernel_check(self.name, xp, x)
        spec = self.infer(*[TensorSpec(a.shape, _dt.from_numpy(a.dtype)) for a in (x, y)],
                          rcond=rcond, driver=driver)
        batch = spec[2].shape
        xb = xp.broadcast_to(x, batch + x.shape[-2:]).reshape((-1,) + x.shape[-2:])
        yb = xp.broadcast_to(y, batch + y.shape[-2:]).reshape((-1,) + y.shape[-2:])
        sols, ranks, svs = [], [], []
        for a, b in zip(xb, yb):
            sol, _, rank, sv = xp.linalg.lstsq(a, b, rcond=rcond)
            sols.append(sol)
            ranks.append(rank)
            svs.append(sv)
        n, k = x.shape[-1], y.shape[-1]
        sol = xp.asarray(sols, dtype=spec[0].dtype.np).reshape(batch + (n, k))
        if x.shape[-2] > n:
            res = xp.sum((xp.matmul(x, sol) - y) ** 2, axis=-2)
            res = xp.asarray(res, dtype=spec[1].dtype.np).reshape(spec[1].shape)
        else:
            res = xp.zeros((0,), dtype=spec[1].dtype.np)
        rank = xp.asarray(ranks, dtype=xp.int32).reshape(batch)
        if driver in ("gelsd", "gelss"):
            sv = xp.asarray(svs, dtype=spec[3].dtype.np).reshape(spec[3].shape)
        else:
            sv = xp.zeros((0,), dtype=spec[3].dtype.np)
        return sol, res, rank, sv


@register
class Lu(OpDef):
    """LU factorization with partial pivoting of x [..., M, N]: the packed LU matrix
    (unit-lower L below the diagonal, U on and above), 1-based int32 pivots [..., K] (row i
    was swapped with row pivots[i]) and int32 infos [...] (0 = success, i > 0: U[i-1, i-1]
    is exactly zero). pivot=False factorizes without row exchanges. No gradient."""

    name = "lu"
    outputs = ("lu", "pivots", "infos")
    attrs = {"pivot": True}

    def infer(self, x, pivot=True):
        _matrix(self.name, x)
        m, n = x.shape[-2:]
        k = min(m, n) if -1 not in (m, n) else -1
        batch = tuple(x.shape[:-2])
        return x, TensorSpec(batch + (k,), _dt.int32), TensorSpec(batch, _dt.int32)

    def compute(self, xp, x, pivot=True):
        _float_kernel_check(self.name, xp, x)
        m, n = x.shape[-2:]
        k = min(m, n)
        batch = x.shape[:-2]
        a = xp.array(x, copy=True).reshape((-1, m, n))
        b = a.shape[0]
        piv = xp.tile(xp.arange(1, k + 1, dtype=xp.int32), (b, 1))
        info = xp.zeros(b, dtype=xp.int32)
        rows = xp.arange(b)
        for j in range(k):
            if pivot:
                p = xp.argmax(xp.abs(a[:, j:, j]), axis=1) + j
                piv[:, j] = p + 1
                top = a[rows, j].copy()
                a[rows, j] = a[rows, p]
                a[rows, p] = top
            d = a[:, j, j]
            zero = d == 0
            info = xp.where(zero & (info == 0), j + 1, info).astype(xp.int32)
            l = a[:, j + 1:, j] / xp.where(zero, 1, d)[:, None]
            l[zero] = 0
            a[:, j + 1:, j] = l
            a[:, j + 1:, j + 1:] -= l[:, :, None] * a[:, None, j, j + 1:]
        return a.reshape(x.shape), piv.reshape(batch + (k,)), info.reshape(batch)


@register
class LuUnpack(OpDef):
    """Unpack lu's outputs into P [..., M, M], L [..., M, K], U [..., K, N] with
    x = P @ L @ U. Without `unpack_ludata` L and U are empty; without `unpack_pivots` P
    is empty. No gradient."""

    name = "lu_unpack"
    inputs = ("x", "y")
    outputs = ("p", "l", "u")
    attrs = {"unpack_ludata": True, "unpack_pivots": True}

    def infer(self, x, y, unpack_ludata=True, unpack_pivots=True):
        _matrix(self.name, x)
        m, n = x.shape[-2:]
        k = min(m, n) if -1 not in (m, n) else -1
        batch = tuple(x.shape[:-2])
        p = x.with_shape(batch + (m, m) if unpack_pivots else (0,))
        low = x.with_shape(batch + (m, k) if unpack_ludata else (0,))
        up = x.with_shape(batch + (k, n) if unpack_ludata else (0,))
        return p, low, up

    def compute(self, xp, x, y, unpack_ludata=True, unpack_pivots=True):
        m, n = x.shape[-2:]
        k = min(m, n)
        batch = x.shape[:-2]
        if unpack_ludata:
            low = xp.tril(x[..., :, :k], -1) + xp.eye(m, k, dtype=x.dtype)
            up = xp.triu(x[..., :k, :])
        else:
            low = up = xp.zeros((0,), dtype=x.dtype)
        if not unpack_pivots:
            return xp.zeros((0,), dtype=x.dtype), low, up
        piv = xp.asarray(y).reshape((-1, y.shape[-1])).astype(xp.int64) - 1
        perm = xp.tile(xp.arange(m), (piv.shape[0], 1))
        rows = xp.arange(piv.shape[0])
        for j in range(piv.shape[1]):
            p = piv[:, j]
            top = perm[rows, j].copy()
            perm[rows, j] = perm[rows, p]
            perm[rows, p] = top
        eye = xp.eye(m, dtype=x.dtype)
        pmat = xp.stack([eye[:, q] for q in perm]) if perm.shape[0] else \
            xp.zeros((0, m, m), dtype=x.dtype)
        return pmat.reshape(batch + (m, m)), low, up

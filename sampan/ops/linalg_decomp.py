"""linalg operators on square/rectangular matrices: inverse, det, solvers, decompositions.

All take batched inputs [..., M, N]. Imports `framework` and `ops` only; vjp rules are
sampan ops (constant masks and identities are built with NumPy from static shapes).
"""
from __future__ import annotations

import numpy as np  # only to build constant masks/identities inside vjp rules

from ..framework import dtype as _dt
from ..framework.tensor import wrap
from .dispatch import call
from .linalg import _real, mT, mm
from .opdef import OpDef, TensorSpec, broadcast_shapes, register


def _matrix(api: str, spec, arg: str = "x", square: bool = False) -> None:
    if spec.dtype.kind not in "fc":
        raise TypeError(f"{api}: {arg} must be a floating point tensor, got "
                        f"{spec.dtype.name}")
    if spec.ndim < 2:
        raise ValueError(f"{api}: {arg} must be a matrix or a batch of matrices "
                         f"[..., M, N], got shape {list(spec.shape)}")
    m, n = spec.shape[-2:]
    if square and m != n and -1 not in (m, n):
        raise ValueError(f"{api}: {arg} must be a square matrix (or a batch of them), got "
                         f"shape {list(spec.shape)}")


def _float_kernel_check(api: str, xp, x) -> None:
    if x.dtype.kind not in "fc":
        raise TypeError(f"{api}: x must be a floating point tensor, got {x.dtype}")


def _singular(api: str, err, x) -> ValueError:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:  # not a singularity: let infer explain
        return ValueError(str(err))
    return ValueError(f"{api}: the input matrix is singular (not invertible) ({err})")


def _eye(n: int, dtype) -> np.ndarray:
    return np.eye(n, dtype=dtype.np)


def _tri_mask(n: int, dtype, upper: bool, diag: float = 1.0) -> np.ndarray:
    """Constant mask of the upper or lower triangle with `diag` on the diagonal."""
    mask = np.triu(np.ones((n, n))) if upper else np.tril(np.ones((n, n)))
    np.fill_diagonal(mask, diag)
    return mask.astype(dtype.np)


def _col(t):
    """[..., k] -> [..., k, 1]."""
    return call("reshape", t, shape=list(t.shape) + [1])


def _row(t):
    """[..., k] -> [..., 1, k]."""
    return call("reshape", t, shape=list(t.shape[:-1]) + [1, t.shape[-1]])


# --- inverse, determinants ---------------------------------------------------------------

@register
class Inverse(OpDef):
    """out = x^-1 for square (batched) x; a singular x raises ValueError."""

    name = "inverse"
    saves = ("out",)

    def infer(self, x):
        _matrix(self.name, x, square=True)
        return x

    def compute(self, xp, x):
        _float_kernel_check(self.name, xp, x)
        try:
            return xp.linalg.inv(x)
        except xp.linalg.LinAlgError as err:
            raise _singular(self.name, err, x) from None

    def vjp(self, ctx, g):
        out = ctx.out
        return (-mm(mm(out, g, tx=True, ty=False),
                      out, tx=False, ty=True),)


def _batch_shape(g):
    return list(g.shape) + [1, 1]


@register
class Det(OpDef):
    """Determinant of square (batched) x; out has the batch shape."""

    name = "det"
    saves = ("x", "out")

    def infer(self, x):
        _matrix(self.name, x, square=True)
        return x.with_shape(x.shape[:-2])

    def compute(self, xp, x):
        _float_kernel_check(self.name, xp, x)
        return xp.linalg.det(x)

    def vjp(self, ctx, g):
        scale = call("reshape", g * ctx.out, shape=_batch_shape(g))
        return (scale * mT(call("inverse", ctx.x)),)


@register
class Slogdet(OpDef):
    """Sign and log|det| of square (batched) x, stacked as out[0], out[1] of shape
    [2, *batch] (Paddle 2.x layout). Only log|det| carries a gradient."""

    name = "slogdet"
    saves = ("x",)

    def infer(self, x):
        _matrix(self.name, x, square=True)
        return x.with_shape((2,) + tuple(x.shape[:-2]))

    def compute(self, xp, x):
        _float_kernel_check(self.name, xp, x)
        sign, logdet = xp.linalg.slogdet(x)
        return xp.stack([sign.astype(logdet.dtype), logdet])

    def vjp(self, ctx, g):
        pick = wrap(np.array([0.0, 1.0], dtype=g.dtype.np))
        g_log = call("einsum", [g, pick], equation="i...,i->...")
        scale = call("reshape", g_log, shape=_batch_shape(g_log))
        return (scale * mT(call("inverse", ctx.x)),)


# --- solvers -----------------------------------------------------------------------------

def _solve_shapes(api, x, y):
    _matrix(api, x, square=True)
    if y.ndim == 1:
        if -1 not in (x.shape[-1], y.shape[0]) and x.shape[-1] != y.shape[0]:
            raise ValueError(f"{api}: x (shape {list(x.shape)}) and y (shape "
                             f"{list(y.shape)}) do not match; y must have "
                             f"{x.shape[-1]} rows")
        return tuple(x.shape[:-1])
    if y.ndim < 1:
        raise ValueError(f"{api}: y must be at least 1-D, got shape {list(y.shape)}")
    if -1 not in (x.shape[-1], y.shape[-2]) and x.shape[-1] != y.shape[-2]:
        raise ValueError(f"{api}: x (shape {list(x.shape)}) and y (shape {list(y.shape)}) "
                         f"do not match; y must have {x.shape[-1]} rows, got {y.shape[-2]}")
    batch = broadcast_shapes(api, x.shape[:-2], y.shape[:-2])
    return tuple(batch) + tuple(y.shape[-2:])


@register
class Solve(OpDef):
    """out = x^-1 y: x [..., M, M], y [..., M, K] (batch dims broadcast) or a vector [M].
    A singular x raises ValueError."""

    name = "solve"
    inputs = ("x", "y")
    saves = ("x", "out")
    promote = True

    def infer(self, x, y):
        return TensorSpec(_solve_shapes(self.name, x, y), _dt.promote_types(x.dtype, y.dtype))

    def compute(self, xp, x, y):
        _float_kernel_check(self.name, xp, x)
        try:
            return xp.linalg.solve(x, y)
        except xp.linalg.LinAlgError as err:
            raise _singular(self.name, err, x) from None
        except ValueError as err:  # NumPy's "solve: ..." would hide infer's explanation
            raise ValueError(f"incompatible shapes ({err})") from None

    def vjp(self, ctx, g):
        out = ctx.out
        vec = out.ndim == ctx.x.ndim - 1  # y was a vector [M]
        if vec:
            g, out = _col(g), _col(out)
        gy = call("solve", mT(ctx.x), g)
        gx = -mm(gy, out, tx=False, ty=True) \
            if ctx.needs[0] else None
        if vec:
            gy = call("reshape", gy, shape=list(gy.shape[:-1]))
        return gx, gy if ctx.needs[1] else None


@register
class TriangularSolve(OpDef):
    """out = op(T)^-1 y where T is the upper (or lower) triangle of x, with a unit diagonal
    when `unitriangular`, and op transposes when `transpose`. x [..., M, M], y [..., M, K];
    batch dims broadcast."""

    name = "triangular_solve"
    inputs = ("x", "y")
    attrs = {"upper": True, "transpose": False, "unitriangular": False}
    saves = ("x", "out")
    promote = True

    def infer(self, x, y, upper=True, transpose=False, unitriangular=False):
        if y.ndim < 2:
            raise ValueError(f"{self.name}: y must be a matrix [..., M, K], got shape "
                             f"{list(y.shape)}")
        return TensorSpec(_solve_shapes(self.name, x, y), _dt.promote_types(x.dtype, y.dtype))

    def compute(self, xp, x, y, upper=True, transpose=False, unitriangular=False):
        _float_kernel_check(self.name, xp, x)
        if y.ndim < 2:
            raise ValueError("y is not a matrix")  # infer explains, naming the op
        t = xp.triu(x) if upper else xp.tril(x)
        if unitriangular:
            n = x.shape[-1]
            t = t * (1 - xp.eye(n, dtype=x.dtype)) + xp.eye(n, dtype=x.dtype)
        if transpose:
            t = xp.swapaxes(t, -1, -2)
        try:
            return xp.linalg.solve(t, y)
        except xp.linalg.LinAlgError as err:
            raise _singular(self.name, err, x) from None
        except ValueError as err:  # NumPy's "solve: ..." would hide infer's explanation
            raise ValueError(f"incompatible shapes ({err})") from None

    def vjp(self, ctx, g):
        upper, trans, unit = ctx.upper, ctx.transpose, ctx.unitriangular
        gy = call("triangular_solve", ctx.x, g, upper=upper, transpose=not trans,
                  unitriangular=unit)
        gx = None
        if ctx.needs[0]:
            if trans:  # A = T^T: dT = (dA)^T = -out gy^T
                gt = mm(ctx.out, gy, tx=False, ty=True)
            else:      # dT = -gy out^T
                gt = mm(gy, ctx.out, tx=False, ty=True)
            n = ctx.x.shape[-1]
            gx = -gt * _tri_mask(n, ctx.x.dtype, upper, 0.0 if unit else 1.0)
        return gx, gy if ctx.needs[1] else None


# --- decompositions ----------------------------------------------------------------------

@register
class Cholesky(OpDef):
    """Cholesky factor of a symmetric positive definite (batched) x: lower L with x = L L^T,
    or upper U = L^T with x = U^T U when `upper`. Only x's lower triangle is read."""

    name = "cholesky"
    attrs = {"upper": False}
    saves = ("out",)

    def infer(self, x, upper=False):
        _matrix(self.name, x, square=True)
        return x

    def compute(self, xp, x, upper=False):
        _float_kernel_check(self.name, xp, x)
        try:
            low = xp.linalg.cholesky(x)
        except xp.linalg.LinAlgError as err:
            if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
                raise ValueError(str(err)) from None
            raise ValueError(f"cholesky: x must be symmetric positive definite ({err})") \
                from None
        return xp.swapaxes(low, -1, -2).conj() if upper else low

    def vjp(self, ctx, g):
        low, gl = (mT(ctx.out), mT(g)) if ctx.upper else (ctx.out, g)
        n = low.shape[-1]
        phi = mm(low, gl, tx=True, ty=False) * \
            _tri_mask(n, low.dtype, upper=False, diag=0.5)
        left = call("triangular_solve", low, phi, upper=False, transpose=True,
                    unitriangular=False)
        s = mT(call("triangular_solve", low, mT(left), upper=False, transpose=True,
                    unitriangular=False))
        return ((s + mT(s)) * 0.5,)


@register
class Qr(OpDef):
    """QR decomposition x = Q R of (batched) x [..., M, N], K = min(M, N): mode 'reduced'
    gives Q [..., M, K], R [..., K, N]; 'complete' gives Q [..., M, M], R [..., M, N].
    Gradients: reduced mode (any M, N) and complete mode with M <= N."""

    name = "qr"
    outputs = ("q", "r")
    attrs = {"mode": "reduced"}
    saves = ("q", "r")

    def infer(self, x, mode="reduced"):
        _matrix(self.name, x)
        m, n = x.shape[-2:]
        k = m if mode == "complete" else (min(m, n) if -1 not in (m, n) else -1)
        batch = tuple(x.shape[:-2])
        return x.with_shape(batch + (m, k)), x.with_shape(batch + (k, n))

    def compute(self, xp, x, mode="reduced"):
        _float_kernel_check(self.name, xp, x)
        if mode not in ("reduced", "complete"):
            raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
        q, r = xp.linalg.qr(x, mode=mode)
        return q, r

    def vjp(self, ctx, gq, gr):
        q, r = ctx.q, ctx.r
        m, n = q.shape[-2], r.shape[-1]
        if m >= n:
            if ctx.mode == "complete" and m > n:
                raise NotImplementedError("qr: the gradient of mode='complete' needs M <= N "
                                          f"(got M={m}, N={n}); use mode='reduced'")
            return (_qr_grad_tall(q, r, gq, gr),)
        # wide: x = [x1 | y] with x1 = q u (square), y = q v
        sel1 = _eye(n, r.dtype)[:, :m]
        sel2 = _eye(n, r.dtype)[:, m:]
        u = mm(r, sel1)
        v = mm(r, sel2)
        y = mm(q, v)
        gv = mm(gr, sel2)
        gu = mm(gr, sel1)
        gq1 = gq + mm(y, gv, tx=False, ty=True)
        gx1 = _qr_grad_tall(q, u, gq1, gu)
        gy = mm(q, gv)
        return (mm(gx1, sel1, tx=False, ty=True) +
                mm(gy, sel2, tx=False, ty=True),)


def _qr_grad_tall(q, r, gq, gr):
    """vjp of reduced QR for M >= N (full column rank)."""
    n = r.shape[-1]
    qdq = mm(q, gq, tx=True, ty=False)
    rdr = mm(r, gr, tx=False, ty=True)
    low = (qdq - mT(qdq) + rdr - mT(rdr)) * _tri_mask(n, r.dtype, upper=False, diag=0.0)

    def right_solve(b):  # b R^-T
        return mT(call("triangular_solve", r, mT(b), upper=True, transpose=False,
                       unitriangular=False))
    grad_a = mm(q, gr + right_solve(low))
    grad_b = right_solve(gq - mm(q, qdq))
    return grad_a + grad_b


@register
class Svd(OpDef):
    """Singular value decomposition x = U diag(S) VH, singular values descending. Reduced
    (U [..., M, K], VH [..., K, N]) unless `full_matrices`. The gradient assumes distinct
    non-zero singular values (as every SVD gradient does)."""

    name = "svd"
    outputs = ("u", "s", "vh")
    attrs = {"full_matrices": False}
    saves = ("u", "s", "vh")

    def infer(self, x, full_matrices=False):
        _matrix(self.name, x)
        m, n = x.shape[-2:]
        k = min(m, n) if -1 not in (m, n) else -1
        batch = tuple(x.shape[:-2])
        real = _real(x.dtype)
        if full_matrices:
            return (x.with_shape(batch + (m, m)), TensorSpec(batch + (k,), real),
                    x.with_shape(batch + (n, n)))
        return (x.with_shape(batch + (m, k)), TensorSpec(batch + (k,), real),
                x.with_shape(batch + (k, n)))

    def compute(self, xp, x, full_matrices=False):
        _float_kernel_check(self.name, xp, x)
        u, s, vh = xp.linalg.svd(x, full_matrices=full_matrices)
        return u, s, vh

    def vjp(self, ctx, gu, gs, gvh):
        u, s, vh = ctx.u, ctx.s, ctx.vh
        m, n, k = u.shape[-2], vh.shape[-1], s.shape[-1]
        if ctx.full_matrices and m != n:
            raise NotImplementedError("svd: the gradient with full_matrices=True needs a "
                                      f"square x (got {m}x{n}); use full_matrices=False")
        eye_k = _eye(k, s.dtype)
        s2 = s * s
        f = (1.0 - eye_k) / (_row(s2) - _col(s2) + eye_k)  # 1/(s_j^2 - s_i^2) off-diagonal
        utgu = mm(u, gu, tx=True, ty=False)
        vtgv = mm(vh, gvh, tx=False, ty=True)
        j = f * (utgu - mT(utgu))
        kk = f * (vtgv - mT(vtgv))
        inner = j * _row(s) + eye_k * _row(gs) + _col(s) * kk
        ga = mm(mm(u, inner), vh)
        if m > k:
            proj = _eye(m, u.dtype) - mm(u, u, tx=False,
                                           ty=True)
            ga = ga + mm(mm(proj, gu / _row(s)), vh)
        if n > k:
            proj = _eye(n, vh.dtype) - mm(vh, vh, tx=True,
                                            ty=False)
            ga = ga + mm(u, mm(gvh / _col(s), proj))
        return (ga,)


@register
class Eigh(OpDef):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric/Hermitian x,
    reading its lower ('L') or upper ('U') triangle. The gradient assumes distinct
    eigenvalues and is the unsymmetrized V (diag(gw) + F*(V^T gV)) V^T."""

    name = "eigh"
    outputs = ("w", "v")
    attrs = {"UPLO": "L"}
    saves = ("w", "v")

    def infer(self, x, UPLO="L"):
        _matrix(self.name, x, square=True)
        if UPLO not in ("L", "U"):
            raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
        return TensorSpec(x.shape[:-1], _real(x.dtype)), x

    def compute(self, xp, x, UPLO="L"):
        _float_kernel_check(self.name, xp, x)
        if UPLO not in ("L", "U"):
            raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
        w, v = xp.linalg.eigh(x, UPLO=UPLO)
        return w, v

    def vjp(self, ctx, gw, gv):
        w, v = ctx.w, ctx.v
        eye = _eye(w.shape[-1], w.dtype)
        f = (1.0 - eye) / (_row(w) - _col(w) + eye)  # 1/(w_j - w_i) off-diagonal
        inner = eye * _row(gw) + f * mm(v, gv, tx=True,
                                          ty=False)
        return (mm(mm(v, inner), v, tx=False,
                     ty=True),)


@register
class Pinv(OpDef):
    """Moore-Penrose pseudo-inverse via SVD; singular values <= rcond * max(s) are dropped.
    The gradient holds where the rank is locally constant."""

    name = "pinv"
    attrs = {"rcond": 1e-15, "hermitian": False}
    saves = ("x", "out")

    def infer(self, x, rcond=1e-15, hermitian=False):
        _matrix(self.name, x, square=hermitian)
        return x.with_shape(tuple(x.shape[:-2]) + (x.shape[-1], x.shape[-2]))

    def compute(self, xp, x, rcond=1e-15, hermitian=False):
        _float_kernel_check(self.name, xp, x)
        return xp.linalg.pinv(x, rcond=rcond, hermitian=hermitian)

    def vjp(self, ctx, g):
        a, p = ctx.x, ctx.out
        m, n = a.shape[-2], a.shape[-1]

        term1 = -mm(mm(p, g, tx=True), p, ty=True)
        res_a = _eye(m, a.dtype) - mm(a, p)    # I - A P
        res_p = _eye(n, a.dtype) - mm(p, a)    # I - P A
        term2 = mm(mm(res_a, g, ty=True), mm(p, p, ty=True))
        term3 = mm(mm(p, p, tx=True), mm(g, res_p, tx=True))
        return (term1 + term2 + term3,)


from . import linalg_factor as _factor  # noqa: E402,F401  (registers its OpDefs)

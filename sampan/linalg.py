"""The `paddle.linalg` namespace: Paddle's linalg names over sampan.tensor.linalg."""
from __future__ import annotations

from .tensor.linalg import (cholesky, cholesky_solve, cond, corrcoef, cov, det, eig,  # noqa
                            eigh, eigvals, eigvalsh, householder_product, inverse, lstsq, lu,
                            lu_solve, lu_unpack, matrix_power, matrix_rank, multi_dot, norm,
                            pca_lowrank, pinv, qr, slogdet, solve, svd, triangular_solve)
from .tensor.linalg import _matrix_norm, _vector_norm
from .ops.opdef import norm_axis as _norm_axis
from .tensor.compat3 import matrix_transpose, vecdot  # noqa: F401  (Paddle 3.x names)
from .tensor.compat3_linalg import (cholesky_inverse, matrix_exp, ormqr,  # noqa: F401
                                    svd_lowrank, svdvals)
from .tensor.linalg import cross, matmul  # noqa: F401
from .tensor.indexing import diagonal  # noqa: F401

inv = inverse

__all__ = ["cholesky", "cholesky_solve", "cond", "corrcoef", "cov", "det", "eig", "eigh",
           "eigvals", "eigvalsh", "householder_product", "inv", "lstsq", "lu", "lu_solve",
           "lu_unpack", "matrix_power", "matrix_rank", "multi_dot", "norm", "pca_lowrank", "pinv", "qr",
           "slogdet", "solve", "svd", "triangular_solve", "vector_norm", "matrix_norm"]
__all__ += ["cholesky_inverse", "cross", "diagonal", "matmul", "matrix_exp", "matrix_transpose",
            "ormqr", "svd_lowrank", "svdvals", "vecdot"]


def vector_norm(x, p=2.0, axis=None, keepdim: bool = False, name=None):
    """Vector p-norm over `axis` (int, list of ints, or None for all dims)."""
    return _vector_norm(x, float(p), axis, keepdim)


def matrix_norm(x, p="fro", axis=(-2, -1), keepdim: bool = False, name=None):
    """Matrix norm over the two dims `axis`: 'fro', 'nuc', inf, -inf, 1, -1, 2, -2."""
    if not isinstance(axis, (list, tuple)) or len(axis) != 2:
        raise ValueError(f"matrix_norm: axis must be a list of two ints, got {axis!r}")
    nd = len(x.shape)
    axes = (_norm_axis("matrix_norm", int(axis[0]), nd),
            _norm_axis("matrix_norm", int(axis[1]), nd))
    return _matrix_norm(x, p, axes, keepdim)


from .tensor.out_arg import LINALG_NAMES as _OUT_NAMES, install as _install_out  # noqa: E402
_install_out(globals(), _OUT_NAMES, "paddle.linalg.")  # Paddle 3.3.1's keyword-only `out=`

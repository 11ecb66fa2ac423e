"""Public linalg functions (paddle.matmul, paddle.linalg.*): Paddle signatures over dispatch.

Products, einsum, norms, decompositions and solvers; composites (mm, bmm, dot, inner,
outer, dist, cov, corrcoef, cond, matrix_power, multi_dot, cholesky_solve, ...) are plain
sampan code over the primitives in ops/linalg.py and ops/linalg_decomp.py. This module owns
products and norms; decompositions/solvers (linalg_decomp.py) and the matrix composites
(linalg_composite.py) are re-exported at the bottom.
"""
from __future__ import annotations

import math
import string

import numpy as np

from ..framework.tensor import is_tensor_or_variable
from ._helpers import require_tensor  # noqa: F401  (re-exported for linalg users)
from ._helpers import static_float_only
from ..ops.dispatch import call, dispatch
from ..ops.linalg import parse_einsum
from ..ops.opdef import REGISTRY, norm_axis

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "inner", "outer", "einsum", "norm", "dist",
           "cross", "cholesky", "qr", "svd", "eig", "eigh", "eigvals", "eigvalsh", "inverse",
           "pinv", "det", "slogdet", "solve", "triangular_solve", "cholesky_solve", "lstsq",
           "matrix_power", "matrix_rank", "multi_dot", "cond", "cov", "corrcoef", "lu",
           "lu_unpack", "cdist", "householder_product", "pca_lowrank", "pdist"]

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
        paddle.Size([2])
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


def _check_tensors(api: str, x, y) -> None:
    """Paddle's inner/outer take Tensors only (no NumPy arrays or Python lists)."""
    for arg, v in (("x", x), ("y", y)):
        if not is_tensor_or_variable(v):
            raise TypeError(f"{api}: {arg} must be a Tensor, got {type(v).__name__}")


class _EinsumError(AssertionError, ValueError):
    """An einsum call Paddle asserts against; sampan raised ValueError before."""


def inner(x, y, name=None):
    """Sum product over the last dims: out shape x.shape[:-1] + y.shape[:-1]."""
    _check_tensors("inner", x, y)
    static_float_only("inner", x)
    static_float_only("inner", y, "y")
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
    _check_tensors("outer", x, y)
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
        raise _EinsumError("einsum: at least one operand is required (At least one operand "
                           "is expected.)")
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


# decompositions/solvers and matrix composites, listed in __all__ above
from .linalg_decomp import (cholesky, cholesky_solve, det, eig, eigh, eigvals,  # noqa: E402
                            eigvalsh, householder_product, inverse, lstsq, lu, lu_unpack,
                            matrix_rank, pca_lowrank, pinv, qr, slogdet, solve, svd,
                            triangular_solve)
from .linalg_composite import lu_solve, pdist  # noqa: E402,F401  (lu_solve: paddle.linalg)
from .linalg_composite import (cdist, cond, corrcoef, cov, matrix_power,  # noqa: E402
                               multi_dot)

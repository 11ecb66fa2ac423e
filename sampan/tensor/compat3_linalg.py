"""Paddle 3.x statistics and linear-algebra names: histogramdd, histogram_bin_edges,
linalg.svd_lowrank, matrix_exp, svdvals, cholesky_inverse; composites of existing tensor
functions. Imports `framework`, `ops` and sibling tensor modules.
"""
from __future__ import annotations

import math as _math

from ..framework.flags import in_dynamic_mode
from ..framework.tensor import is_tensor_or_variable
from ..ops.dispatch import call
from . import creation, linalg, manipulation, math, random, search, stat


def _to_float(v) -> float:
    return float(v.item()) if hasattr(v, "item") else float(v)


def histogram_bin_edges(input, bins: int = 100, min: float = 0.0, max: float = 0.0,
                        name=None):
    """The `bins + 1` edges paddle.histogram would use for `input`.

    min == max == 0 takes the data's range; an empty range is widened by 0.5 each side.
    Integer inputs give the default float dtype.

    Examples:
        >>> import sampan as paddle
        >>> paddle.histogram_bin_edges(paddle.to_tensor([1., 2., 5.]), bins=4)
        Tensor(shape=[5], dtype=float32, place=Place(cpu), stop_gradient=True,
               [1., 2., 3., 4., 5.])
    """
    if int(bins) < 1:
        raise ValueError(f"histogram_bin_edges: bins must be >= 1, got {bins}")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise ValueError(f"histogram_bin_edges: max must be >= min, got min={min}, max={max}")
    if lo == 0.0 and hi == 0.0 and input.size:
        lo, hi = _to_float(stat.min(input)), _to_float(stat.max(input))
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    dtype = input.dtype if input.dtype.kind == "f" else None
    return creation.linspace(lo, hi, int(bins) + 1, dtype=dtype)


class _HistArgError(AssertionError, ValueError):
    """Paddle asserts these histogramdd argument rules; ValueError is the natural kind."""


def _dd_check(x, ranges, density, weights) -> None:
    """Paddle's argument checks, in its order (before any value is read)."""
    if not isinstance(density, bool):
        raise TypeError(f"histogramdd: density must be a bool, got {type(density).__name__}")
    if len(x.shape) < 2:
        raise _HistArgError(f"histogramdd: x must have at least 2 dims ([N, D] points), got "
                            f"shape {list(x.shape)}")
    # NOTE: as in Paddle, the float-only rule is checked while a Program is built; eager
    # mode also bins integer points (edges and counts of x's dtype).
    if not in_dynamic_mode() and x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"histogramdd: x must be float32 or float64, got {x.dtype.name}")
    if weights is not None:
        w_shape = list(weights.shape)  # AttributeError for a non-Tensor, as in Paddle
        if w_shape != list(x.shape[:-1]):
            raise _HistArgError(f"histogramdd: weights must have x's shape without its last "
                                f"dim, {list(x.shape[:-1])}, got {w_shape}")
        if weights.dtype != x.dtype:
            raise _HistArgError(f"histogramdd: weights must have x's dtype {x.dtype.name}, "
                                f"got {weights.dtype.name}")
    if ranges is not None:
        if not isinstance(ranges, (list, tuple)):
            raise TypeError(f"histogramdd: ranges must be a list or tuple, got "
                            f"{type(ranges).__name__}")
        if len(ranges) != 2 * x.shape[-1]:
            raise _HistArgError(f"histogramdd: the length of ranges must be "
                                f"{2 * x.shape[-1]}, got {len(ranges)}")


def _dd_bins(bins, n_dim: int) -> list:
    if isinstance(bins, int) and not isinstance(bins, bool):
        return [bins] * n_dim
    if not isinstance(bins, (list, tuple)):
        raise ValueError(f"histogramdd: bins must be an int, a list of ints or a tuple of "
                         f"Tensors, got {type(bins).__name__}")
    if len(bins) != n_dim:
        raise _HistArgError(f"histogramdd: the length of bins must be {n_dim} (the last dim "
                            f"of x), got {len(bins)}")
    for d, b in enumerate(bins):
        if not hasattr(b, "shape") and (isinstance(b, bool) or not isinstance(b, int)
                                        or b < 1):
            raise ValueError(f"histogramdd: bins[{d}] must be a positive int or a Tensor of "
                             f"edges, got {b!r}")
    return list(bins)


def _dd_edges(x, bins, ranges) -> list:
    """Per-dim edges. Without ranges they span the column's min..max as Tensors, so a
    Program being built computes them when it runs."""
    edges = []
    for d, b in enumerate(_dd_bins(bins, x.shape[1])):
        if hasattr(b, "shape"):  # explicit, increasing edges for this dim
            edges.append(_edge_tensor(b, d, x.dtype))
        elif ranges is not None:
            edges.append(creation.linspace(float(ranges[2 * d]), float(ranges[2 * d + 1]),
                                           b + 1, dtype=x.dtype))
        elif x.shape[0] == 0:
            edges.append(creation.linspace(0.0, 0.0, b + 1, dtype=x.dtype))
        else:
            col = x[:, d]
            edges.append(_spaced(stat.min(col), stat.max(col), b))
    return edges


def _edge_tensor(b, d: int, dtype):
    b = b if is_tensor_or_variable(b) else creation.to_tensor(b)
    if not in_dynamic_mode() and b.dtype.name not in ("float32", "float64"):
        raise TypeError(f"histogramdd: bins[{d}] must be float32 or float64 edges, got "
                        f"{b.dtype.name}")
    if b.dtype != dtype:
        raise _HistArgError(f"histogramdd: bins[{d}] must have x's dtype {dtype.name}, got "
                            f"{b.dtype.name}")
    return b


def _spaced(lo, hi, num: int):
    """`num + 1` evenly spaced values from the 0-D Tensors lo to hi, the last one exactly hi
    (integer lo/hi: computed in float64 and truncated, as paddle.linspace does)."""
    dtype = lo.dtype
    if dtype.kind != "f":
        lo, hi = manipulation.cast(lo, "float64"), manipulation.cast(hi, "float64")
    steps = creation.arange(num, dtype=lo.dtype)
    body = lo + steps * ((hi - lo) / num)
    return manipulation.cast(manipulation.concat([body, manipulation.reshape(hi, [1])]), dtype)


def histogramdd(x, bins=10, ranges=None, density: bool = False, weights=None, name=None):
    """Multidimensional histogram of the points x [..., D] (the last dim holds coordinates).

    Args:
        x (Tensor): float32/float64 points; all leading dims are flattened to N points of D
            coordinates.
        bins (int|list[int]|tuple[Tensor], optional): bins per dim (equal widths over the
            range), or per-dim increasing edges. Default 10.
        ranges (list[float], optional): [lo0, hi0, lo1, hi1, ...]; default each dim's min/max.
        density (bool, optional): normalise so the histogram integrates to 1 over the bins.
        weights (Tensor, optional): one weight per point (x's shape without its last dim),
            of x's dtype.

    Returns:
        tuple: (hist Tensor of shape bins, list of D edge Tensors). Points outside the range
        are left out; a point on the last edge counts in the last bin.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]])
        >>> hist, edges = paddle.histogramdd(x, bins=2)
        >>> hist
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[0., 1.],
                [2., 1.]])
    """
    _dd_check(x, ranges, density, weights)
    n_dim = x.shape[-1]
    pts = manipulation.reshape(x, [-1, n_dim])
    edges = _dd_edges(pts, bins, ranges)
    counts = [e.shape[0] - 1 for e in edges]
    flat, inside = None, None
    for d, e in enumerate(edges):
        col = pts[:, d]
        idx = search.searchsorted(e, col, right=True) - 1
        idx = math.clip(idx, min=0, max=counts[d] - 1)
        ok = (col >= e[0]) & (col <= e[-1])
        inside = ok if inside is None else inside & ok
        flat = idx if flat is None else flat * counts[d] + idx
    w = creation.ones_like(pts[:, 0]) if weights is None else \
        manipulation.reshape(weights, [-1])
    w = search.where(inside, w, creation.zeros_like(w))
    hist = search.bincount(flat, weights=manipulation.cast(w, "float64"),
                           minlength=_math.prod(counts))
    hist = manipulation.reshape(manipulation.cast(hist, w.dtype), counts)
    if density:
        hist = _density(hist, edges)
    return hist, edges


def _density(hist, edges):
    volume = None
    for d, e in enumerate(edges):
        width = e[1:] - e[:-1]
        shape = [1] * len(edges)
        shape[d] = -1
        width = manipulation.reshape(width, shape)
        volume = width if volume is None else volume * width
    return hist / stat.sum(hist) / volume


def svd_lowrank(x, q=None, niter: int = 2, M=None, name=None):
    """Randomized truncated SVD of x - M: (U [..., m, q], S [..., q], V [..., n, q]).

    A random Gaussian sketch of x's range (sampan's generator, so paddle.seed fixes it)
    is refined by `niter` power iterations with re-orthonormalisation, then the small
    projected matrix gets an exact SVD. Exact when rank(x - M) <= q.

    Args:
        x (Tensor): [..., m, n] float matrix.
        q (int, optional): rank of the approximation, default min(6, m, n).
        niter (int, optional): power iterations (more is more accurate), default 2.
        M (Tensor, optional): subtracted from x first (broadcast), e.g. the column means.

    Examples:
        >>> import sampan as paddle
        >>> paddle.seed(0)  # doctest: +ELLIPSIS
        <...>
        >>> a = paddle.to_tensor([[3., 0.], [0., 0.], [0., 1.]], dtype='float64')
        >>> u, s, v = paddle.linalg.svd_lowrank(a, q=2)
        >>> s.numpy().round(6).tolist()
        [3.0, 1.0]
    """
    linalg.require_tensor("svd_lowrank", "x", x)
    if isinstance(niter, bool) or not isinstance(niter, int) or niter < 0:
        raise ValueError(f"svd_lowrank: niter must be a non-negative int, got {niter!r}")
    if len(x.shape) < 2 or x.dtype.kind not in "fc":
        raise ValueError(f"svd_lowrank: x must be a float matrix [..., m, n], got shape "
                         f"{list(x.shape)} and dtype {x.dtype}")
    m, n = x.shape[-2:]
    q = min(6, m, n) if q is None else int(q)
    if not 0 < q <= min(m, n):
        raise ValueError(f"svd_lowrank: q must be in [1, min(m, n)] = [1, {min(m, n)}], "
                         f"got {q}")
    a = x if M is None else x - M
    sketch = random.randn(list(a.shape[:-2]) + [n, q], dtype=a.dtype)
    basis = _orth(linalg.matmul(a, sketch))
    for _ in range(int(niter)):
        basis = _orth(linalg.matmul(a, _orth(linalg.matmul(a, basis, transpose_x=True))))
    small = linalg.matmul(basis, a, transpose_x=True)  # [..., q, n]
    u, s, vh = linalg.svd(small)
    return linalg.matmul(basis, u), s, manipulation.transpose(
        vh, list(range(len(vh.shape) - 2)) + [len(vh.shape) - 1, len(vh.shape) - 2])


def _orth(a):
    return linalg.qr(a)[0]


def ormqr(x, tau, y, left: bool = True, transpose: bool = False, name=None):
    """Q @ y (left) or y @ Q with Q = householder_product(x, tau), transposed first when
    `transpose` (a plain transpose, as in Paddle).

    With x [..., m, n], Q is [..., m, n] (Paddle's reduced Q), so Q @ y needs y [..., n, k],
    Q^T @ y needs y [..., m, k], y @ Q needs y [..., k, m] and y @ Q^T needs y [..., k, n].
    """
    if len(x.shape) < 2 or len(y.shape) != len(x.shape) or len(tau.shape) != len(x.shape) - 1:
        raise ValueError(f"ormqr: x and y must be [..., m, n] matrices of one rank and tau one "
                         f"dim less, got shapes {list(x.shape)}, {list(tau.shape)}, "
                         f"{list(y.shape)}")
    if x.shape[-1] != tau.shape[-1]:
        raise ValueError(f"ormqr: the last dims of x ({x.shape[-1]}) and tau "
                         f"({tau.shape[-1]}) must be equal")
    q = linalg.householder_product(x, tau)
    if transpose:
        q = manipulation.transpose(q, list(range(len(q.shape) - 2)) + [len(q.shape) - 1,
                                                                        len(q.shape) - 2])
    inner, other = (q.shape[-1], y.shape[-2]) if left else (q.shape[-2], y.shape[-1])
    if inner != other:
        raise ValueError(f"ormqr: Q{'^T' if transpose else ''} of shape {list(q.shape)} and y "
                         f"of shape {list(y.shape)} do not multiply "
                         f"({'Q @ y' if left else 'y @ Q'})")
    return linalg.matmul(q, y) if left else linalg.matmul(y, q)


def svdvals(x, name=None):
    """Singular values of x [..., m, n] in descending order ([..., min(m, n)])."""
    return linalg.svd(x)[1]


def cholesky_inverse(x, upper: bool = False, name=None):
    """Inverse of A from its Cholesky factor x (A = x x^T, or x^T x when upper)."""
    if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"cholesky_inverse: x must be square matrices [..., n, n], got "
                         f"shape {list(x.shape)}")
    eye = creation.eye(x.shape[-1], dtype=x.dtype)
    eye = manipulation.expand(eye, list(x.shape))
    return linalg.cholesky_solve(eye, x, upper=upper)


def matrix_exp(x, name=None):
    """Matrix exponential of square x [..., n, n] (float32/float64), in eager and static mode.

    Args:
        x (Tensor): square matrices [..., n, n].
        name (str, optional): unused; for API compatibility.

    Returns:
        Tensor: exp(x), the same shape and dtype as x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[0., 1.], [0., 0.]])
        >>> paddle.linalg.matrix_exp(x)
        Tensor(shape=[2, 2], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1., 1.],
                [0., 1.]])
    """
    if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"matrix_exp: x must be square matrices [..., n, n], got shape "
                         f"{list(x.shape)}")
    return call("matrix_exp", x)


__all__ = ["histogram_bin_edges", "histogramdd"]
LINALG = {"cholesky_inverse": cholesky_inverse, "matrix_exp": matrix_exp, "ormqr": ormqr,
          "svd_lowrank": svd_lowrank, "svdvals": svdvals}

"""Paddle 3.x tensor names: aliases of 2.x functions and thin wrappers where Paddle 3 takes
other argument names (PyTorch-style `input`/`dim`/`dims`), all composites of existing
functions. Listed in `__all__`; Tensor-only methods live in compat3_methods.py.
Imports `framework`, `ops` and sibling tensor modules.
"""
from __future__ import annotations

import math as _math

from ..ops.dispatch import call
from . import creation, indexing, linalg, logic, manipulation, math, search, stat
from .indexing import put_along_axis, take_along_axis

# --- aliases: Paddle 3.3.1 binds these names to the same function objects ----------------
clamp = math.clip
cat = concatenate = manipulation.concat
eq, ne = logic.equal, logic.not_equal
lt = less = logic.less_than
le, ge = logic.less_equal, logic.greater_equal
gt = greater = logic.greater_than
ger = linalg.outer
mul = math.multiply
negative = math.neg
gammaln = math.lgamma
take_along_dim = take_along_axis


def positive(x, name=None):
    """Return `x` itself (numeric tensors); bool tensors raise TypeError as in Paddle.

    Examples:
        >>> import sampan as paddle
        >>> paddle.positive(paddle.to_tensor([1, -2]))
        Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [ 1, -2])
    """
    if x.dtype.kind == "b":
        raise TypeError("positive: x must be a numeric tensor, got dtype bool")
    return x


def div(x, y, name=None, *, rounding_mode=None, out=None):
    """Divide x by y; `rounding_mode` None (true division), 'trunc' or 'floor'.

    Args:
        x (Tensor): dividend.
        y (Tensor|float): divisor, broadcast against x.
        rounding_mode (str|None, optional): None keeps the true quotient (integers give the
            default float); 'trunc' rounds toward zero, 'floor' toward -inf, keeping x's dtype.

    Examples:
        >>> import sampan as paddle
        >>> paddle.div(paddle.to_tensor([7, -7]), paddle.to_tensor([2, 2]), rounding_mode='floor')
        Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [ 3, -4])
    """
    _no_out("div", out)
    return math.divide(x, y, rounding_mode=rounding_mode)


def true_divide(input, other, *, out=None):
    """True division `input / other` (integers give the default float)."""
    _no_out("true_divide", out)
    return math.divide(input, other)


def sub(x, y, name=None, *, alpha=1, out=None):
    """`x - alpha * y` (Paddle 3's subtract with a scale on y)."""
    _no_out("sub", out)
    return math.subtract(x, y, alpha=alpha)


def _no_out(api: str, out) -> None:
    if out is not None:
        raise NotImplementedError(f"{api}: out= is not supported by sampan; use the result")


def swapaxes(x, perm=None, name=None, *, dim0=None, dim1=None):
    """Transpose `x` by `perm`, or swap two dims: swapaxes(x, 0, 1) / (x, dim0=0, dim1=1).

    Examples:
        >>> import sampan as paddle
        >>> paddle.swapaxes(paddle.ones([2, 3, 4]), 0, 2).shape
        paddle.Size([4, 3, 2])
    """
    if dim0 is None and isinstance(perm, int) and isinstance(name, int):
        dim0, dim1 = perm, name
    if dim0 is not None or dim1 is not None:
        if dim0 is None or dim1 is None:
            raise ValueError("swapaxes: give both dim0 and dim1")
        nd = len(x.shape)
        order = list(range(nd))
        a, b = (int(d) % max(nd, 1) for d in (dim0, dim1))
        order[a], order[b] = order[b], order[a]
        return manipulation.transpose(x, order)
    return manipulation.transpose(x, perm)


swapdims = swapaxes


def _dims(api: str, dims, more) -> list:
    """PyTorch-style varargs: f(x, [1, 0]) or f(x, 1, 0)."""
    if isinstance(dims, int):
        return [dims, *more]
    if more:
        raise TypeError(f"{api}: give the dims as one list or as separate ints, not both")
    return list(dims)


def permute(input, dims, *more_dims):
    """Reorder the dims of `input`: permute(x, [1, 0]) or permute(x, 1, 0).

    Examples:
        >>> import sampan as paddle
        >>> paddle.permute(paddle.ones([2, 3, 4]), 2, 0, 1).shape
        paddle.Size([4, 2, 3])
    """
    return manipulation.transpose(input, _dims("permute", dims, more_dims))


def ravel(input):
    """Flatten `input` to 1-D (a 0-D tensor becomes shape [1])."""
    return manipulation.reshape(input, [-1])


def narrow(input, dim, start, length):
    """The slice `start:start+length` of `input` along `dim` (start may be negative).

    Examples:
        >>> import sampan as paddle
        >>> paddle.narrow(paddle.to_tensor([[1, 2, 3], [4, 5, 6]]), 1, 1, 2)
        Tensor(shape=[2, 2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [[2, 3],
                [5, 6]])
    """
    nd = len(input.shape)
    if not -nd <= int(dim) < nd:
        raise ValueError(f"narrow: dim must be in [{-nd}, {nd}), got {dim}")
    size = input.shape[int(dim)]
    start = int(start.item()) if hasattr(start, "item") else int(start)
    if start < 0:
        start += size
    if start < 0 or length < 0 or start + length > size:
        raise ValueError(f"narrow: start ({start}) + length ({length}) exceeds dimension "
                         f"size ({size}).")
    return indexing.slice(input, [int(dim) % nd], [start], [start + int(length)])


def msort(input, *, out=None):
    """Sort `input` along its first dim (ascending)."""
    _no_out("msort", out)
    return search.sort(input, axis=0)


def argwhere(input):
    """Indices [N, ndim] of the nonzero elements of `input` (int64)."""
    return search.nonzero(input)


def isin(x, test_x, assume_unique: bool = False, invert: bool = False, name=None):
    """Elementwise test whether each value of `x` occurs in `test_x` (bool, x's shape).

    Examples:
        >>> import sampan as paddle
        >>> paddle.isin(paddle.to_tensor([1, 2, 3, 4]), paddle.to_tensor([2, 4, 9]))
        Tensor(shape=[4], dtype=bool, place=Place(cpu), stop_gradient=True,
               [False, True , False, True ])
    """
    for arg, v in (("x", x), ("test_x", test_x)):
        if not hasattr(v, "shape"):
            raise TypeError(f"isin: {arg} must be a Tensor, got {type(v).__name__}")
    flat = manipulation.reshape(test_x, [-1])
    hit = stat.any(logic.equal(manipulation.unsqueeze(x, -1), flat), axis=-1)
    return logic.logical_not(hit) if invert else hit


def signbit(x, name=None):
    """True where the sign bit of `x` is set (-0.0 and -nan included)."""
    if x.dtype.kind == "b" or x.dtype.kind == "c":
        raise TypeError(f"signbit: x must be a real numeric tensor, got dtype {x.dtype}")
    if x.dtype.kind in "iu":
        return logic.less_than(x, creation.zeros_like(x))
    one = creation.ones_like(x)
    return logic.less_than(math.copysign(one, x), creation.zeros_like(x))


def sinc(x, name=None):
    """Normalized sinc: sin(pi x) / (pi x), and 1 at x = 0 (floating inputs only)."""
    if x.dtype.kind not in "fc":
        raise TypeError(f"sinc: x must be a floating tensor, got dtype {x.dtype}")
    zero = logic.equal(x, creation.zeros_like(x))
    px = math.scale(x, _math.pi)
    one = creation.ones_like(x)
    safe = search.where(zero, one, px)
    return search.where(zero, one, math.sin(safe) / safe)


def isneginf(x, name=None):
    """True where `x` is -inf (always False for integer tensors)."""
    return logic.logical_and(logic.isinf(x), _negative(x))


def isposinf(x, name=None):
    """True where `x` is +inf (always False for integer tensors)."""
    return logic.logical_and(logic.isinf(x), logic.logical_not(_negative(x)))


def _negative(x):
    return logic.less_than(x, creation.zeros_like(x))


def isreal(x, name=None):
    """True where `x` has no imaginary part (every element of a real tensor)."""
    if x.dtype.kind == "c":
        imag = math.imag(x)
        return logic.equal(imag, math.scale(imag, 0.0))
    return logic.equal(x, x) if x.dtype.kind in "iub" else logic.logical_or(
        logic.equal(x, x), logic.isnan(x))


def scatter_add(input, dim, index, src):
    """Add `src` into a copy of `input` at `index` along `dim` (duplicates accumulate)."""
    return put_along_axis(input, index, src, dim, reduce="add", broadcast=False)


_REDUCE = {"sum": "add", "prod": "mul", "mean": "mean", "amin": "amin", "amax": "amax"}


def scatter_reduce(input, dim, index, src, reduce, *, include_self: bool = True):
    """Reduce `src` into a copy of `input` at `index` along `dim`.

    Args:
        reduce (str): 'sum', 'prod', 'mean', 'amin' or 'amax'.
        include_self (bool, optional): whether input's own values join the reduction.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.ones([2, 3])
        >>> idx = paddle.to_tensor([[0, 0], [2, 1]])
        >>> paddle.scatter_reduce(x, 1, idx, paddle.to_tensor([[1., 2.], [3., 4.]]), 'amax')
        Tensor(shape=[2, 3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[2., 1., 1.],
                [1., 4., 3.]])
    """
    if reduce not in _REDUCE:
        raise ValueError(f"scatter_reduce: reduce must be one of {sorted(_REDUCE)}, "
                         f"got {reduce!r}")
    return put_along_axis(input, index, src, dim, reduce=_REDUCE[reduce],
                          include_self=include_self, broadcast=False)


def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """A copy of `x` whose strided slice (axes/starts/ends/strides) is replaced by `value`
    (broadcast to the slice's shape).

    Examples:
        >>> import sampan as paddle
        >>> paddle.slice_scatter(paddle.zeros([2, 4]), paddle.ones([2, 2]), axes=[1],
        ...                      starts=[0], ends=[4], strides=[2])
        Tensor(shape=[2, 4], dtype=float32, place=Place(cpu), stop_gradient=True,
               [[1., 0., 1., 0.],
                [1., 0., 1., 0.]])
    """
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise ValueError("slice_scatter: axes, starts, ends and strides must have one length, "
                         f"got {len(axes)}, {len(starts)}, {len(ends)}, {len(strides)}")
    index = [slice(None)] * len(x.shape)
    for a, b, e, st in zip(axes, starts, ends, strides):
        index[int(a)] = slice(int(b), int(e), int(st))
    want = list(x[tuple(index)].shape)
    have = list(value.shape)        # broadcast to the slice, as Paddle 3.3.1
    if len(have) > len(want) or any(h not in (1, w) for h, w in zip(have[::-1], want[::-1])):
        raise ValueError(f"slice_scatter: value of shape {have} cannot be broadcast to the "
                         f"slice's shape {want}")
    out = x.clone()
    out[tuple(index)] = value
    return out


def gammaincc(x, y, name=None):
    """Regularized upper incomplete gamma Q(x, y) = Gamma(x, y) / Gamma(x) (x, y >= 0).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.5, 0.5, 0.5], dtype='float64')
        >>> paddle.gammaincc(x, paddle.to_tensor([0., 1., 10.], dtype='float64'))
        Tensor(shape=[3], dtype=float64, place=Place(cpu), stop_gradient=True,
               [1.        , 0.15729921, 0.00000774])
    """
    return call("gammaincc", x, y)


def gammainc(x, y, name=None):
    """Regularized lower incomplete gamma P(x, y) = 1 - Q(x, y) (x, y >= 0)."""
    return 1.0 - gammaincc(x, y)


def view_as_real(input):
    """A complex tensor [...] as a real one [..., 2] (real, imag)."""
    return manipulation.as_real(input)


def view_as_complex(input):
    """A real tensor [..., 2] as a complex one [...]."""
    return manipulation.as_complex(input)


def softmax(input, dim=None, dtype=None, *, out=None):
    """Softmax of `input` along `dim` (Paddle 3's top-level form).

    dim None picks 0 for 0-D, 1-D and 3-D inputs and 1 otherwise (the legacy rule).
    `dtype`, when given, casts `input` first.
    """
    _no_out("softmax", out)
    if dtype is not None:
        input = manipulation.cast(input, dtype)
    if dim is None:
        dim = 0 if len(input.shape) in (0, 1, 3) else 1
    return call("softmax", input, axis=int(dim))


def reduce_as(x, target, name=None):
    """Sum `x` over the dims broadcasting added, so the result has `target`'s shape."""
    xs, ts = list(x.shape), list(target.shape)
    lead = len(xs) - len(ts)
    ok = lead >= 0 and all(t in (1, s) for s, t in zip(xs[lead:], ts))
    if not ok:
        raise ValueError(f"reduce_as: x of shape {xs} cannot be reduced to target's shape "
                         f"{ts} (target must broadcast to x)")
    axes = list(range(lead)) + [lead + i for i, (s, t) in enumerate(zip(xs[lead:], ts))
                                if t == 1 and s != 1]
    out = stat.sum(x, axis=axes) if axes else x
    return manipulation.reshape(out, ts)


def broadcast_shapes(*shapes) -> list:
    """The shape that all `shapes` broadcast to (a list of ints).

    Examples:
        >>> import sampan as paddle
        >>> paddle.broadcast_shapes([2, 1], [3], [1, 1, 1])
        [1, 2, 3]
    """
    out: list = []
    for s in shapes:
        out = manipulation.broadcast_shape(out, list(s))
    return list(out)


def vecdot(x, y, axis: int = -1, name=None):
    """Dot product of vectors along `axis`: sum(conj(x) * y, axis)."""
    if x.dtype.kind == "c":
        x = math.conj(x)
    return stat.sum(math.multiply(x, y), axis=axis)


def matrix_transpose(x, name=None):
    """Swap the last two dims of `x` (ndim >= 2)."""
    nd = len(x.shape)
    if nd < 2:
        raise ValueError(f"Tensor.ndim({nd}) is required to be greater than or equal to 2.")
    return swapaxes(x, dim0=-2, dim1=-1)


def baddbmm(input, x, y, beta: float = 1.0, alpha: float = 1.0, name=None):
    """beta * input + alpha * bmm(x, y) for batches x [B, N, K] and y [B, K, M]."""
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise ValueError(f"baddbmm: x and y must be 3-D, got shapes {list(x.shape)} and "
                         f"{list(y.shape)}")
    if x.shape[2] != y.shape[1]:
        raise ValueError(f"baddbmm: x's width must equal y's height, got x {list(x.shape)} "
                         f"and y {list(y.shape)}")
    prod = linalg.bmm(x, y)
    return math.add(math.scale(input, float(beta)), math.scale(prod, float(alpha)))


def block_diag(inputs, name=None):
    """Block-diagonal matrix of `inputs` (0-D -> [1, 1], 1-D [n] -> [1, n])."""
    mats = [manipulation.reshape(t, [1, -1]) if len(t.shape) < 2 else t for t in inputs]
    for i, t in enumerate(mats):
        if len(t.shape) != 2:
            raise ValueError(f"block_diag: inputs[{i}] must have at most 2 dims, got "
                             f"{list(t.shape)}")
    total = sum(t.shape[1] for t in mats)
    rows, left = [], 0
    for t in mats:
        n = t.shape[1]
        rows.append(manipulation.concat([_zero_cols(t, left), t,
                                         _zero_cols(t, total - left - n)], axis=1))
        left += n
    return manipulation.concat(rows, axis=0)


def _zero_cols(t, n: int):
    return creation.zeros([t.shape[0], n], dtype=t.dtype)


def cartesian_prod(x, name=None):
    """Cartesian product of 1-D tensors: [prod(n_i), len(x)] (or 1-D for one input)."""
    xs = list(x)
    if len(xs) == 1:
        return xs[0]
    grids = creation.meshgrid(*xs)
    return manipulation.stack([manipulation.reshape(g, [-1]) for g in grids], axis=1)


__all__ = ["argwhere", "baddbmm", "block_diag", "broadcast_shapes", "cartesian_prod", "cat",
           "clamp", "concatenate", "div", "eq", "gammainc", "gammaincc", "gammaln", "ge",
           "ger", "greater", "gt", "isin", "isneginf", "isposinf", "isreal", "le", "less",
           "lt", "matrix_transpose", "msort", "mul", "narrow", "ne", "negative", "permute",
           "positive", "ravel", "reduce_as", "scatter_add", "scatter_reduce", "signbit",
           "sinc", "slice_scatter", "softmax", "sub", "swapaxes", "swapdims", "take_along_dim",
           "true_divide", "vecdot", "view_as_complex", "view_as_real"]

# Paddle 3.3.1 Tensor methods bound from the functions of the compat3 modules (in-place
# `name_` forms are derived from `name` by tensor/__init__.py).
METHOD_NAMES = (
    "argwhere", "baddbmm", "baddbmm_", "bernoulli_", "block_diag", "broadcast_shapes",
    "cholesky_inverse", "clamp", "clamp_", "div", "div_", "dsplit", "eq", "gammainc",
    "gammainc_", "gammaincc", "gammaincc_", "gammaln", "gammaln_", "ge", "greater", "gt",
    "histogram_bin_edges", "histogramdd", "hsplit", "isin", "isneginf", "isposinf", "isreal",
    "le", "less", "less_", "log_normal_", "lt", "matrix_transpose", "msort", "mul", "mul_",
    "narrow", "ne", "negative", "ormqr", "permute", "ravel", "reduce_as", "scatter_add",
    "scatter_add_", "scatter_reduce", "signbit", "sinc", "sinc_", "slice_scatter", "slogdet",
    "softmax", "square_", "sub", "sub_", "svd_lowrank", "swapaxes", "swapdims",
    "take_along_dim", "tensor_split", "true_divide", "view_as_complex", "view_as_real",
)
TOP_LEVEL_INPLACE = ("baddbmm_", "div_", "gammainc_", "gammaincc_", "gammaln_", "less_",
                     "scatter_add_", "sinc_", "sub_")

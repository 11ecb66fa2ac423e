"""Public reductions and statistics (sum, mean, max, std, median, quantile, cumsum, kron, ...)
over dispatch; composites (var, std, nanmean, median, diff, trace, kron) call other public
functions. Imports `framework` and `ops`.
"""
from __future__ import annotations

import builtins
import numbers

from ..framework import dtype as _dt
from ..framework.tensor import Tensor, is_tensor_or_variable
from ..ops.dispatch import call, dispatch
from ..ops.opdef import REGISTRY
from ._helpers import static_float_only

__all__ = ["sum", "mean", "max", "min", "amax", "amin", "prod", "all", "any", "logsumexp",
           "nansum", "nanmean", "count_nonzero", "std", "var", "numel", "median",
           "nanmedian", "quantile", "nanquantile", "mode", "kthvalue", "cumsum", "cumprod",
           "cummax", "cummin", "logcumsumexp", "diff", "trace", "kron"]

_OPS = REGISTRY


def _dtype_attr(dtype):
    return None if dtype is None else _dt.convert_dtype(dtype).name


def _axis_attr(api: str, axis, arg: str = "axis"):
    """Validate a Python axis argument (None, int, list/tuple of ints, 1-element Tensor)."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis.tolist()
    if isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
        return int(axis)
    if isinstance(axis, (list, tuple)):
        out = []
        for a in axis:
            if isinstance(a, Tensor):
                a = a.item()
            if not isinstance(a, numbers.Integral) or isinstance(a, bool):
                raise TypeError(f"{api}: {arg} must be an int or a list/tuple of ints, got "
                                f"{axis!r}")
            out.append(int(a))
        return out
    raise TypeError(f"{api}: {arg} must be None, an int or a list/tuple of ints, got "
                    f"{type(axis).__name__}")


def _int_axis(api: str, axis, arg: str = "axis"):
    if isinstance(axis, Tensor):
        axis = axis.item()
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise _AxisTypeError(f"{api}: {arg} must be an int, got {type(axis).__name__}")
    return int(axis)


class _AxisTypeError(TypeError, ValueError):
    """A non-int axis (Paddle raises ValueError for median's, TypeError elsewhere)."""


def _reduce(name, x, axis, keepdim, **attrs):
    return dispatch(_OPS[name], (x,), {"axis": _axis_attr(name, axis), "keepdim":
                                       bool(keepdim), **attrs})


# --- reductions ---------------------------------------------------------------------------

def sum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum of x over `axis`.

    Args:
        x (Tensor): input.
        axis (int|list|tuple|None): axes to reduce; None reduces all (0-D result).
        dtype (str|paddle.dtype|None): output dtype; bool/int inputs give int64 by default.
        keepdim (bool): keep reduced dims with size 1. Default False.
    Returns:
        Tensor: the sums.
    """
    return _reduce("sum", x, axis, keepdim, dtype=_dtype_attr(dtype))


def mean(x, axis=None, keepdim=False, name=None, *, dtype=None):
    """Arithmetic mean of x over `axis` (None: all elements, 0-D result).

    Integer and bool inputs give the default float dtype; `dtype` (Paddle 3.x) casts x to
    that dtype first, so the mean is computed and returned in it.
    """
    if dtype is not None:
        x = call("cast", x, dtype=_dt.convert_dtype(dtype).name)
    return _reduce("mean", x, axis, keepdim)


def max(x, axis=None, keepdim=False, name=None):
    """Maximum over `axis`; the gradient goes in full to every tied maximum."""
    return _reduce("max", x, axis, keepdim)


def min(x, axis=None, keepdim=False, name=None):
    """Minimum over `axis`; the gradient goes in full to every tied minimum."""
    return _reduce("min", x, axis, keepdim)


def amax(x, axis=None, keepdim=False, name=None):
    """Maximum over `axis`; the gradient is split evenly among tied maxima."""
    return _reduce("amax", x, axis, keepdim)


def amin(x, axis=None, keepdim=False, name=None):
    """Minimum over `axis`; the gradient is split evenly among tied minima."""
    return _reduce("amin", x, axis, keepdim)


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """Product over `axis`; `dtype` (if given) is the computation and output dtype."""
    return _reduce("prod", x, axis, keepdim, dtype=_dtype_attr(dtype))


def all(x, axis=None, keepdim=False, name=None):
    """Logical and over `axis` (bool result)."""
    return _reduce("all", x, axis, keepdim)


def any(x, axis=None, keepdim=False, name=None):
    """Logical or over `axis` (bool result)."""
    return _reduce("any", x, axis, keepdim)


def logsumexp(x, axis=None, keepdim=False, name=None):
    """log(sum(exp(x))) over `axis`, computed without overflow."""
    return _reduce("logsumexp", x, axis, keepdim)


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """Sum over `axis` treating nan as zero."""
    return _reduce("nansum", x, axis, keepdim, dtype=_dtype_attr(dtype))


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """Number of nonzero elements over `axis` (int64)."""
    return _reduce("count_nonzero", x, axis, keepdim)


def numel(x, name=None):
    """Number of elements of x as an int64 0-D Tensor."""
    return dispatch(_OPS["numel"], (x,))


def _reduced_count(api, x, axis) -> int:
    from ..ops.reduce import reduce_axes, reduced_count
    return reduced_count(tuple(x.shape), reduce_axes(api, _axis_attr(api, axis), x.ndim))


def _as_float(x):
    return x if x.dtype.kind in "fc" else call("cast", x, dtype=_dt.default_float().name)


def nanmean(x, axis=None, keepdim=False, name=None):
    """Mean over `axis` ignoring nan (nan where a slice is all nan)."""
    static_float_only("nanmean", x)
    x = _as_float(x)
    total = nansum(x, axis=axis, keepdim=keepdim)
    nans = sum(call("cast", call("isnan", x), dtype=x.dtype.name), axis=axis, keepdim=keepdim)
    return total / (float(_reduced_count("nanmean", x, axis)) - nans)


def var(x, axis=None, unbiased=None, keepdim=False, name=None, *, correction=1):
    """Variance over `axis`, dividing by N - correction (Paddle 3.x; default 1);
    `unbiased` (2.x) False divides by N, True by N - 1. Only one of the two may be given."""
    static_float_only("var", x)
    if unbiased is not None and correction != 1:
        raise ValueError(f"var: only one of unbiased and correction may be given, got "
                         f"unbiased={unbiased}, correction={correction}")
    if unbiased is not None:
        correction = 1 if unbiased else 0
    x = _as_float(x)
    centered = x - mean(x, axis=axis, keepdim=True)
    count = _reduced_count("var", x, axis)
    divisor = builtins.max(count - correction, 0)
    return sum(centered * centered, axis=axis, keepdim=keepdim) / float(divisor)


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation over `axis` (square root of `var`)."""
    static_float_only("std", x)
    return call("sqrt", var(x, axis=axis, unbiased=bool(unbiased), keepdim=keepdim))


# --- order statistics ---------------------------------------------------------------------

def _q_attr(api: str, q):
    if isinstance(q, Tensor):
        q = q.tolist()
    if isinstance(q, (list, tuple)):
        if not q:
            raise ValueError(f"{api}: q must not be an empty list")
        out = [float(v.item() if isinstance(v, Tensor) else v) for v in q]
    elif isinstance(q, numbers.Real):
        out = float(q)
    else:
        raise TypeError(f"{api}: q must be a float or a list of floats, got "
                        f"{type(q).__name__}")
    for v in out if isinstance(out, list) else [out]:
        if not 0 <= v <= 1:
            raise ValueError(f"{api}: q must be in the range [0, 1], got {v}")
    return out


def _quantile(api, x, q, axis, keepdim, interpolation):
    return dispatch(_OPS[api], (x,), {"q": _q_attr(api, q), "axis": _axis_attr(api, axis),
                                      "keepdim": bool(keepdim),
                                      "interpolation": interpolation})


def quantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """Quantiles of x over `axis`.

    Args:
        x (Tensor): input (ints give the default float).
        q (float|list|tuple|Tensor): quantile(s) in [0, 1]; a list adds a leading dim.
        axis (int|list|tuple|None): axes to reduce; None reduces all.
        keepdim (bool): keep reduced dims with size 1.
        interpolation (str): 'linear', 'lower', 'higher', 'nearest' or 'midpoint'.
    Returns:
        Tensor: the quantiles (nan where a slice contains nan).
    """
    return _quantile("quantile", x, q, axis, keepdim, interpolation)[0]


def nanquantile(x, q, axis=None, keepdim=False, interpolation="linear", name=None):
    """Like `quantile`, ignoring nan elements (nan where a slice is all nan)."""
    return _quantile("nanquantile", x, q, axis, keepdim, interpolation)[0]


def _median(api, op, x, axis, keepdim, mode):
    if mode not in ("avg", "min"):
        raise ValueError(f"{api}: mode must be 'avg' or 'min', got {mode!r}")
    int_axis = isinstance(axis, numbers.Integral) and not isinstance(axis, bool)
    out, index, _ = _quantile(op, x, 0.5, axis, keepdim,
                              "linear" if mode == "avg" else "lower")
    if mode == "avg":
        if out.dtype.name not in ("float32", "float64"):
            out = call("cast", out, dtype="float32")
        return out
    if out.dtype != x.dtype:
        out = call("cast", out, dtype=x.dtype.name)
    return (out, index) if int_axis else out


def median(x, axis=None, keepdim=False, mode="avg", name=None):
    """Median over `axis` (an int or None for all elements).

    mode 'avg' averages the two middle elements of an even count (float result: float64
    for float64 input, else float32); 'min' takes the lower one (x's dtype) and, when axis
    is an int, also returns its int64 index.
    """
    if not is_tensor_or_variable(x):   # Paddle: TypeError for lists and arrays
        raise TypeError(f"median: x must be a Tensor, got {type(x).__name__}")
    if axis is not None:
        _int_axis("median", axis)
    return _median("median", "quantile", x, axis, keepdim, mode)


def nanmedian(x, axis=None, keepdim=False, mode="avg", name=None):
    """Median over `axis` (None, int or list) ignoring nan; see `median` for `mode`."""
    return _median("nanmedian", "nanquantile", x, axis, keepdim, mode)


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """The k-th smallest value (k from 1) along `axis` (default last) and its int64 index."""
    if isinstance(k, Tensor):
        k = k.item()
    if not isinstance(k, numbers.Integral) or isinstance(k, bool):
        raise TypeError(f"kthvalue: k must be an int, got {type(k).__name__}")
    ax = -1 if axis is None else _int_axis("kthvalue", axis)
    return dispatch(_OPS["kthvalue"], (x,), {"k": int(k), "axis": ax,
                                             "keepdim": bool(keepdim)})


def mode(x, axis=-1, keepdim=False, name=None):
    """The most frequent value along `axis` (smallest on ties) and its last int64 index."""
    return dispatch(_OPS["mode"], (x,), {"axis": _int_axis("mode", axis),
                                         "keepdim": bool(keepdim)})


# --- cumulative ---------------------------------------------------------------------------

def _cum_axis(api, axis, arg="axis"):
    return None if axis is None else _int_axis(api, axis, arg)


def cumsum(x, axis=None, dtype=None, name=None):
    """Running sum along `axis` (None: over the flattened x); `dtype` casts x first."""
    return dispatch(_OPS["cumsum"], (x,), {"axis": _cum_axis("cumsum", axis),
                                           "dtype": _dtype_attr(dtype),
                                           "exclusive": False, "reverse": False})


cumsum._reshapes = True   # axis None flattens: cumsum_ then reshapes x, as in Paddle


def cumprod(x, dim=None, dtype=None, name=None):
    """Running product along `dim` (None: over the flattened x); `dtype` casts x first."""
    return dispatch(_OPS["cumprod"], (x,), {"axis": _cum_axis("cumprod", dim, "dim"),
                                            "dtype": _dtype_attr(dtype),
                                            "exclusive": False, "reverse": False})


def _cum_extreme(api, x, axis, dtype):
    return dispatch(_OPS[api], (x,), {"axis": _cum_axis(api, axis),
                                      "dtype": _dtype_attr(dtype)})


def cummax(x, axis=None, dtype="int64", name=None):
    """Running maximum along `axis` (None flattens) and the index where it was attained."""
    return _cum_extreme("cummax", x, axis, dtype)


def cummin(x, axis=None, dtype="int64", name=None):
    """Running minimum along `axis` (None flattens) and the index where it was attained."""
    return _cum_extreme("cummin", x, axis, dtype)


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """log(cumsum(exp(x))) along `axis` (None flattens), computed without overflow."""
    return dispatch(_OPS["logcumsumexp"], (x,), {"axis": _cum_axis("logcumsumexp", axis),
                                                 "dtype": _dtype_attr(dtype)})


# --- composites over other families ---------------------------------------------------------

def _public(fn: str):
    from . import FUNCTIONS  # late: the family modules are all loaded by then
    return FUNCTIONS[fn]


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None):
    """n-th forward difference along `axis`; `prepend`/`append` are concatenated first.

    Bool tensors use logical xor (x[i+1] != x[i]).
    """
    if not isinstance(n, numbers.Integral) or n < 0:
        raise ValueError(f"diff: n must be a non-negative int, got {n!r}")
    axis = _int_axis("diff", axis)
    if x.ndim == 0:
        raise ValueError("diff: x must have at least 1 dim, got a 0-D tensor")
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = _public("concat")(parts, axis=axis)
    slice_ = _public("slice")
    ax = axis % x.ndim
    for _ in range(int(n)):
        size = x.shape[ax]
        hi = slice_(x, axes=[ax], starts=[1], ends=[builtins.max(size, 1)])
        lo = slice_(x, axes=[ax], starts=[0], ends=[builtins.max(size - 1, 0)])
        x = _public("not_equal")(hi, lo) if x.dtype.kind == "b" else hi - lo
    return x


def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """Sum of the diagonal (shifted by `offset`) of the 2-D planes given by axis1/axis2."""
    if x.ndim < 2:
        raise ValueError(f"trace: x must have at least 2 dims, got shape {list(x.shape)}")
    d = _public("diagonal")(x, offset=offset, axis1=axis1, axis2=axis2)
    return sum(d, axis=-1, dtype=None if x.dtype.kind == "b" else x.dtype)


def kron(x, y, name=None):
    """Kronecker product: out[i*ys + j] = x[i] * y[j] per dim (ranks padded with 1s)."""
    nd = builtins.max(x.ndim, y.ndim)
    xs = [1] * (nd - x.ndim) + list(x.shape)
    ys = [1] * (nd - y.ndim) + list(y.shape)
    xr = call("reshape", x, shape=[v for d in xs for v in (d, 1)])
    yr = call("reshape", y, shape=[v for d in ys for v in (1, d)])
    return call("reshape", xr * yr, shape=[a * b for a, b in zip(xs, ys)])


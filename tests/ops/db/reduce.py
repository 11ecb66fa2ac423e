"""Op database entries for sampan/ops/reduce.py and reduce_order.py (order statistics)."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _ax(axis, x=None):
    if x is not None and x.ndim == 0:
        return None
    return tuple(axis) if isinstance(axis, list) else axis


def _reduce_samples(rng, dtype):
    x = rng.standard_normal((3, 4, 2)).astype(dtype)
    return [Sample((x,), {}), Sample((x,), {"axis": 1}), Sample((x,), {"axis": [0, 2]}),
            Sample((x,), {"axis": -1, "keepdim": True}),
            Sample((x,), {"axis": (0, 1), "keepdim": True}, name="tuple-keepdim"),
            Sample((np.asarray(rng.standard_normal(), dtype=dtype),), {}, name="0-d"),
            Sample((np.asarray(rng.standard_normal(), dtype=dtype),), {"axis": 0},
                   name="0-d-axis"),
            Sample((rng.standard_normal((0, 3)).astype(dtype),), {"axis": 0}, name="empty"),
            Sample((x.transpose(2, 0, 1),), {"axis": 2}, name="non-contiguous")]


def _nonempty(rng, dtype):
    return [s for s in _reduce_samples(rng, dtype) if s.name != "empty"]


def _ties(rng, dtype):
    x = np.array([[0.1, 0.9, 0.9, 0.9], [0.9, 0.9, 0.6, 0.7]], dtype=dtype)
    return [Sample((x,), {}, name="ties-all"), Sample((x,), {"axis": 0}, name="ties-0"),
            Sample((x,), {"axis": 1, "keepdim": True}, name="ties-1")]


def _np(fn):
    def ref(x, axis=None, keepdim=False, **kw):
        return fn(x, axis=_ax(axis, x), keepdims=keepdim, **kw)
    return ref


def _np_sum(x, axis=None, keepdim=False, dtype=None):
    if dtype is None and x.dtype.kind in "bui":
        dtype = np.int64
    return np.sum(x, axis=_ax(axis, x), keepdims=keepdim, dtype=dtype)


def _int_samples(rng, dtype):
    x = rng.integers(-3, 4, (3, 4))
    return [Sample((x.astype("int32"),), {}), Sample((x.astype("bool"),), {"axis": 1}),
            Sample((x.astype("int64"),), {"axis": 0, "dtype": "float64"}, name="dtype")]


def _prod_samples(rng, dtype):
    x = rng.uniform(0.5, 1.5, (3, 4, 2)).astype(dtype)
    z = x.copy()
    z[1, 2, 0] = 0.0
    z[0, 1, 1] = 0.0
    z[0, 3, 1] = 0.0
    return [Sample((x,), {}), Sample((x,), {"axis": 1}), Sample((x,), {"axis": [0, 2]}),
            Sample((x,), {"axis": -1, "keepdim": True}),
            Sample((z,), {"axis": [0, 1]}, name="zeros"),
            Sample((z,), {"axis": 1}, name="zeros-1"),
            Sample((np.asarray(1.3, dtype),), {}, name="0-d"),
            Sample((rng.uniform(0.5, 1.5, (0, 3)).astype(dtype),), {"axis": 0}, name="empty"),
            Sample((x.transpose(2, 0, 1),), {"axis": 2}, name="non-contiguous")]


def _np_logsumexp(x, axis=None, keepdim=False):
    from scipy.special import logsumexp
    return np.asarray(logsumexp(x, axis=_ax(axis, x), keepdims=keepdim))


def _logical_samples(rng, dtype):
    x = rng.integers(0, 2, (3, 4)).astype(bool)
    return [Sample((x,), {}), Sample((x,), {"axis": 1}), Sample((x,), {"axis": [0, 1],
                                                                       "keepdim": True}),
            Sample((np.asarray(True),), {}, name="0-d"),
            Sample((np.zeros((0, 2), bool),), {"axis": 0}, name="empty"),
            Sample((rng.standard_normal((2, 3)).astype(dtype),), {"axis": 0}, name="float")]


def _nan_samples(rng, dtype):
    x = rng.standard_normal((3, 4)).astype(dtype)
    x[0, 1] = np.nan
    x[2, :] = np.nan
    return [Sample((x,), {}), Sample((x,), {"axis": 1}), Sample((x,), {"axis": 0,
                                                                       "keepdim": True}),
            Sample((np.asarray(np.nan, dtype),), {}, name="0-d")]


def _count_samples(rng, dtype):
    x = rng.integers(-1, 2, (3, 4)).astype(dtype)
    return [Sample((x,), {}), Sample((x,), {"axis": 1}), Sample((x,), {"axis": [0, 1],
                                                                       "keepdim": True}),
            Sample((np.asarray(0.0, dtype),), {}, name="0-d")]


def _quantile_samples(rng, dtype):
    x = rng.standard_normal((4, 5)).astype(dtype)
    y = rng.standard_normal((2, 3, 4)).astype(dtype)
    out = [Sample((x, 0.3), {}), Sample((x, 0.5), {"axis": 1}),
           Sample((x, [0.2, 0.75]), {"axis": 0, "keepdim": True}, name="list-keepdim"),
           Sample((y, 0.4), {"axis": [0, 2]}, name="multi-axis"),
           Sample((x.T, 0.6), {"axis": -1}, name="non-contiguous"),
           Sample((np.asarray(1.5, dtype), 0.5), {}, name="0-d")]
    for interp in ("lower", "higher", "nearest", "midpoint"):
        out.append(Sample((x, [0.1, 0.3]), {"axis": 1, "interpolation": interp}, name=interp))
    return out


def _np_quantile(fn):
    def ref(x, q, axis=None, keepdim=False, interpolation="linear"):
        return fn(x, q, axis=_ax(axis), keepdims=keepdim, method=interpolation)
    return ref


def _nanquantile_samples(rng, dtype):
    x = rng.standard_normal((4, 5)).astype(dtype)
    x[0, 2] = np.nan
    x[3, 1] = np.nan
    x[3, 4] = np.nan
    return [Sample((x, 0.3), {"axis": 1}), Sample((x, [0.25, 0.5]), {"axis": 0}),
            Sample((x, 0.7), {}, name="all"),
            Sample((x, 0.5), {"axis": 1, "interpolation": "lower"}, name="lower")]


def _select_samples(rng, dtype):
    x = rng.permutation(24).reshape(2, 3, 4).astype(dtype) / 4
    return [Sample((x, 2), {}), Sample((x, 1), {"axis": 0}),
            Sample((x, 3), {"axis": 1, "keepdim": True}, name="keepdim"),
            Sample((x.transpose(2, 1, 0), 2), {"axis": -1}, name="non-contiguous"),
            Sample((np.asarray(1.5, dtype), 1), {}, name="0-d")]


def _np_kthvalue(x, k, axis=None, keepdim=False):
    ax = -1 if axis is None else axis
    if x.ndim == 0:
        return x, np.asarray(0)
    idx = np.take(np.argsort(x, axis=ax, kind="stable"), [k - 1], axis=ax)
    vals = np.take_along_axis(x, idx, axis=ax)
    if not keepdim:
        vals, idx = vals.squeeze(ax), idx.squeeze(ax)
    return vals, idx


def _mode_samples(rng, dtype):
    x = np.array([[[1, 2, 2], [2, 3, 3]], [[0, 5, 5], [9, 9, 0]]], dtype=dtype)
    y = rng.integers(0, 3, (3, 6)).astype(dtype) + rng.standard_normal((3, 1)).astype(dtype)
    return [Sample((x,), {"axis": 2}), Sample((y,), {}), Sample((y,), {"axis": 0,
                                                                       "keepdim": True}),
            Sample((np.asarray(2.5, dtype),), {}, name="0-d")]


def _np_mode(x, axis=-1, keepdim=False):
    if x.ndim == 0:
        return x, np.asarray(0)
    rows = np.moveaxis(x, axis, -1)
    vals = np.empty(rows.shape[:-1], x.dtype)
    idx = np.empty(rows.shape[:-1], np.int64)
    for pos in np.ndindex(rows.shape[:-1]):
        row = list(rows[pos])
        best = min(set(row), key=lambda v: (-row.count(v), v))
        vals[pos] = best
        idx[pos] = len(row) - 1 - row[::-1].index(best)
    if keepdim:
        vals, idx = np.expand_dims(vals, axis), np.expand_dims(idx, axis)
    return vals, idx


ENTRIES = [
    OpEntry("sum", paddle.sum, _np_sum, _reduce_samples),
    OpEntry("sum", paddle.sum, _np_sum, _int_samples, grad=False, name="sum-int"),
    OpEntry("mean", paddle.mean, _np(np.mean), _nonempty),
    OpEntry("mean", paddle.mean, lambda x, **kw: _np(np.mean)(x, **kw).astype("float32"),
            lambda rng, dt: [Sample((rng.integers(0, 5, (3, 4)),), {"axis": 1})],
            grad=False, name="mean-int"),
    OpEntry("max", paddle.max, _np(np.max), _nonempty, double_grad=False),
    OpEntry("min", paddle.min, _np(np.min), _nonempty, double_grad=False),
    OpEntry("amax", paddle.amax, _np(np.max), _nonempty, double_grad=False),
    OpEntry("amin", paddle.amin, _np(np.min), _nonempty, double_grad=False),
    OpEntry("max", paddle.max, _np(np.max), _ties, grad=False, name="max-ties"),
    OpEntry("prod", paddle.prod, _np(np.prod), _prod_samples),
    OpEntry("all", paddle.all, _np(np.all), _logical_samples, grad=False),
    OpEntry("any", paddle.any, _np(np.any), _logical_samples, grad=False),
    OpEntry("logsumexp", paddle.logsumexp, _np_logsumexp, _nonempty),
    OpEntry("nansum", paddle.nansum, _np(np.nansum), _nan_samples),
    OpEntry("count_nonzero", paddle.count_nonzero, _np(np.count_nonzero), _count_samples,
            grad=False),
    OpEntry("numel", paddle.numel, lambda x: np.asarray(x.size, np.int64),
            lambda rng, dt: [Sample((rng.standard_normal((2, 3)).astype(dt),)),
                             Sample((np.asarray(1.0, dt),), name="0-d"),
                             Sample((np.zeros((0, 4), dt),), name="empty")], grad=False),
    OpEntry("quantile", paddle.quantile, _np_quantile(np.quantile), _quantile_samples,
            double_grad=False),
    OpEntry("nanquantile", paddle.nanquantile, _np_quantile(np.nanquantile),
            _nanquantile_samples, double_grad=False),
    OpEntry("kthvalue", paddle.kthvalue, _np_kthvalue, _select_samples, double_grad=False),
    OpEntry("mode", paddle.mode, _np_mode, _mode_samples, grad=False),
    OpEntry("mode", paddle.mode, _np_mode,
            lambda rng, dt: [Sample((rng.standard_normal((3, 4)).astype(dt),), {"axis": 0})],
            double_grad=False, name="mode-grad"),
]

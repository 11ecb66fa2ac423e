"""Op database entries for sampan/ops/cumulative.py."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _samples(rng, dtype, lo=-2.0, hi=2.0, arg="axis"):
    def r(*shape):
        return rng.uniform(lo, hi, shape).astype(dtype)
    x = r(3, 4)
    return [Sample((x,), {}, name="flatten"), Sample((x,), {arg: 0}), Sample((x,), {arg: -1}),
            Sample((r(2, 3, 2),), {arg: 1}, name="3-d"),
            Sample((r(4, 3).T,), {arg: 1}, name="non-contiguous"),
            Sample((np.asarray(r(), dtype),), {arg: 0}, name="0-d"),
            Sample((np.asarray(r(), dtype),), {}, name="0-d-flatten"),
            Sample((r(0, 3),), {arg: 0}, name="empty")]


def _ref(fn, arg="axis"):
    def ref(x, dtype=None, **kw):
        axis = kw.get(arg)
        if dtype is not None:
            x = x.astype(dtype)
        if axis is None or x.ndim == 0:
            out = fn(x.reshape(-1), axis=0)
            return out if axis is None else out.reshape(x.shape)
        return fn(x, axis=axis)
    return ref


def _np_cumext(ufunc, cmp):
    def ref(x, axis=None, dtype="int64"):
        flat = axis is None or x.ndim == 0
        rows = x.reshape(-1) if flat else np.moveaxis(x, axis, -1)
        vals = ufunc.accumulate(rows, axis=-1) if rows.size else rows.copy()
        idx = np.zeros(rows.shape, np.int64)
        for pos in np.ndindex(rows.shape[:-1]):
            best = 0
            for j in range(rows.shape[-1]):
                if cmp(rows[pos + (j,)], rows[pos + (best,)]):
                    best = j
                idx[pos + (j,)] = best
        if x.ndim == 0 and axis is not None:
            vals, idx = vals.reshape(()), idx.reshape(())
        elif not flat:
            vals, idx = np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)
        return vals, idx.astype(dtype)
    return ref


def _cumext_samples(rng, dtype):
    out = _samples(rng, dtype)
    ties = np.array([[1, 3, 3, 2, 5], [4, 4, 1, 1, 0]], dtype=dtype)
    out.append(Sample((ties,), {"axis": 1}, name="ties"))
    out.append(Sample((ties,), {"axis": 1, "dtype": "int32"}, name="int32"))
    return out


def _no_ties(rng, dtype):
    return [s for s in _samples(rng, dtype) if s.name != "ties"]


def _np_logcumsumexp(x, axis=None, dtype=None):
    return _ref(np.logaddexp.accumulate)(x, axis=axis)


ENTRIES = [
    OpEntry("cumsum", paddle.cumsum, _ref(np.cumsum), _samples, inplace="cumsum_"),
    OpEntry("cumsum", paddle.cumsum, _ref(np.cumsum),
            lambda rng, dt: [Sample((rng.integers(0, 5, (3, 4)).astype("int32"),), {"axis": 1}),
                             Sample((rng.integers(0, 5, (3, 4)),), {"dtype": "float64"})],
            grad=False, name="cumsum-int"),
    OpEntry("cumprod", paddle.cumprod, _ref(np.cumprod, "dim"),
            lambda rng, dt: _samples(rng, dt, 0.5, 1.5, "dim"), inplace="cumprod_"),
    OpEntry("cummax", paddle.cummax, _np_cumext(np.maximum, lambda a, b: a >= b),
            _cumext_samples, grad=False, name="cummax-values"),
    OpEntry("cummin", paddle.cummin, _np_cumext(np.minimum, lambda a, b: a <= b),
            _cumext_samples, grad=False, name="cummin-values"),
    OpEntry("cummax", paddle.cummax, _np_cumext(np.maximum, lambda a, b: a >= b), _no_ties,
            double_grad=False),
    OpEntry("cummin", paddle.cummin, _np_cumext(np.minimum, lambda a, b: a <= b), _no_ties,
            double_grad=False),
    OpEntry("logcumsumexp", paddle.logcumsumexp, _np_logcumsumexp, _samples),
]

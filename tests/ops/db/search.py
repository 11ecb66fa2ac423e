"""Op database entries for sampan/ops/search.py.

nonzero, masked_select, unique, unique_consecutive and bincount have data-dependent output
sizes: their `infer` reports -1 for those dims.
"""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _distinct(rng, dtype, *shape):
    """Values with no ties (so argmax/sort/topk are smooth and unambiguous)."""
    n = int(np.prod(shape)) if shape else 1
    vals = (rng.permutation(n) - n // 2 + rng.uniform(0.1, 0.4, n)).astype(dtype)
    return vals.reshape(shape)


def _ties(rng, dtype, *shape):
    return rng.integers(-2, 3, shape).astype(dtype)


# --- where ----------------------------------------------------------------------------------

def _where_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)

    def c(*shape):
        return rng.integers(0, 2, shape).astype(bool)
    return [Sample((c(3, 4), r(3, 4), r(3, 4)), name="same"),
            Sample((c(3, 4), r(4), r(3, 1)), name="broadcast"),
            Sample((c(4), r(3, 4), r()), name="cond-broadcast"),
            Sample((c(), r(), r()), name="0-d"),
            Sample((c(3, 4), r(4, 3).T, r(3, 4)), name="non-contiguous"),
            Sample((c(0, 3), r(0, 3), r(3)), name="empty")]


def _where_mixed(rng, dtype):
    cond = rng.integers(0, 2, (2, 3)).astype(bool)
    return [Sample((cond, rng.uniform(-2, 2, (2, 3)).astype(dtype),
                    rng.integers(-3, 3, (2, 3)).astype("int32")), name="float-int"),
            Sample((cond, rng.integers(-3, 3, (2, 3)), rng.integers(-3, 3, 3).astype("int32")),
                   name="int64-int32")]


# --- argmax / argmin ---------------------------------------------------------------------

def _arg_samples(rng, dtype):
    x = _distinct(rng, dtype, 3, 4)
    return [Sample((x,), name="flat"), Sample((x,), {"axis": 1}, name="axis1"),
            Sample((x,), {"axis": -2, "keepdim": True}, name="keepdim"),
            Sample((x,), {"keepdim": True}, name="flat-keepdim"),
            Sample((x.T,), {"axis": 0, "dtype": "int32"}, name="non-contiguous-int32"),
            Sample((_ties(rng, dtype, 2, 5),), {"axis": 1}, name="ties-first"),
            Sample((_distinct(rng, dtype),), name="0-d"),
            Sample((np.zeros((0, 3), dtype),), {"axis": 1}, name="empty")]


def _arg_ref(fn):
    def ref(x, axis=None, keepdim=False, dtype="int64"):
        if x.ndim == 0:
            return np.zeros((), dtype)
        return fn(x, axis=axis, keepdims=keepdim).astype(dtype)
    return ref


# --- sort family -------------------------------------------------------------------------

def _np_argsort(x, axis=-1, descending=False, stable=False):
    if x.ndim == 0:
        return np.zeros((), np.int64)
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    # stable descending: sort by (-rank of value, position)
    n = x.shape[axis]
    idx = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - idx, axis)


def _np_sort(x, axis=-1, descending=False, stable=False):
    if x.ndim == 0:
        return x.copy()
    return np.take_along_axis(x, _np_argsort(x, axis, descending), axis)


def _sort_samples(rng, dtype):
    x = _distinct(rng, dtype, 3, 4)
    return [Sample((x,), name="last"), Sample((x,), {"axis": 0}, name="axis0"),
            Sample((x,), {"descending": True}, name="descending"),
            Sample((_distinct(rng, dtype, 2, 3, 2),), {"axis": 1, "descending": True},
                   name="3-d"),
            Sample((x.T,), {"axis": -1}, name="non-contiguous"),
            Sample((_distinct(rng, dtype),), name="0-d"),
            Sample((np.zeros((0, 3), dtype),), name="empty")]


def _argsort_samples(rng, dtype):
    return _sort_samples(rng, dtype) + [
        Sample((_ties(rng, dtype, 3, 5),), {"descending": True, "stable": True},
               name="ties-descending"),
        Sample((_ties(rng, dtype, 3, 5),), {"axis": 0, "stable": True}, name="ties")]


def _topk_ref(x, k, axis=None, largest=True, sorted=True):
    axis = -1 if axis is None else axis
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int64)
    idx = np.take(_np_argsort(x, axis, largest), np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx


def _topk_samples(rng, dtype):
    x = _distinct(rng, dtype, 3, 5)
    return [Sample((x, 2), name="k2"), Sample((x, 3), {"axis": 0}, name="axis0"),
            Sample((x, 2), {"largest": False}, name="smallest"),
            Sample((x.T, 1), {"axis": 1}, name="non-contiguous"),
            Sample((x, 5), name="k=n"), Sample((x, 0), name="k=0"),
            Sample((_distinct(rng, dtype), 1), name="0-d")]


# --- selection ---------------------------------------------------------------------------

def _nonzero_samples(rng, dtype):
    return [Sample((_ties(rng, dtype, 3, 4),)), Sample((_ties(rng, dtype, 5),), name="1-d"),
            Sample((_ties(rng, dtype, 2, 3, 2).transpose(2, 0, 1),), name="non-contiguous"),
            Sample((np.zeros((2, 3), dtype),), name="none"),
            Sample((np.zeros((0, 3), dtype),), name="empty")]


def _masked_select_ref(x, mask):
    xb, mb = np.broadcast_arrays(x, mask)
    return xb[mb]


def _mask(rng, *shape):
    return rng.integers(0, 2, shape).astype(bool)


def _masked_select_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(3, 4), _mask(rng, 3, 4)), name="same"),
            Sample((r(3, 4), _mask(rng, 4)), name="mask-broadcast"),
            Sample((r(4), _mask(rng, 2, 4)), name="x-broadcast"),
            Sample((r(4, 3).T, _mask(rng, 3, 4)), name="non-contiguous"),
            Sample((r(), np.array(True)), name="0-d"),
            Sample((r(3), np.zeros(3, bool)), name="none"),
            Sample((r(0, 2), _mask(rng, 0, 2)), name="empty")]


def _masked_scatter_ref(x, mask, value):
    xb, mb = np.broadcast_arrays(x, mask)
    out = xb.copy()
    out[mb] = value.reshape(-1)[:int(mb.sum())]
    return out


def _masked_scatter_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    mask = _mask(rng, 3, 4)
    count = int(mask.sum())
    return [Sample((r(3, 4), mask, r(count)), name="exact"),
            Sample((r(3, 4), mask, r(4, 4)), name="larger-value"),
            Sample((r(4), mask, r(3, 4)), name="x-broadcast"),
            Sample((r(3, 4), _mask(rng, 4), r(12)), name="mask-broadcast"),
            Sample((r(), np.array(True), r(2)), name="0-d"),
            Sample((r(0, 2), _mask(rng, 0, 2), r(1)), name="empty")]


def _index_sample_ref(x, index):
    return np.take_along_axis(x, index.astype(np.int64), 1)


def _index_sample_samples(rng, dtype):
    x = rng.uniform(-2, 2, (3, 5)).astype(dtype)
    return [Sample((x, rng.integers(0, 5, (3, 2))), name="int64"),
            Sample((x, rng.integers(0, 5, (3, 6)).astype("int32")), name="repeats-int32"),
            Sample((x.T.copy().T, rng.integers(0, 5, (3, 4))), name="non-contiguous"),
            Sample((x, np.zeros((3, 0), np.int64)), name="empty")]


# --- searchsorted ------------------------------------------------------------------------

def _searchsorted_ref(seq, values, out_int32=False, right=False):
    # Independent of the kernel: Python's bisect on each row, element by element.
    import bisect
    find = bisect.bisect_right if right else bisect.bisect_left
    dtype = np.int32 if out_int32 else np.int64
    rows = seq.reshape(-1, seq.shape[-1]).tolist()
    vals = values.reshape(len(rows), -1) if seq.ndim > 1 else values.reshape(1, -1)
    out = [[find(rows[min(i, len(rows) - 1)], v) for v in row] for i, row in enumerate(
        vals.tolist())]
    return np.asarray(out, dtype=dtype).reshape(values.shape)


def _searchsorted_samples(rng, dtype):
    seq = np.sort(_ties(rng, dtype, 6))
    seq2 = np.sort(_ties(rng, dtype, 2, 3, 4), axis=-1)
    return [Sample((seq, _ties(rng, dtype, 3, 2)), name="1-d"),
            Sample((seq, _ties(rng, dtype, 4)), {"right": True}, name="right"),
            Sample((seq2, _ties(rng, dtype, 2, 3, 5)), {"out_int32": True}, name="n-d"),
            Sample((seq, _ties(rng, dtype)), name="0-d"),
            Sample((seq, np.zeros((0,), dtype)), name="empty")]


def _bucketize_samples(rng, dtype):
    seq = np.sort(_ties(rng, dtype, 5))
    return [Sample((_ties(rng, dtype, 2, 3), seq)),
            Sample((_ties(rng, dtype, 4), seq), {"right": True, "out_int32": True},
                   name="right")]


# --- unique ------------------------------------------------------------------------------

def _unique_ref(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
                dtype="int64"):
    flat = x.reshape(-1) if axis is None else x
    out, index, inverse, counts = np.unique(flat, return_index=True, return_inverse=True,
                                            return_counts=True, axis=axis)
    extra = [a.reshape(-1).astype(dtype) for a, flag in
             ((index, return_index), (inverse, return_inverse), (counts, return_counts))
             if flag]
    return tuple([out] + extra) if extra else out


def _unique_samples(rng, dtype):
    x = _ties(rng, dtype, 3, 4)
    rows = np.array([[1, 2], [0, 1], [1, 2], [0, 1], [3, 3]], dtype)
    every = {"return_index": True, "return_inverse": True, "return_counts": True}
    return [Sample((x,), name="plain"), Sample((x,), every, name="all-outputs"),
            Sample((rows,), dict(every, axis=0), name="axis0"),
            Sample((rows.T,), dict(every, axis=1, dtype="int32"), name="axis1-int32"),
            Sample((np.asarray(2, dtype),), every, name="0-d"),
            Sample((np.zeros((0, 2), dtype),), every, name="empty")]


def _unique_consecutive_ref(x, return_inverse=False, return_counts=False, axis=None,
                            dtype="int64"):
    rows = x.reshape(-1, 1) if axis is None else np.moveaxis(x, axis, 0).reshape(
        x.shape[axis], -1)
    keep = [0] if len(rows) else []
    for i in range(1, len(rows)):
        if not np.array_equal(rows[i], rows[i - 1]):
            keep.append(i)
    inverse = np.cumsum([i in keep for i in range(len(rows))]) - 1
    counts = np.diff(keep + [len(rows)])
    if axis is None:
        out = x.reshape(-1)[keep]
    else:
        out = np.take(x, keep, axis=axis)
    extra = [a.astype(dtype) for a, flag in ((inverse, return_inverse),
                                             (counts, return_counts)) if flag]
    return tuple([out] + extra) if extra else out


def _unique_consecutive_samples(rng, dtype):
    x = np.array([[1, 1, 2], [2, 2, 3], [3, 1, 1]], dtype)
    every = {"return_inverse": True, "return_counts": True}
    return [Sample((x,), name="plain"), Sample((x,), every, name="all-outputs"),
            Sample((np.array([[1, 2], [1, 2], [0, 1], [1, 2]], dtype),), dict(every, axis=0),
                   name="axis0"),
            Sample((x.T,), dict(every, axis=1, dtype="int32"), name="axis1"),
            Sample((np.asarray(2, dtype),), every, name="0-d"),
            Sample((np.zeros((0,), dtype),), every, name="empty")]


# --- histogram / bincount ------------------------------------------------------------------

def _histogram_ref(x, bins=100, min=0, max=0, weight=None, density=False):
    lo, hi = float(min), float(max)
    if lo == 0 and hi == 0 and x.size:
        lo, hi = float(x.min()), float(x.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    out, _ = np.histogram(x.reshape(-1).astype(np.float64), bins=bins, range=(lo, hi),
                          weights=None if weight is None else weight.reshape(-1),
                          density=density)
    if weight is None and not density:
        return out.astype(np.int64)
    return out.astype(weight.dtype if weight is not None else x.dtype)


def _histogram_samples(rng, dtype):
    x = rng.uniform(-2, 2, (3, 4)).astype(dtype)
    return [Sample((x,), {"bins": 5}, name="data-range"),
            Sample((x,), {"bins": 4, "min": -1, "max": 1}, name="range"),
            Sample((x.T,), {"bins": 3, "min": 0.5, "max": 0.5}, name="equal-bounds"),
            Sample((x,), {"bins": 4, "weight": rng.uniform(0, 1, (3, 4)).astype(dtype)},
                   name="weight"),
            Sample((x,), {"bins": 4, "density": True}, name="density"),
            Sample((np.asarray(1.0, dtype),), {"bins": 2}, name="0-d"),
            Sample((np.zeros((0,), dtype),), {"bins": 3}, name="empty")]


def _histogram_fn(input, bins=100, min=0, max=0, weight=None, density=False):
    if weight is not None:
        weight = paddle.to_tensor(weight)
    return paddle.histogram(input, bins, min, max, weight, density)


def _bincount_ref(x, weights=None, minlength=0):
    out = np.bincount(x, weights=weights, minlength=minlength)
    return out.astype(np.int64 if weights is None else weights.dtype)


def _bincount_samples(rng, dtype):
    x = rng.integers(0, 5, 8)
    return [Sample((x,), name="plain"),
            Sample((x, rng.uniform(0, 1, 8).astype(dtype)), name="weights"),
            Sample((x.astype("int32"),), {"minlength": 7}, name="minlength"),
            Sample((np.zeros((0,), np.int64),), name="empty")]


ENTRIES = [
    OpEntry("where", paddle.where, np.where, _where_samples),
    OpEntry("where", paddle.where, lambda c, x, y: np.where(c, x, y).astype(
        np.result_type(x.dtype, y.dtype)), _where_mixed, grad=False, name="where-mixed"),
    OpEntry("argmax", paddle.argmax, _arg_ref(np.argmax), _arg_samples,
            dtypes=("float64", "float32", "int64"), grad=False),
    OpEntry("argmin", paddle.argmin, _arg_ref(np.argmin), _arg_samples,
            dtypes=("float64", "float32", "int64"), grad=False),
    OpEntry("argsort", paddle.argsort, _np_argsort, _argsort_samples,
            dtypes=("float64", "float32", "int32"), grad=False),
    OpEntry("sort", paddle.sort, _np_sort, _sort_samples),
    OpEntry("topk", paddle.topk, _topk_ref, _topk_samples),
    OpEntry("topk", paddle.topk, _topk_ref,
            lambda rng, dt: [Sample((_ties(rng, dt, 2, 6), 3)),
                             Sample((_ties(rng, dt, 3, 4), 2), {"axis": 0, "largest": False})],
            dtypes=("float64", "int64"), grad=False, name="topk-ties"),
    OpEntry("nonzero", paddle.nonzero, lambda x: np.argwhere(x), _nonzero_samples,
            dtypes=("float64", "int32", "bool"), grad=False),
    OpEntry("masked_select", paddle.masked_select, _masked_select_ref,
            _masked_select_samples),
    OpEntry("masked_scatter", paddle.masked_scatter, _masked_scatter_ref,
            _masked_scatter_samples),
    OpEntry("index_sample", paddle.index_sample, _index_sample_ref, _index_sample_samples),
    OpEntry("searchsorted", paddle.searchsorted, _searchsorted_ref, _searchsorted_samples,
            dtypes=("float64", "float32", "int64"), grad=False),
    OpEntry("searchsorted", paddle.bucketize,
            lambda x, s, **kw: _searchsorted_ref(s, x, **kw), _bucketize_samples,
            dtypes=("float64", "int64"), grad=False, name="bucketize"),
    OpEntry("unique", paddle.unique, _unique_ref, _unique_samples,
            dtypes=("float64", "float32", "int64"), grad=False),
    OpEntry("unique_consecutive", paddle.unique_consecutive, _unique_consecutive_ref,
            _unique_consecutive_samples, dtypes=("float64", "int64"), grad=False),
    OpEntry("histogram", _histogram_fn, _histogram_ref, _histogram_samples, grad=False),
    OpEntry("bincount", paddle.bincount, _bincount_ref, _bincount_samples, grad=False),
]

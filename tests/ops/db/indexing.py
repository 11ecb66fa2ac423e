"""Op database entries for sampan/ops/indexing.py, indexing_along.py and indexing_gather.py."""
import numpy as np

import sampan as paddle
from sampan.tensor.indexing import getitem, setitem
from tests.ops.op_db import OpEntry, Sample


def _r(rng, dtype, *shape):
    return rng.uniform(-2, 2, shape).astype(dtype)


_KEYS = [
    ("int", (3, 4), 1),
    ("neg-int", (3, 4), -1),
    ("full-int", (3, 4), (2, -3)),
    ("slice-step", (5, 4), (slice(None, None, 2), slice(1, 3))),
    ("neg-step", (5, 4), (slice(None, None, -2), slice(3, 0, -1))),
    ("none-ellipsis", (2, 3, 4), (None, Ellipsis, 1)),
    ("list", (4, 3), [0, 2, 2]),
    ("array-2d", (4, 3), np.array([[0, 1], [3, 3]])),
    ("adv-adjacent", (2, 3, 4), (slice(None), [0, 2], [1, 3])),
    ("adv-split", (2, 3, 4), ([0, 1], slice(None), [3, 0])),
    ("int-and-array", (2, 3, 4), (1, slice(None), [0, 0, 2])),
    ("bool-mask", (3, 4), np.array([True, False, True])),
    ("bool-mask-2d", (3, 4), (np.arange(12).reshape(3, 4) % 3 == 0)),
    ("mask-and-slice", (3, 4), (slice(1, None), np.array([True, False, True, True]))),
    ("0-d", (), Ellipsis),
    ("empty", (0, 3), slice(None)),
    ("empty-list", (3, 2), np.array([], dtype=np.int64)),
]


def _getitem_samples(rng, dtype):
    out = [Sample((_r(rng, dtype, *shape), key), name=name) for name, shape, key in _KEYS]
    out.append(Sample((_r(rng, dtype, 4, 3).T, (slice(None), 1)), name="non-contiguous"))
    return out


def _np_setitem(x, key, value, accumulate=False):
    out = x.copy()
    if accumulate:
        np.add.at(out, key, value)
    else:
        out[key] = value
    return out


def _region(shape, key):
    return np.zeros(shape)[key].shape


def _setitem_samples(rng, dtype):
    out = []
    for name, shape, key in _KEYS:
        if name in ("list", "array-2d", "adv-split", "int-and-array"):
            continue  # repeated indices: assignment order is unspecified
        out.append(Sample((_r(rng, dtype, *shape), key, _r(rng, dtype, *_region(shape, key))),
                          name=name))
    out.append(Sample((_r(rng, dtype, 3, 4), (slice(None), 1), _r(rng, dtype, 1)),
                      name="broadcast-value"))
    out.append(Sample((_r(rng, dtype, 3, 4), 1, _r(rng, dtype, 1, 4)), name="lead-1-value"))
    out.append(Sample((_r(rng, dtype, 3, 4), ([2, 0], slice(1, 3)), _r(rng, dtype, 2, 1)),
                      name="adv-broadcast"))
    out.append(Sample((_r(rng, dtype, 3, 4), (0, 0), 7.5), name="python-scalar"))
    return out


def _setitem_acc_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 4, 3), [0, 2, 2, 0], _r(rng, dtype, 4, 3)), {
        "accumulate": True}, name="repeated"),
            Sample((_r(rng, dtype, 2, 3, 4), (slice(None), [1, 1], 0), _r(rng, dtype, 2)), {
                "accumulate": True}, name="broadcast"),
            Sample((_r(rng, dtype, 3, 4), slice(1, None), _r(rng, dtype, 4)), {
                "accumulate": True}, name="basic")]


def _idx(*rows):
    return np.array(rows, dtype=np.int64)


def _take_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 4), _idx([0, 3], [1, 1], [2, 0]), 1), name="dups"),
            Sample((_r(rng, dtype, 3, 4), _idx([0, 2, 1, 2]), 0), name="broadcast-idx"),
            Sample((_r(rng, dtype, 1, 4), _idx([0], [3], [-1]), 1), name="broadcast-arr"),
            Sample((_r(rng, dtype, 3, 4), _idx([[0, 1]]).reshape(1, 2), 1,),
                   {"broadcast": False}, name="no-broadcast"),
            Sample((_r(rng, dtype, 2, 3, 2), rng.integers(0, 3, (2, 5, 2)), -2), name="3-d"),
            Sample((_r(rng, dtype, 4), _idx(3, 0, 0), 0), name="1-d"),
            Sample((_r(rng, dtype, 3, 4), np.zeros((3, 0), np.int64), 1), name="empty")]


def _np_take(arr, indices, axis, broadcast=True):
    if not broadcast:
        arr = arr[tuple(slice(None) if i == axis % arr.ndim else slice(0, n)
                        for i, n in enumerate(indices.shape))]
    return np.take_along_axis(arr, indices, axis)


def _put_samples(rng, dtype, dups=True):
    perm = np.argsort(rng.random((3, 4)), axis=1)
    out = [Sample((_r(rng, dtype, 3, 4), perm[:, :2], _r(rng, dtype, 3, 2), 1), name="2-d"),
           Sample((_r(rng, dtype, 3, 4), _idx([2, 0, 1, 1]), _r(rng, dtype, 1, 4), 0),
                  name="broadcast-idx"),
           Sample((_r(rng, dtype, 2, 3, 2), np.argsort(rng.random((2, 3, 2)), 1)[:, :2],
                   _r(rng, dtype, 2), -2), name="3-d"),
           Sample((_r(rng, dtype, 3, 4), np.zeros((3, 0), np.int64), _r(rng, dtype, 3, 0), 1),
                  name="empty"),
           Sample((_r(rng, dtype, 3, 4), _idx([-1, 0], [1, -4], [-2, 3]), _r(rng, dtype, 3, 2),
                   -1), name="negative-last-axis"),
           Sample((_r(rng, dtype, 2, 2, 5), np.argsort(rng.random((2, 2, 5)), 2)[..., :3],
                   _r(rng, dtype, 2, 2, 3), 2), name="3-d-last-axis")]
    if dups:
        out.append(Sample((_r(rng, dtype, 3, 4), _idx([0, 0], [3, 1], [2, 2]),
                           _r(rng, dtype, 3, 2), 1), name="dups"))
    return out


def _np_put(arr, indices, values, axis, reduce="assign", include_self=True, broadcast=True):
    axis %= arr.ndim
    target = list(arr.shape)
    target[axis] = indices.shape[axis]
    indices = np.broadcast_to(indices, target)
    values = np.broadcast_to(values, target)
    out = arr.copy()
    count = np.ones(arr.shape) if include_self else np.zeros(arr.shape)
    for pos in np.ndindex(*target):
        dst = list(pos)
        dst[axis] = indices[pos]
        dst = tuple(dst)
        v = values[pos]
        if reduce == "assign":
            out[dst] = v
            continue
        if not include_self and count[dst] == 0:
            out[dst] = {"add": 0, "mul": 1, "mean": 0}.get(reduce, v)
        count[dst] += 1
        if reduce in ("add", "mean"):
            out[dst] += v
        elif reduce == "mul":
            out[dst] *= v
        elif reduce == "amax":
            out[dst] = max(out[dst], v)
        elif reduce == "amin":
            out[dst] = min(out[dst], v)
    if reduce == "mean":
        out = np.where(count > 0, out / np.maximum(count, 1), out).astype(arr.dtype)
    return out


def _put_entry(reduce, include_self=True, dups=True, onnx=True):
    def samples(rng, dtype):
        out = _put_samples(rng, dtype, dups)
        for s in out:
            s.kwargs = {"reduce": reduce, "include_self": include_self}
        return out
    name = f"put_along_axis-{reduce}" + ("" if include_self else "-exclude-self")
    return OpEntry("put_along_axis", paddle.put_along_axis, _np_put, samples, name=name,
                   inplace="put_along_axis_", grad_args=(0, 2), onnx=onnx)


def _gather_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 4, 3), _idx(3, 0, 0, -1)), name="axis0-dups"),
            Sample((_r(rng, dtype, 2, 4, 3), _idx(1, 3), 1), name="axis1"),
            Sample((_r(rng, dtype, 4, 3), np.array(2, dtype=np.int32), -1), name="0-d-index"),
            Sample((_r(rng, dtype, 3, 4).T, _idx(0, 2)), name="non-contiguous"),
            Sample((_r(rng, dtype, 4, 3), _idx()), name="empty"),
            Sample((_r(rng, dtype, 4, 3), _idx([1], [1], [2]), 1), name="legacy-n-1")]


def _np_gather(x, index, axis=0):
    return np.take(x, index.reshape(-1) if index.ndim == 2 else index, axis=axis)


def _gather_nd_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 4), _idx([0, 1], [2, 3], [0, 1])), name="full"),
            Sample((_r(rng, dtype, 3, 4, 2), _idx([[2], [0]], [[1], [1]])), name="partial"),
            Sample((_r(rng, dtype, 3, 4), _idx([-1, 0])), name="1-d-index"),
            Sample((_r(rng, dtype, 3, 2), np.zeros((0, 1), np.int64)), name="empty")]


def _np_gather_nd(x, index):
    return x[tuple(index[..., k] for k in range(index.shape[-1]))]


def _scatter_nd_add_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 4), _idx([0, 1], [2, 3], [0, 1]), _r(rng, dtype, 3)),
                   name="full-dups"),
            Sample((_r(rng, dtype, 3, 2), _idx([2], [0], [2]), _r(rng, dtype, 3, 2)),
                   name="rows"),
            Sample((_r(rng, dtype, 3, 2), np.zeros((0, 1), np.int64), _r(rng, dtype, 0, 2)),
                   name="empty")]


def _np_scatter_nd_add(x, index, updates):
    out = x.copy()
    np.add.at(out, tuple(index[..., k] for k in range(index.shape[-1])), updates)
    return out


def _scatter_nd_samples(rng, dtype):
    return [Sample((_idx([0, 1], [2, 3], [0, 1]), _r(rng, dtype, 3), [3, 4]), name="full"),
            Sample((_idx([2], [0], [2]), _r(rng, dtype, 3, 2), [4, 2]), name="rows")]


def _np_scatter_nd(index, updates, shape):
    return _np_scatter_nd_add(np.zeros(shape, updates.dtype), index, updates)


def _scatter_samples(rng, dtype, overwrite=True):
    out = [Sample((_r(rng, dtype, 4, 3), _idx(2, 0), _r(rng, dtype, 2, 3)), name="rows"),
           Sample((_r(rng, dtype, 4), _idx(3, 1, 0), _r(rng, dtype, 3)), name="1-d")]
    if not overwrite:
        out.append(Sample((_r(rng, dtype, 4, 2), _idx(1, 3, 1), _r(rng, dtype, 3, 2)),
                          name="dups"))
    for s in out:
        s.kwargs = {"overwrite": overwrite}
    return out


def _np_scatter(x, index, updates, overwrite=True):
    out = x.copy()
    if overwrite:
        out[index] = updates
    else:
        out[index] = 0
        np.add.at(out, index, updates)
    return out


def _index_add_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 4, 3), _idx(0, 2, 0), 0, _r(rng, dtype, 3, 3)), name="dups"),
            Sample((_r(rng, dtype, 2, 4), _idx(3, 1), -1, _r(rng, dtype, 2, 2)), name="axis-1")]


def _np_index_add(x, index, axis, value):
    out = x.copy()
    np.add.at(out, (slice(None),) * (axis % x.ndim) + (index,), value)
    return out


def _take_flat_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 4), _idx([0, 11], [5, -1])), name="raise"),
            Sample((_r(rng, dtype, 2, 3), _idx(7, -8, 2, 2), "wrap"), name="wrap"),
            Sample((_r(rng, dtype, 2, 3), _idx(7, -8, 2), "clip"), name="clip"),
            Sample((_r(rng, dtype, 2, 3), np.array(4)), name="0-d-index")]


def _np_take_flat(x, index, mode="raise"):
    return np.take(x.reshape(-1), index, mode=mode)  # NumPy's "raise" allows -n <= i < n


def _masked_fill_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 4), rng.random((3, 4)) > 0.5, 2.5), name="scalar"),
            Sample((_r(rng, dtype, 3, 4), rng.random(4) > 0.5, _r(rng, dtype)),
                   name="broadcast-mask-tensor-value"),
            Sample((_r(rng, dtype, 1, 4), rng.random((3, 1)) > 0.5, _r(rng, dtype, 1)),
                   name="broadcast-both"),
            Sample((_r(rng, dtype), np.array(True), -1.0), name="0-d")]


def _np_masked_fill(x, mask, value):
    return np.where(mask, np.asarray(value).reshape(()).astype(x.dtype), x)


def _one_hot_samples(rng, dtype):
    return [Sample((_idx(1, 0, 3),), {"num_classes": 4}),
            Sample((_idx([2, 0], [1, 1]),), {"num_classes": 3}, name="2-d"),
            Sample((np.array(1, np.int32),), {"num_classes": 2}, name="0-d"),
            Sample((_idx(),), {"num_classes": 2}, name="empty")]


def _np_one_hot(x, num_classes):
    return np.eye(num_classes, dtype=np.float32)[x]


def _diag_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 4),), name="main"),
            Sample((_r(rng, dtype, 3, 4),), {"offset": 2}, name="offset"),
            Sample((_r(rng, dtype, 3, 4),), {"offset": -1}, name="neg-offset"),
            Sample((_r(rng, dtype, 2, 3, 4),), {"offset": 1, "axis1": -1, "axis2": 0},
                   name="3-d"),
            Sample((_r(rng, dtype, 3, 4),), {"offset": 5}, name="empty")]


def _diag_scatter_samples(rng, dtype):
    out = []
    for s in _diag_samples(rng, dtype):
        x = s.args[0]
        y = np.diagonal(x, s.kwargs.get("offset", 0), s.kwargs.get("axis1", 0),
                        s.kwargs.get("axis2", 1))
        out.append(Sample((x, _r(rng, dtype, *y.shape)), s.kwargs, s.name))
    return out


def _np_diag_scatter(x, y, offset=0, axis1=0, axis2=1):
    out = x.copy()
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))
    n = y.shape[-1]
    view[..., np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)] = y
    return out


def _slice_samples(rng, dtype):
    x = _r(rng, dtype, 3, 4, 2)
    return [Sample((x, [0, 1], [1, -3], [100, -1])), Sample((x, [2], [-5], [1]), name="clamp"),
            Sample((x, [1], [3], [1]), name="empty")]


def _np_slice(x, axes, starts, ends, strides=None):
    key = [slice(None)] * x.ndim
    for i, a in enumerate(axes):
        key[a] = slice(starts[i], ends[i], None if strides is None else strides[i])
    return x[tuple(key)]


def _strided_samples(rng, dtype):
    x = _r(rng, dtype, 5, 4)
    return [Sample((x, [0, 1], [0, 3], [5, 0], [2, -1])),
            Sample((x, [0], [-1], [-100], [-2]), name="reverse")]


def _index_put_samples(rng, dtype):
    x = _r(rng, dtype, 3, 4)
    return [Sample((x, (_idx(2, 0), _idx(1, 3)), _r(rng, dtype, 2)), name="pairs"),
            Sample((x, (rng.random((3, 4)) > 0.5,), _r(rng, dtype)), name="mask"),
            Sample((x, (_idx(0, 0),), _r(rng, dtype, 4)), {"accumulate": True},
                   name="accumulate")]


def _np_index_put(x, indices, value, accumulate=False):
    return _np_setitem(x, tuple(indices), value, accumulate)


def _index_fill_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 4), _idx(0, 2), 1, -1.5)),
            Sample((_r(rng, dtype, 3, 4), _idx(1), 0, _r(rng, dtype)), name="tensor-value")]


def _np_index_fill(x, index, axis, value):
    out = x.copy()
    out[(slice(None),) * axis + (index,)] = value
    return out


def _select_scatter_samples(rng, dtype):
    return [Sample((_r(rng, dtype, 3, 4), _r(rng, dtype, 3), 1, -1)),
            Sample((_r(rng, dtype, 3, 4), _r(rng, dtype, 4), 0, 2), name="axis0")]


def _np_select_scatter(x, values, axis, index):
    out = x.copy()
    out[(slice(None),) * axis + (index,)] = values
    return out


ENTRIES = [
    OpEntry("getitem", getitem, lambda x, key: x[key], _getitem_samples),
    OpEntry("setitem", setitem, _np_setitem, _setitem_samples),
    OpEntry("setitem", setitem, _np_setitem, _setitem_acc_samples, name="setitem-accumulate"),
    OpEntry("take_along_axis", paddle.take_along_axis, _np_take, _take_samples),
    _put_entry("assign", dups=False),
    _put_entry("add"),
    _put_entry("add", include_self=False),
    _put_entry("mul"),
    _put_entry("mean", onnx=False),  # opset 17 ScatterElements: no mean
    _put_entry("mean", include_self=False, onnx=False),  # no mean in opset 17
    _put_entry("amax", dups=False, onnx=False),  # max/min reductions need opset 18
    _put_entry("amin", include_self=False, dups=False,
               onnx=False),  # max/min reductions need opset 18
    OpEntry("gather", paddle.gather, _np_gather, _gather_samples),
    OpEntry("gather", paddle.index_select, _np_gather,
            lambda rng, dt: [x for x in _gather_samples(rng, dt)
                             if x.name not in ("0-d-index", "legacy-n-1")],
            name="index_select"),
    OpEntry("gather_nd", paddle.gather_nd, _np_gather_nd, _gather_nd_samples),
    OpEntry("scatter_nd_add", paddle.scatter_nd_add, _np_scatter_nd_add,
            _scatter_nd_add_samples),
    OpEntry("scatter_nd", paddle.scatter_nd, _np_scatter_nd, _scatter_nd_samples),
    OpEntry("scatter", paddle.scatter, _np_scatter, _scatter_samples, inplace="scatter_"),
    OpEntry("scatter", paddle.scatter, _np_scatter,
            lambda rng, dt: _scatter_samples(rng, dt, False), name="scatter-accumulate"),
    OpEntry("index_add", paddle.index_add, _np_index_add, _index_add_samples,
            inplace="index_add_"),
    OpEntry("take", paddle.take, _np_take_flat, _take_flat_samples),
    OpEntry("masked_fill", paddle.masked_fill, _np_masked_fill, _masked_fill_samples),
    OpEntry("masked_fill", paddle.masked_fill, _np_masked_fill,
            lambda rng, dt: _masked_fill_samples(rng, dt)[:1] + _masked_fill_samples(rng, dt)[3:],
            name="masked_fill-inplace", inplace="masked_fill_"),
    OpEntry("one_hot", paddle.one_hot, _np_one_hot, _one_hot_samples, dtypes=("int64",),
            grad=False),
    OpEntry("diagonal", paddle.diagonal, np.diagonal, _diag_samples),
    OpEntry("diagonal_scatter", paddle.diagonal_scatter, _np_diag_scatter,
            _diag_scatter_samples),
    OpEntry("getitem", paddle.slice, _np_slice, _slice_samples, name="slice"),
    OpEntry("getitem", paddle.strided_slice, _np_slice, _strided_samples, name="strided_slice"),
    OpEntry("setitem", paddle.index_put, _np_index_put, _index_put_samples, name="index_put",
            inplace="index_put_"),
    OpEntry("setitem", paddle.index_fill, _np_index_fill, _index_fill_samples,
            name="index_fill", inplace="index_fill_"),
    OpEntry("setitem", paddle.select_scatter, _np_select_scatter, _select_scatter_samples,
            name="select_scatter"),
]

"""Op database entries for sampan/ops/indexing.py."""
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
                  name="empty")]
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


def _put_entry(reduce, include_self=True, dups=True):
    def samples(rng, dtype):
        out = _put_samples(rng, dtype, dups)
        for s in out:
            s.kwargs = {"reduce": reduce, "include_self": include_self}
        return out
    name = f"put_along_axis-{reduce}" + ("" if include_self else "-exclude-self")
    return OpEntry("put_along_axis", paddle.put_along_axis, _np_put, samples, name=name,
                   inplace="put_along_axis_", grad_args=(0, 2))


ENTRIES = [
    OpEntry("getitem", getitem, lambda x, key: x[key], _getitem_samples),
    OpEntry("setitem", setitem, _np_setitem, _setitem_samples),
    OpEntry("setitem", setitem, _np_setitem, _setitem_acc_samples, name="setitem-accumulate"),
    OpEntry("take_along_axis", paddle.take_along_axis, _np_take, _take_samples),
    _put_entry("assign", dups=False),
    _put_entry("add"),
    _put_entry("add", include_self=False),
    _put_entry("mul"),
    _put_entry("mean"),
    _put_entry("mean", include_self=False),
    _put_entry("amax", dups=False),
    _put_entry("amin", include_self=False, dups=False),
]

"""Search and sort operators: where, argmax/argmin, sort/argsort/topk, nonzero, masked
select/scatter, index_sample, searchsorted, unique, unique_consecutive, histogram, bincount.

Data-dependent output sizes (nonzero, masked_select, unique, bincount) are -1 in `infer`.
Imports `framework` and `ops.opdef`/`ops.dispatch` only; vjp rules use sampan ops.
"""
from __future__ import annotations

import math

import numpy as np

from ..framework import dtype as _dt
from ..framework.tensor import Tensor
from .dispatch import call
from .opdef import OpDef, TensorSpec, broadcast_shapes, norm_axis, register


def _zero(like) -> Tensor:
    """A 0-D zero constant in the dtype of `like` (broadcasts in where/expand_as)."""
    return Tensor(0, dtype=like.dtype)


def _index_dtype(api: str, dtype) -> _dt.DType:
    out = _dt.convert_dtype(dtype)
    if out not in (_dt.int32, _dt.int64):
        raise TypeError(f"{api}: dtype must be int32 or int64, got {out.name}")
    return out


def _numel(shape: tuple) -> int:
    return -1 if -1 in shape else math.prod(shape)


@register
class Where(OpDef):
    """out = x where condition else y, broadcasting all three; x and y share one dtype (the
    public function promotes them). The gradient flows to x where condition holds, else y."""

    name = "where"
    inputs = ("condition", "x", "y")
    saves = ("condition",)
    check = True

    def onnx(self, b, node):
        cond = b.like(node.inputs[:1], node.specs[:1], "bool")
        return b.op("Where", cond + b.like(node.inputs[1:], node.specs[1:], node.out_dtype()))

    def infer(self, condition, x, y):
        if condition.dtype is not _dt.bool_:
            raise TypeError(f"where: condition must be a bool tensor, got "
                            f"{condition.dtype.name}")
        shape = broadcast_shapes(self.name, x.shape, y.shape)
        shape = broadcast_shapes(self.name, condition.shape, shape, ("condition", "x and y"))
        return TensorSpec(shape, _dt.promote_types(x.dtype, y.dtype))

    def compute(self, xp, condition, x, y):
        out = xp.where(condition, x, y)
        if x.dtype == y.dtype:
            return out
        return out.astype(_dt.promote_types(_dt.from_numpy(x.dtype), _dt.from_numpy(y.dtype)).np)

    def vjp(self, ctx, g):
        cond = ctx.condition
        gx = call("where", cond, g, _zero(g)) if ctx.needs[1] else None
        gy = call("where", cond, _zero(g), g) if ctx.needs[2] else None
        return (None, gx, gy)


class ArgReduce(OpDef):
    """Base of argmax/argmin: index of the extreme along `axis` (None: of the flattened x);
    the first occurrence wins ties."""

    attrs = {"axis": None, "keepdim": False, "dtype": "int64"}

    def infer(self, x, axis=None, keepdim=False, dtype="int64"):
        out = _index_dtype(self.name, dtype)
        if axis is None:
            if 0 in x.shape:
                raise ValueError(f"{self.name}: x (shape {list(x.shape)}) has no elements")
            return TensorSpec((1,) * len(x.shape) if keepdim else (), out)
        ax = norm_axis(self.name, axis, len(x.shape))
        if len(x.shape) == 0:
            return TensorSpec((), out)
        if x.shape[ax] == 0:
            raise ValueError(f"{self.name}: cannot reduce the empty axis {axis} of x (shape "
                             f"{list(x.shape)})")
        shape = list(x.shape)
        if keepdim:
            shape[ax] = 1
        else:
            del shape[ax]
        return TensorSpec(shape, out)

    def compute(self, xp, x, axis=None, keepdim=False, dtype="int64"):
        npd = _index_dtype(self.name, dtype).np
        if x.ndim == 0:
            norm_axis(self.name, 0 if axis is None else axis, 0)
            return xp.zeros((), npd)
        fn = xp.argmax if self.name == "argmax" else xp.argmin
        return fn(x, axis=axis, keepdims=keepdim).astype(npd)


@register
class ArgMax(ArgReduce):
    name = "argmax"

    def onnx(self, b, node):
        return b.arg_reduce(node, "ArgMax")


@register
class ArgMin(ArgReduce):
    name = "argmin"

    def onnx(self, b, node):
        return b.arg_reduce(node, "ArgMin")


def _argsort(xp, x, axis: int, descending: bool):
    """Stable argsort; descending keeps equal elements in their original order too."""
    if x.ndim == 0:
        return xp.zeros((), xp.int64)
    if not descending:
        return xp.argsort(x, axis=axis, kind="stable")
    n = x.shape[axis]
    rev = xp.argsort(xp.flip(x, axis), axis=axis, kind="stable")
    return xp.flip(n - 1 - rev, axis)


class SortBase(OpDef):
    attrs = {"axis": -1, "descending": False, "stable": False}

    def _axis(self, x, axis) -> int:
        return norm_axis(self.name, axis, len(x.shape))


@register
class ArgSort(SortBase):
    """Indices (int64) that sort x along `axis`; ties keep their original order."""

    name = "argsort"

    def onnx(self, b, node):   # TopK over the whole axis; ties keep index order, as here
        x, shape = node.inputs[0], node.specs[0].shape
        if not shape:
            return b.const(0, "int64")
        axis = self._axis(node.specs[0], node.attrs["axis"])
        if shape[axis] < 0:
            raise b.Unsupported("sort along an unknown dim")
        vals, idx = b.op("TopK", [x, b.ints([shape[axis]])], n_out=2, axis=axis, sorted=1,
                         largest=int(bool(node.attrs["descending"])))
        return idx

    def infer(self, x, axis=-1, descending=False, stable=False):
        self._axis(x, axis)
        return x.with_dtype(_dt.int64)

    def compute(self, xp, x, axis=-1, descending=False, stable=False):
        return _argsort(xp, x, self._axis(x, axis), descending).astype(xp.int64)


@register
class Sort(SortBase):
    """Sorted values of x along `axis` and the int64 indices; the gradient is the incoming
    gradient permuted back through the indices (ties: each element gets its own slot)."""

    name = "sort"
    outputs = ("out", "indices")
    saves = ("indices",)

    def onnx(self, b, node):   # TopK over the whole axis; ties keep index order, as here
        x, shape = node.inputs[0], node.specs[0].shape
        if not shape:
            return [b.op("Identity", [x]), b.const(0, "int64")]
        axis = self._axis(node.specs[0], node.attrs["axis"])
        if shape[axis] < 0:
            raise b.Unsupported("sort along an unknown dim")
        vals, idx = b.op("TopK", [x, b.ints([shape[axis]])], n_out=2, axis=axis, sorted=1,
                         largest=int(bool(node.attrs["descending"])))
        return [vals, idx]

    def infer(self, x, axis=-1, descending=False, stable=False):
        self._axis(x, axis)
        return x, x.with_dtype(_dt.int64)

    def compute(self, xp, x, axis=-1, descending=False, stable=False):
        if x.ndim == 0:
            return x.copy(), xp.zeros((), xp.int64)
        ax = self._axis(x, axis)
        idx = _argsort(xp, x, ax, descending).astype(xp.int64)
        return xp.take_along_axis(x, idx, ax), idx

    def vjp(self, ctx, g, g_indices=None):
        if ctx.indices.ndim == 0:
            return (g,)
        axis = getattr(ctx, "axis", -1)
        inverse = call("argsort", ctx.indices, axis=axis, descending=False, stable=True)
        return (call("take_along_axis", g, inverse, axis=axis, broadcast=False),)


@register
class TopK(OpDef):
    """The k largest (smallest if not `largest`) values of x along `axis` and their int64
    indices, in sorted order; ties: the lower index first. The gradient scatters back."""

    name = "topk"
    outputs = ("out", "indices")
    attrs = {"k": 1, "axis": -1, "largest": True, "sorted": True}
    saves = ("x", "indices")
    check = True

    def onnx(self, b, node):
        a = node.attrs
        if not node.specs[0].shape:   # 0-D: k is 1 and the value is x itself
            return [b.op("Identity", [node.inputs[0]]),
                    b.const(0, node.out_dtype(1))]
        vals, idx = b.op("TopK", [node.inputs[0], b.ints([a["k"]])], n_out=2, axis=a["axis"],
                         largest=int(bool(a["largest"])), sorted=1)
        return [vals, b.cast(idx, node.out_dtype(1))]

    def infer(self, x, k=1, axis=-1, largest=True, sorted=True):
        ax = norm_axis(self.name, axis, len(x.shape))
        size = x.shape[ax] if x.shape else 1
        if k < 0 or (size != -1 and k > size):
            raise ValueError(f"topk: k must be in [0, {size}] (the size of axis {axis} of x "
                             f"with shape {list(x.shape)}), got {k}")
        shape = list(x.shape)
        if shape:
            shape[ax] = k
        return x.with_shape(shape), TensorSpec(shape, _dt.int64)

    def compute(self, xp, x, k=1, axis=-1, largest=True, sorted=True):
        if x.ndim == 0:
            return x.copy(), xp.zeros((), xp.int64)
        ax = axis % x.ndim
        idx = _argsort(xp, x, ax, largest).astype(xp.int64)
        idx = xp.take(idx, xp.arange(k), axis=ax)
        return xp.take_along_axis(x, idx, ax), idx

    def vjp(self, ctx, g, g_indices=None):
        if ctx.indices.ndim == 0:
            return (g,)
        zeros = call("expand_as", _zero(g), ctx.x)
        return (call("put_along_axis", zeros, ctx.indices, g, axis=getattr(ctx, "axis", -1),
                     reduce="assign", include_self=True, broadcast=False),)


@register
class Nonzero(OpDef):
    """int64 [z, ndim] coordinates of the z nonzero elements of x, in C order."""

    name = "nonzero"

    def onnx(self, b, node):   # on bool (onnxruntime's NonZero lacks float64); -> [n, ndim]
        x = b.cast(node.inputs[0], "bool")
        return b.op("Transpose", [b.op("NonZero", [x])], perm=[1, 0])

    def infer(self, x):
        return TensorSpec((-1, len(x.shape)), _dt.int64)

    def compute(self, xp, x):
        return xp.argwhere(x).astype(xp.int64)


@register
class MaskedSelect(OpDef):
    """1-D tensor of the elements of x where mask is True (x and mask broadcast together),
    in C order. The gradient scatters back into the selected positions."""

    name = "masked_select"
    inputs = ("x", "mask")
    check = True

    def onnx(self, b, node):   # broadcast x and mask, flatten both, Compress
        x, mask = node.inputs
        x = b.op("Expand", [x, b.shape_of(mask)])
        mask = b.op("Expand", [mask, b.shape_of(x)])
        return b.op("Compress", [b.reshape(x, [-1]), b.reshape(mask, [-1])], axis=0)

    def infer(self, x, mask):
        if mask.dtype is not _dt.bool_:
            raise TypeError(f"masked_select: mask must be a bool tensor, got {mask.dtype.name}")
        broadcast_shapes(self.name, x.shape, mask.shape, ("x", "mask"))
        return x.with_shape((-1,))

    def compute(self, xp, x, mask):
        xb, mb = xp.broadcast_arrays(x, mask)
        return xb[mb]

    def vjp(self, ctx, g):
        zeros = call("expand_as", _zero(g), ctx.x)
        return (call("masked_scatter", zeros, ctx.mask, g), None)


@register
class MaskedScatter(OpDef):
    """out = x (broadcast with mask) with the positions where mask is True filled, in C
    order, by the leading elements of value (which needs at least that many)."""

    name = "masked_scatter"
    inputs = ("x", "mask", "value")
    saves = ("mask", "value")
    check = True

    def infer(self, x, mask, value):
        if mask.dtype is not _dt.bool_:
            raise TypeError(f"masked_scatter: mask must be a bool tensor, got "
                            f"{mask.dtype.name}")
        if value.dtype is not x.dtype:
            raise TypeError(f"masked_scatter: value must have x's dtype {x.dtype.name}, got "
                            f"{value.dtype.name}")
        return x.with_shape(broadcast_shapes(self.name, x.shape, mask.shape, ("x", "mask")))

    def compute(self, xp, x, mask, value):
        xb, mb = xp.broadcast_arrays(x, mask)
        out = xb.copy()
        count = int(mb.sum())
        if value.size < count:
            raise ValueError(f"masked_scatter: value has {value.size} elements but mask "
                             f"selects {count}")
        out[mb] = value.reshape(-1)[:count]
        return out

    def vjp(self, ctx, g):
        mask = ctx.mask
        gx = call("where", mask, _zero(g), g) if ctx.needs[0] else None
        gv = None
        if ctx.needs[2]:
            picked = call("masked_select", g, mask)
            size, count = ctx.value.size, picked.shape[0]
            if size == count:
                gv = call("reshape", picked, shape=list(ctx.value.shape))
            else:
                head = Tensor([True] * count + [False] * (size - count))
                flat = call("expand_as", _zero(g), head)
                flat = call("masked_scatter", flat, head, picked)
                gv = call("reshape", flat, shape=list(ctx.value.shape))
        return (gx, None, gv)


@register
class IndexSample(OpDef):
    """out[i, j] = x[i, index[i, j]] for 2-D x [N, M] and int index [N, K]."""

    name = "index_sample"
    inputs = ("x", "index")
    saves = ("x", "index")
    check = True

    def onnx(self, b, node):
        return b.op("GatherElements", node.inputs, axis=1)

    def infer(self, x, index):
        if len(x.shape) != 2 or len(index.shape) != 2:
            raise ValueError(f"index_sample: x and index must be 2-D, got shapes "
                             f"{list(x.shape)} and {list(index.shape)}")
        if index.dtype not in (_dt.int32, _dt.int64):
            raise TypeError(f"index_sample: index must be int32 or int64, got "
                            f"{index.dtype.name}")
        if -1 not in (x.shape[0], index.shape[0]) and x.shape[0] != index.shape[0]:
            raise ValueError(f"index_sample: the first dim of x (shape {list(x.shape)}) and "
                             f"index (shape {list(index.shape)}) must be equal")
        return x.with_shape(index.shape)

    def compute(self, xp, x, index):
        return xp.take_along_axis(x, index.astype(xp.int64), 1)

    def vjp(self, ctx, g):
        zeros = call("expand_as", _zero(g), ctx.x)
        return (call("put_along_axis", zeros, ctx.index, g, axis=1, reduce="add",
                     include_self=True, broadcast=False), None)


@register
class SearchSorted(OpDef):
    """Insertion indices of `values` in the innermost dim of `sorted_sequence` (1-D, or with
    leading dims equal to those of values); `right` picks the last valid position."""

    name = "searchsorted"
    inputs = ("sorted_sequence", "values")
    attrs = {"out_int32": False, "right": False}
    check = True

    def onnx(self, b, node):   # count of the sequence entries < v (right: <= v) per value
        (seq, vals), (ss, sv) = node.inputs, node.specs
        common = np.result_type(np.dtype(ss.dtype.name), np.dtype(sv.dtype.name))
        seq, vals = b.like([seq, vals], [ss, sv], common)
        if len(ss.shape) > 1:
            seq = b.unsqueeze_axes(seq, [len(ss.shape) - 1])
        below = b.op("LessOrEqual" if node["right"] else "Less",
                     [seq, b.unsqueeze_axes(vals, [len(sv.shape)])])
        count = b.reduce("ReduceSum", b.cast(below, "int64"), [-1], False)
        return b.cast(count, node.out_dtype())

    def infer(self, sorted_sequence, values, out_int32=False, right=False):
        seq = sorted_sequence.shape
        if len(seq) == 0:
            raise ValueError("searchsorted: sorted_sequence must have at least 1 dim, got 0-D")
        if len(seq) > 1 and tuple(seq[:-1]) != tuple(values.shape[:-1]):
            raise ValueError(f"searchsorted: the leading dims of sorted_sequence (shape "
                             f"{list(seq)}) must equal those of values (shape "
                             f"{list(values.shape)})")
        return TensorSpec(values.shape, _dt.int32 if out_int32 else _dt.int64)

    def compute(self, xp, sorted_sequence, values, out_int32=False, right=False):
        side = "right" if right else "left"
        npd = xp.int32 if out_int32 else xp.int64
        if sorted_sequence.ndim == 1:
            return xp.searchsorted(sorted_sequence, values, side=side).astype(npd)
        seq = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
        vals = values.reshape(seq.shape[0], -1)
        out = xp.stack([xp.searchsorted(s, v, side=side) for s, v in zip(seq, vals)])
        return out.reshape(values.shape).astype(npd)


def _moved(xp, x, axis):
    """x with `axis` first, flattened to 2-D rows (axis None: one element per row)."""
    if axis is None:
        return x.reshape(-1, 1)
    return xp.moveaxis(x, axis, 0).reshape(x.shape[axis], -1)


def _restore(xp, rows, x, axis):
    if axis is None:
        return rows.reshape(-1)
    shape = (rows.shape[0],) + tuple(d for i, d in enumerate(x.shape) if i != axis)
    return xp.moveaxis(rows.reshape(shape), 0, axis)


def _unique_infer(api, x, axis, dtype):
    idx = _index_dtype(api, dtype)
    if axis is None:
        return x.with_shape((-1,)), idx, _numel(x.shape)
    ax = norm_axis(api, axis, len(x.shape))
    shape = list(x.shape)
    shape[ax] = -1
    return x.with_shape(shape), idx, x.shape[ax]


@register
class Unique(OpDef):
    """Sorted unique elements of x (axis None: of the flattened x; else unique slices along
    axis), with the first-occurrence indices, the inverse indices and the counts."""

    name = "unique"
    outputs = ("out", "indices", "inverse", "counts")
    attrs = {"axis": None, "dtype": "int64"}

    def infer(self, x, axis=None, dtype="int64"):
        out, idx, n = _unique_infer(self.name, x, axis, dtype)
        return out, TensorSpec((-1,), idx), TensorSpec((n,), idx), TensorSpec((-1,), idx)

    def compute(self, xp, x, axis=None, dtype="int64"):
        npd = _index_dtype(self.name, dtype).np
        ax = None if axis is None else axis % max(x.ndim, 1)
        rows = _moved(xp, x, ax)
        _, index, inverse, counts = xp.unique(rows, return_index=True, return_inverse=True,
                                              return_counts=True, axis=0)
        out = _restore(xp, rows[index], x, ax)
        return (out, index.astype(npd), inverse.reshape(-1).astype(npd), counts.astype(npd))


@register
class UniqueConsecutive(OpDef):
    """x with consecutive repeats collapsed (axis None: of the flattened x; else of slices
    along axis), with the inverse indices and the run lengths."""

    name = "unique_consecutive"
    outputs = ("out", "inverse", "counts")
    attrs = {"axis": None, "dtype": "int64"}

    def infer(self, x, axis=None, dtype="int64"):
        out, idx, n = _unique_infer(self.name, x, axis, dtype)
        return out, TensorSpec((n,), idx), TensorSpec((-1,), idx)

    def compute(self, xp, x, axis=None, dtype="int64"):
        npd = _index_dtype(self.name, dtype).np
        ax = None if axis is None else axis % max(x.ndim, 1)
        rows = _moved(xp, x, ax)
        starts = xp.ones(rows.shape[0], bool)
        if rows.shape[0] > 1:
            starts[1:] = xp.any(rows[1:] != rows[:-1], axis=1)
        first = xp.flatnonzero(starts)
        counts = xp.diff(xp.append(first, rows.shape[0]))
        inverse = xp.cumsum(starts) - 1
        out = _restore(xp, rows[first], x, ax)
        return out, inverse.astype(npd), counts.astype(npd)


@register
class Histogram(OpDef):
    """Counts of input in `bins` equal-width bins over [min, max] (both 0: the data range;
    equal bounds widen by 1 each way); values outside are ignored. With `weight` the bins sum
    weights; `density` normalizes to a probability density (float output)."""

    name = "histogram"
    inputs = ("input", "weight?")
    attrs = {"bins": 100, "min": 0.0, "max": 0.0, "density": False}

    def infer(self, input, weight=None, bins=100, min=0.0, max=0.0, density=False):
        if bins < 1:
            raise ValueError(f"histogram: bins must be >= 1, got {bins}")
        if min > max:
            raise ValueError(f"histogram: min must not exceed max, got min={min}, max={max}")
        if weight is not None and tuple(weight.shape) != tuple(input.shape):
            raise ValueError(f"histogram: weight (shape {list(weight.shape)}) must have the "
                             f"shape of input {list(input.shape)}")
        if weight is None and not density:
            return TensorSpec((bins,), _dt.int64)
        ref = weight if weight is not None else input
        return TensorSpec((bins,), _dt.promote_float(ref.dtype))

    def compute(self, xp, input, weight=None, bins=100, min=0.0, max=0.0, density=False):
        lo, hi = float(min), float(max)
        data = input.reshape(-1).astype(xp.float64)
        if lo == 0 and hi == 0 and data.size:
            lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
        w = None if weight is None else weight.reshape(-1)
        counts, _ = xp.histogram(data, bins=bins, range=(lo, hi), weights=w, density=density)
        spec = self.infer(TensorSpec(input.shape, _dt.from_numpy(input.dtype)),
                          None if weight is None else
                          TensorSpec(weight.shape, _dt.from_numpy(weight.dtype)),
                          bins, min, max, density)
        return counts.astype(spec.dtype.np)


@register
class BinCount(OpDef):
    """out[i] = number of occurrences of i in the non-negative int 1-D x (or the sum of their
    `weights`), of length max(x) + 1 or `minlength`, whichever is larger."""

    name = "bincount"
    inputs = ("x", "weights?")
    attrs = {"minlength": 0}

    def infer(self, x, weights=None, minlength=0):
        if len(x.shape) != 1 or x.dtype.kind not in "iu":
            raise ValueError(f"bincount: x must be a 1-D integer tensor, got shape "
                             f"{list(x.shape)} dtype {x.dtype.name}")
        if weights is not None and tuple(weights.shape) != tuple(x.shape):
            raise ValueError(f"bincount: weights (shape {list(weights.shape)}) must have the "
                             f"shape of x {list(x.shape)}")
        if minlength < 0:
            raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
        dtype = _dt.int64 if weights is None else weights.dtype
        return TensorSpec((-1,), dtype)

    def compute(self, xp, x, weights=None, minlength=0):
        if x.ndim == 1 and x.size and x.min() < 0:
            raise ValueError(f"bincount: the elements of x must be non-negative, got "
                             f"min {x.min()}")
        out = xp.bincount(x, weights=weights, minlength=minlength)
        return out.astype(xp.int64 if weights is None else weights.dtype)

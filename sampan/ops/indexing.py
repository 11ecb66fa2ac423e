"""Indexing operators: getitem/setitem (NumPy-style indices), masked_fill, one_hot, diagonal
and diagonal_scatter, plus the index helpers the other indexing modules share.
take/put_along_axis live in indexing_along.py, the gather/scatter and index_* families in
indexing_gather.py; both are imported at the bottom so that they register with this module.

Imports `framework` and `ops.opdef`/`ops.dispatch` only. Index values that depend on data
(out-of-range tensor indices) are checked in `compute`; everything shape-related in `infer`.
"""
from __future__ import annotations

from ..framework.tensor import Tensor, to_array, wrap
from .dispatch import call
from .opdef import OpDef, broadcast_shapes, norm_axis, register

# --- index encoding -----------------------------------------------------------------------
# `index` attr: a list with one entry per item of the Python index:
#   int k            integer index (removes the dim)
#   [start, stop, step]  a slice (entries may be None)
#   None             newaxis
#   "..."            Ellipsis
#   "t"              the next tensor of the `indices` input (int: advanced index; bool: mask)


def decode_index(index, arrays) -> tuple:
    """The attr encoding plus the index arrays as a NumPy index tuple."""
    out = []
    k = 0
    for item in index:
        if item is None:
            out.append(None)
        elif item == "...":
            out.append(Ellipsis)
        elif item == "t":
            out.append(arrays[k])
            k += 1
        elif isinstance(item, list):
            out.append(slice(*item))
        else:
            out.append(item)
    return tuple(out)


def _slice_len(api: str, item, n: int) -> int:
    start, stop, step = item
    if step == 0:
        raise ValueError(f"{api}: slice step cannot be zero")
    if n < 0:
        return -1
    return len(range(*slice(start, stop, step).indices(n)))


def _expand(api: str, index, specs, ndim: int) -> list:
    """Items with the Ellipsis replaced by full slices and trailing full slices appended."""
    consumed = 0
    ellipses = 0
    k = 0
    for item in index:
        if item == "t":
            spec = specs[k]
            k += 1
            consumed += spec.ndim if spec.dtype.kind == "b" else 1
        elif item == "...":
            ellipses += 1
        elif item is not None:
            consumed += 1
    if ellipses > 1:
        raise IndexError(f"{api}: an index can only have a single ellipsis ('...')")
    if consumed > ndim:
        raise IndexError(f"{api}: too many indices for a tensor with {ndim} dims: the index "
                         f"addresses {consumed} dims")
    full = [None, None, None]
    items = []
    k = 0
    for item in index:
        if item == "...":
            items.extend([full] * (ndim - consumed))
        elif item == "t":
            items.append(("t", specs[k]))
            k += 1
        else:
            items.append(item)
    if not ellipses:
        items.extend([full] * (ndim - consumed))
    return items


def index_shape(api: str, shape: tuple, index, specs) -> tuple:
    """Shape of x[index] under NumPy rules (-1 for unknown dims and mask counts)."""
    for spec in specs:
        if spec.dtype.kind not in "iub":
            raise TypeError(f"{api}: tensor indices must be integer (int32/int64) or bool, "
                            f"got {spec.dtype.name}")
    items = _expand(api, index, specs, len(shape))
    has_adv = any(isinstance(it, tuple) for it in items)
    out, adv_shapes, adv_pos = [], [], []
    insert_at = None
    dim = 0
    for pos, item in enumerate(items):
        if item is None:
            out.append(1)
            continue
        if isinstance(item, list):
            out.append(_slice_len(api, item, shape[dim]))
            dim += 1
            continue
        if insert_at is None and has_adv:
            insert_at = len(out)
        if isinstance(item, tuple):
            spec = item[1]
            if spec.dtype.kind == "b":
                _check_mask(api, spec, shape, dim)
                adv_shapes.append((-1,))
                dim += spec.ndim
            else:
                adv_shapes.append(spec.shape)
                dim += 1
            adv_pos.append(pos)
            continue
        n = shape[dim]
        if n >= 0 and not -n <= item < n:
            raise IndexError(f"{api}: index {item} is out of range for axis {dim} with size "
                             f"{n} (expected {-n} <= index < {n})")
        if has_adv:
            adv_shapes.append(())
            adv_pos.append(pos)
        dim += 1
    if not has_adv:
        return tuple(out)
    bshape = ()
    for s in adv_shapes:
        bshape = broadcast_shapes(api, bshape, tuple(s), ("index", "index"))
    if adv_pos == list(range(adv_pos[0], adv_pos[0] + len(adv_pos))):
        return tuple(out[:insert_at]) + bshape + tuple(out[insert_at:])
    return bshape + tuple(out)


def _check_mask(api: str, spec, shape: tuple, dim: int) -> None:
    for i, m in enumerate(spec.shape):
        n = shape[dim + i]
        if m >= 0 and n >= 0 and m != n:
            raise IndexError(f"{api}: the shape of the bool mask {list(spec.shape)} does not "
                             f"match the indexed dims {list(shape[dim:dim + spec.ndim])} of "
                             f"x (shape {list(shape)}) starting at axis {dim}")


def check_index_range(api: str, idx, n: int, what: str) -> None:
    """IndexError unless every entry of the int array idx lies in [-n, n)."""
    if idx.size == 0:
        return
    lo, hi = idx.min(), idx.max()
    if lo < -n or hi >= n:
        bad = int(lo) if lo < -n else int(hi)
        raise IndexError(f"{api}: index {bad} is out of range for {what} with size {n} "
                         f"(expected {-n} <= index < {n})")


def _check_index_dtype(api: str, spec, arg: str = "indices") -> None:
    if spec.dtype.kind not in "iu":
        raise TypeError(f"{api}: {arg} must be an int32 or int64 tensor, got "
                        f"{spec.dtype.name}")


def _has_arrays(idx: tuple) -> bool:
    return any(not isinstance(i, (int, slice)) and i is not None and i is not Ellipsis
               for i in idx)


def _scalar(value, dtype) -> Tensor:
    """A 0-D constant (index kernels cast values to x's dtype)."""
    return wrap(to_array(value, dtype))


def _detached(x):
    return x.detach() if isinstance(x, Tensor) else x


def zeros_like(x):
    """Zeros of x's shape and dtype, built from sampan ops (x[...] = 0)."""
    return call("setitem", _detached(x), _scalar(0, x.dtype), [], index=["..."],
                accumulate=False)


def ones_like(x):
    return call("setitem", _detached(x), _scalar(1, x.dtype), [], index=["..."],
                accumulate=False)


def _strip_lead(g, value):
    """Reshape a region-shaped grad to value's rank when value had extra leading 1-dims."""
    extra = value.ndim - g.ndim
    if extra > 0:
        g = call("reshape", g, shape=[1] * extra + list(g.shape))
    return g


# --- getitem / setitem ---------------------------------------------------------------------

@register
class Getitem(OpDef):
    """out = x[index] with NumPy semantics (basic and advanced indexing, bool masks).

    Integer indices remove their dim (full integer indexing gives a 0-D tensor). The
    gradient scatters g into zeros of x's shape, adding at repeated indices.
    """

    name = "getitem"
    inputs = ("x", "*indices")
    attrs = {"index": ()}
    saves = ("x", "indices")

    def onnx(self, b, node):
        x, spec = node.inputs[0], node.specs[0]
        items = _expand(self.name, node.attrs["index"], node.specs[1], len(spec.shape))
        return b.getitem(x, items, node.inputs[1])

    def infer(self, x, indices, index=()):
        return x.with_shape(index_shape(self.name, x.shape, index, indices))

    def compute(self, xp, x, indices, index=()):
        return x[decode_index(index, indices)]

    def vjp(self, ctx, g):
        gx = call("setitem", zeros_like(ctx.x), g, ctx.indices, index=ctx.index,
                  accumulate=True)
        return gx, [None] * len(ctx.indices)


@register
class Setitem(OpDef):
    """out = copy of x with out[index] = value (value broadcast to the indexed region and
    cast to x's dtype); accumulate=True adds instead, summing at repeated indices.

    Grad w.r.t. x: g with the region zeroed (g itself when accumulating); w.r.t. value: g
    at the region, summed over the broadcast dims of value.
    """

    name = "setitem"
    inputs = ("x", "value", "*indices")
    attrs = {"index": (), "accumulate": False}
    saves = ("value", "indices")

    def infer(self, x, value, indices, index=(), accumulate=False):
        region = index_shape(self.name, x.shape, index, indices)
        vshape = tuple(value.shape)
        while len(vshape) > len(region) and vshape[0] == 1:
            vshape = vshape[1:]
        out = broadcast_shapes(self.name, region, vshape, ("the indexed region", "value"))
        if len(vshape) > len(region) or any(o != r for o, r in zip(out, region) if r >= 0):
            raise ValueError(f"{self.name}: value of shape {list(value.shape)} cannot be "
                             f"broadcast to the indexed region of shape {list(region)}")
        return x

    def compute(self, xp, x, value, indices, index=(), accumulate=False):
        idx = decode_index(index, indices)
        out = x.copy()
        if value.dtype != x.dtype:
            value = value.astype(x.dtype)
        if not accumulate:
            out[idx] = value
        elif _has_arrays(idx):
            xp.add.at(out, idx, value)
        else:
            out[idx] += value
        return out

    def vjp(self, ctx, g):
        gx = gv = None
        if ctx.needs[0]:
            gx = g if ctx.accumulate else call("setitem", g, _scalar(0, g.dtype), ctx.indices,
                                               index=ctx.index, accumulate=False)
        if ctx.needs[1]:
            gv = _strip_lead(call("getitem", g, ctx.indices, index=ctx.index), ctx.value)
        return gx, gv, [None] * len(ctx.indices)


# --- masked_fill, one_hot, diagonal --------------------------------------------------------

@register
class MaskedFill(OpDef):
    """out = where(mask, value, x), mask and x broadcast together; value is a 0-D tensor
    cast to x's dtype."""

    name = "masked_fill"
    inputs = ("x", "mask", "value")
    saves = ("mask",)
    check = True

    def onnx(self, b, node):
        x, mask, value = node.inputs
        value = b.reshape(b.like([value], [node.specs[2]], node.out_dtype())[0], [])
        return b.op("Where", [b.like([mask], [node.specs[1]], "bool")[0], value, x])

    def infer(self, x, mask, value):
        if mask.dtype.kind != "b":
            raise TypeError(f"{self.name}: mask must be a bool tensor, got {mask.dtype.name}")
        if value.ndim > 0 and any(d != 1 for d in value.shape):
            raise ValueError(f"{self.name}: value must be a scalar or a 0-D/1-element "
                             f"tensor, got shape {list(value.shape)}")
        return x.with_shape(broadcast_shapes(self.name, x.shape, mask.shape, ("x", "mask")))

    def compute(self, xp, x, mask, value):
        return xp.where(mask, value.reshape(()).astype(x.dtype), x)

    def vjp(self, ctx, g):
        gx = call("masked_fill", g, ctx.mask, _scalar(0, g.dtype))
        gv = g - gx if ctx.needs[2] else None
        return gx, None, gv


@register
class OneHot(OpDef):
    """out[..., k] = 1.0 where x == k: float32 of shape x.shape + [num_classes]."""

    name = "one_hot"
    attrs = {"num_classes": 1}

    def onnx(self, b, node):
        # onnxruntime implements int64 indices with float32 values
        x, scalar = b.cast(node.inputs[0], "int64"), not node.specs[0].shape
        out = b.op("OneHot", [b.reshape(x, [1]) if scalar else x,
                              b.ints([node.attrs["num_classes"]]),
                              b.const([0, 1], "float32")], axis=-1)
        out = b.cast(out, node.out_dtype())
        return b.squeeze_axes(out, [0]) if scalar else out

    def infer(self, x, num_classes=1):
        _check_index_dtype(self.name, x, "x")
        return x.with_shape(x.shape + (num_classes,)).with_dtype("float32")

    def compute(self, xp, x, num_classes=1):
        if x.size and (x.min() < 0 or x.max() >= num_classes):
            bad = int(x.min()) if x.min() < 0 else int(x.max())
            raise IndexError(f"{self.name}: class index {bad} is out of range for "
                             f"num_classes={num_classes} (expected 0 <= x < num_classes)")
        return (x[..., None] == xp.arange(num_classes)).astype("float32")


def _diag_check(api: str, x, axis1: int, axis2: int):
    if x.ndim < 2:
        raise ValueError(f"{api}: x must have at least 2 dims, got shape {list(x.shape)}")
    a1 = norm_axis(api, axis1, x.ndim, "axis1")
    a2 = norm_axis(api, axis2, x.ndim, "axis2")
    if a1 == a2:
        raise ValueError(f"{api}: axis1 and axis2 must differ, got {axis1} and {axis2}")
    return a1, a2


def _diag_shape(shape: tuple, offset: int, a1: int, a2: int) -> tuple:
    n1, n2 = shape[a1], shape[a2]
    if n1 < 0 or n2 < 0:
        n = -1
    else:
        n = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    return tuple(d for i, d in enumerate(shape) if i not in (a1, a2)) + (n,)


@register
class Diagonal(OpDef):
    """The diagonals of x in the planes (axis1, axis2), shifted by `offset` (> 0 above the
    main diagonal), appended as the last dim."""

    name = "diagonal"
    attrs = {"offset": 0, "axis1": 0, "axis2": 1}
    saves = ("x",)

    def onnx(self, b, node):   # the two axes moved last and flattened, Gather the diagonal
        shape, off = list(node.specs[0].shape), int(node["offset"])
        a1, a2 = _diag_check(self.name, node.specs[0], node["axis1"], node["axis2"])
        n1, n2 = shape[a1], shape[a2]
        if n1 < 0 or n2 < 0 or -1 in shape:
            raise b.Unsupported("diagonal of a tensor with unknown dims")
        rest = [i for i in range(len(shape)) if i not in (a1, a2)]
        x = b.op("Transpose", [node.inputs[0]], perm=rest + [a1, a2])
        x = b.reshape(x, [shape[i] for i in rest] + [n1 * n2])
        k = _diag_shape(tuple(shape), off, a1, a2)[-1]
        rows = [i - min(off, 0) for i in range(k)]
        flat = [r * n2 + r + off for r in rows]
        return b.op("Gather", [x, b.ints(flat)], axis=len(rest))

    def infer(self, x, offset=0, axis1=0, axis2=1):
        a1, a2 = _diag_check(self.name, x, axis1, axis2)
        return x.with_shape(_diag_shape(x.shape, offset, a1, a2))

    def compute(self, xp, x, offset=0, axis1=0, axis2=1):
        a1, a2 = _diag_check(self.name, x, axis1, axis2)
        return xp.diagonal(x, offset, a1, a2).copy()

    def vjp(self, ctx, g):
        return (call("diagonal_scatter", zeros_like(ctx.x), g, offset=ctx.offset,
                     axis1=ctx.axis1, axis2=ctx.axis2),)


@register
class DiagonalScatter(OpDef):
    """out = copy of x with its (offset, axis1, axis2) diagonal replaced by y, whose shape
    is that of x.diagonal(offset, axis1, axis2)."""

    name = "diagonal_scatter"
    inputs = ("x", "y")
    attrs = {"offset": 0, "axis1": 0, "axis2": 1}
    saves = ("y",)
    check = True

    def infer(self, x, y, offset=0, axis1=0, axis2=1):
        a1, a2 = _diag_check(self.name, x, axis1, axis2)
        want = _diag_shape(x.shape, offset, a1, a2)
        if len(want) != y.ndim or any(a != b and a >= 0 and b >= 0
                                      for a, b in zip(want, y.shape)):
            raise ValueError(f"{self.name}: y must have the shape of the diagonal "
                             f"{list(want)}, got {list(y.shape)}")
        return x

    def compute(self, xp, x, y, offset=0, axis1=0, axis2=1):
        a1, a2 = _diag_check(self.name, x, axis1, axis2)
        out = x.copy()
        n = y.shape[-1]
        rows = xp.arange(n) + max(-offset, 0)
        cols = xp.arange(n) + max(offset, 0)
        xp.moveaxis(out, (a1, a2), (-2, -1))[..., rows, cols] = y.astype(x.dtype)
        return out

    def vjp(self, ctx, g):
        attrs = {"offset": ctx.offset, "axis1": ctx.axis1, "axis2": ctx.axis2}
        gx = call("diagonal_scatter", g, zeros_like(ctx.y), **attrs) if ctx.needs[0] else None
        gy = call("diagonal", g, **attrs) if ctx.needs[1] else None
        return gx, gy


# registers the take/put_along_axis and gather/scatter-family OpDefs
from . import indexing_along, indexing_gather  # noqa: E402,F401

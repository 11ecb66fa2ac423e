"""Indexing operators: getitem/setitem (NumPy-style indices), take/put_along_axis, the
gather/scatter and index_* families, one_hot, diagonal.

Imports `framework` and `ops.opdef`/`ops.dispatch` only. Index values that depend on data
(out-of-range tensor indices) are checked in `compute`; everything shape-related in `infer`.
"""
from __future__ import annotations

from ..framework.tensor import Tensor, to_array, wrap
from .dispatch import call
from .opdef import OpDef, TensorSpec, broadcast_shapes, norm_axis, register

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


# --- take_along_axis / put_along_axis ------------------------------------------------------

def along_shapes(api: str, arr: tuple, idx: tuple, axis: int, broadcast: bool, put=False):
    """Paddle's broadcasting of arr and indices for take/put_along_axis.

    Returns (arr_shape, idx_shape): the shapes arr and indices are broadcast to. With
    broadcast=False indices must fit inside arr on every dim but `axis` (arr is cut to them).
    """
    if not arr:
        raise ValueError(f"{api}: arr must have at least 1 dim, got a 0-D tensor")
    if len(arr) != len(idx):
        raise ValueError(f"{api}: indices (shape {list(idx)}) must have the same number of "
                         f"dims as arr (shape {list(arr)})")
    if not broadcast:
        for i, (a, b) in enumerate(zip(arr, idx)):
            if i != axis and a >= 0 and b > a:
                raise ValueError(f"{api}: with broadcast=False indices (shape {list(idx)}) "
                                 f"must not be larger than arr (shape {list(arr)}) on dim {i}")
        return arr, idx
    fits = all(a < 0 or b < 0 or b <= a for a, b in zip(arr, idx))
    names = ("indices", "arr")
    if fits:
        target = tuple(b if i == axis else a for i, (a, b) in enumerate(zip(arr, idx)))
        _broadcast_to(api, idx, target, names)
        return arr, target
    if put:
        raise ValueError(f"{api}: indices (shape {list(idx)}) must not be larger than arr "
                         f"(shape {list(arr)})")
    arr_t = tuple(a if i == axis else b for i, (a, b) in enumerate(zip(arr, idx)))
    _broadcast_to(api, arr, arr_t, ("arr", "indices"))
    return arr_t, idx


def _broadcast_to(api: str, shape: tuple, target: tuple, names) -> None:
    for s, t in zip(shape, target):
        if s != t and s != 1 and s >= 0 and t >= 0:
            raise ValueError(f"{api}: {names[0]} of shape {list(shape)} cannot be broadcast "
                             f"to shape {list(target)} (the shape of {names[1]} except on "
                             f"axis)")


def _check_index_dtype(api: str, spec, arg: str = "indices") -> None:
    if spec.dtype.kind not in "iu":
        raise TypeError(f"{api}: {arg} must be an int32 or int64 tensor, got "
                        f"{spec.dtype.name}")


def _grid(n: int, i: int, ndim: int) -> Tensor:
    """Constant int64 arange(n) shaped to broadcast along dim i of an ndim index."""
    v = list(range(n))
    for _ in range(ndim - 1 - i):
        v = [[e] for e in v]
    for _ in range(i):
        v = [v]
    return wrap(to_array(v, "int64"))


def along_index(src: tuple, target: tuple, indices, axis: int) -> list:
    """Index tensors addressing the positions of take/put_along_axis: `indices` on `axis`,
    broadcast arange grids on the other dims of `target` (index 0 where src has size 1)."""
    ndim = len(target)
    return [indices if i == axis else _grid(1 if src[i] == 1 else target[i], i, ndim)
            for i in range(ndim)]


def _kernel_grids(xp, shape: tuple, indices, axis: int) -> tuple:
    ndim = len(shape)
    out = []
    for i in range(ndim):
        if i == axis:
            out.append(indices)
        else:
            view = [1] * ndim
            view[i] = indices.shape[i]
            out.append(xp.arange(indices.shape[i]).reshape(view))
    return tuple(out)


@register
class TakeAlongAxis(OpDef):
    """out[..., j, ...] = arr[..., indices[..., j, ...], ...] along `axis`.

    broadcast=True broadcasts indices to arr on the other dims (or arr to indices when
    indices are larger), as Paddle does; broadcast=False uses the leading part of arr.
    """

    name = "take_along_axis"
    inputs = ("arr", "indices")
    attrs = {"axis": 0, "broadcast": True}
    check = True
    saves = ("arr", "indices")

    def infer(self, arr, indices, axis=0, broadcast=True):
        _check_index_dtype(self.name, indices)
        axis = norm_axis(self.name, axis, arr.ndim)
        return arr.with_shape(along_shapes(self.name, arr.shape, indices.shape, axis,
                                           broadcast)[1])

    def compute(self, xp, arr, indices, axis=0, broadcast=True):
        axis = norm_axis(self.name, axis, arr.ndim)
        arr_t, idx_t = along_shapes(self.name, arr.shape, indices.shape, axis, broadcast)
        check_index_range(self.name, indices, arr.shape[axis], f"axis {axis} of arr")
        indices = xp.broadcast_to(indices, idx_t)
        if broadcast:
            arr = xp.broadcast_to(arr, arr_t)
        else:
            arr = arr[tuple(slice(None) if i == axis else slice(0, n)
                            for i, n in enumerate(idx_t))]
        return xp.take_along_axis(arr, indices, axis)

    def vjp(self, ctx, g):
        arr = ctx.arr
        axis = norm_axis(self.name, ctx.axis, arr.ndim)
        if -1 in arr.shape or -1 in g.shape:
            # static graph with unknown dims: no numeric index grids; scatter-add instead
            gx = call("put_along_axis", zeros_like(arr), ctx.indices, g, axis=axis,
                      reduce="add")
            return gx, None
        pos = along_index(tuple(arr.shape), tuple(g.shape), ctx.indices, axis)
        gx = call("setitem", zeros_like(arr), g, pos, index=["t"] * len(pos),
                  accumulate=True)
        return gx, None


_REDUCES = ("assign", "add", "mul", "multiply", "mean", "amin", "amax")


@register
class PutAlongAxis(OpDef):
    """out = copy of arr with values put at `indices` along `axis`.

    reduce: 'assign' (last write wins at repeated indices), 'add', 'mul'/'multiply',
    'mean', 'amin', 'amax'; include_self=False drops arr's value at written positions from
    the reduction. values broadcast to the (broadcast) indices and are cast to arr's dtype.
    Grads of 'mul' divide by the values (undefined at zeros); 'amin'/'amax' send the
    gradient to every input equal to the result.
    """

    name = "put_along_axis"
    inputs = ("arr", "indices", "values")
    attrs = {"axis": 0, "reduce": "assign", "include_self": True, "broadcast": True}
    check = True
    saves = ("arr", "indices", "values", "out")

    def infer(self, arr, indices, values, axis=0, reduce="assign", include_self=True,
              broadcast=True):
        _check_index_dtype(self.name, indices)
        if reduce not in _REDUCES:
            raise ValueError(f"{self.name}: reduce must be one of {list(_REDUCES)}, got "
                             f"{reduce!r}")
        axis = norm_axis(self.name, axis, arr.ndim)
        _, idx_t = along_shapes(self.name, arr.shape, indices.shape, axis, broadcast, True)
        _broadcast_to(self.name, values.shape if len(values.shape) == len(idx_t) else
                      (1,) * (len(idx_t) - len(values.shape)) + tuple(values.shape),
                      idx_t, ("values", "indices"))
        if len(values.shape) > len(idx_t):
            raise ValueError(f"{self.name}: values of shape {list(values.shape)} has more "
                             f"dims than indices (shape {list(idx_t)})")
        return arr

    def compute(self, xp, arr, indices, values, axis=0, reduce="assign", include_self=True,
                broadcast=True):
        axis = norm_axis(self.name, axis, arr.ndim)
        _, idx_t = along_shapes(self.name, arr.shape, indices.shape, axis, broadcast, True)
        check_index_range(self.name, indices, arr.shape[axis], f"axis {axis} of arr")
        indices = xp.broadcast_to(indices, idx_t)
        values = xp.broadcast_to(values, idx_t).astype(arr.dtype)
        pos = _kernel_grids(xp, arr.shape, indices, axis)
        out = arr.copy()
        if reduce == "assign":
            out[pos] = values
        elif reduce == "mean":
            count = xp.ones(arr.shape, "int64") if include_self else xp.zeros(arr.shape,
                                                                              "int64")
            if not include_self:
                out[pos] = 0
            xp.add.at(out, pos, values)
            xp.add.at(count, pos, 1)
            hit = count > 0
            safe = xp.where(hit, count, 1)
            mean = out / safe if arr.dtype.kind in "fc" else out // safe
            out = xp.where(hit, mean, out).astype(arr.dtype)
        else:
            ufunc, unit = {"add": (xp.add, 0), "mul": (xp.multiply, 1),
                           "multiply": (xp.multiply, 1), "amin": (xp.minimum, None),
                           "amax": (xp.maximum, None)}[reduce]
            if not include_self:
                out[pos] = values if unit is None else unit
            ufunc.at(out, pos, values)
        return out

    def vjp(self, ctx, g):
        arr = ctx.arr
        axis = norm_axis(self.name, ctx.axis, arr.ndim)
        shape = tuple(arr.shape)
        _, idx_t = along_shapes(self.name, shape, tuple(ctx.indices.shape), axis,
                                ctx.broadcast, True)
        pos = along_index(shape, idx_t, ctx.indices, axis)
        rule = getattr(self, "_vjp_" + {"multiply": "mul"}.get(ctx.reduce, ctx.reduce))
        gx, gv = rule(ctx, g, pos, idx_t)
        return (gx if ctx.needs[0] else None), None, (gv if ctx.needs[2] else None)

    @staticmethod
    def _take(t, pos):
        return call("getitem", t, pos, index=["t"] * len(pos))

    @staticmethod
    def _zero_at(t, pos):
        return call("setitem", t, _scalar(0, t.dtype), pos, index=["t"] * len(pos),
                    accumulate=False)

    def _vjp_assign(self, ctx, g, pos, idx_t):
        return self._zero_at(g, pos), self._take(g, pos)

    def _vjp_add(self, ctx, g, pos, idx_t):
        gx = g if ctx.include_self else self._zero_at(g, pos)
        return gx, self._take(g, pos)

    def _vjp_mul(self, ctx, g, pos, idx_t):
        vals = ctx.values
        factor = call("put_along_axis", ones_like(ctx.arr), ctx.indices, vals, axis=ctx.axis,
                      reduce="mul", include_self=True, broadcast=ctx.broadcast)
        gx = g * factor if ctx.include_self else self._zero_at(g, pos)
        return gx, self._take(g * ctx.out, pos) / vals

    def _vjp_mean(self, ctx, g, pos, idx_t):
        base = ones_like(ctx.arr) if ctx.include_self else zeros_like(ctx.arr)
        count = call("put_along_axis", base, ctx.indices, _scalar(1, ctx.arr.dtype),
                     axis=ctx.axis, reduce="add", include_self=True, broadcast=ctx.broadcast)
        gx = g / count if ctx.include_self else self._zero_at(g, pos)
        return gx, self._take(g, pos) / self._take(count, pos)

    def _vjp_amax(self, ctx, g, pos, idx_t):
        out = ctx.out
        gx = g * call("cast", call("equal", ctx.arr, out), dtype=g.dtype.name)
        if not ctx.include_self:
            gx = self._zero_at(gx, pos)
        taken = self._take(out, pos)
        hit = call("cast", call("equal", ctx.values, taken), dtype=g.dtype.name)
        return gx, self._take(g, pos) * hit

    _vjp_amin = _vjp_amax



# --- gather / scatter families -------------------------------------------------------------

def _full_slices(n: int) -> list:
    return [[None, None, None]] * n


def _gather_index_shape(api: str, shape: tuple) -> tuple:
    """gather takes a 0-D or 1-D index; the legacy [N, 1] form counts as [N]."""
    if len(shape) == 2 and shape[1] == 1:
        return shape[:1]
    if len(shape) > 1:
        raise ValueError(f"{api}: index must be a 0-D or 1-D tensor, got shape "
                         f"{list(shape)}")
    return tuple(shape)


@register
class Gather(OpDef):
    """out = x gathered along `axis` at the rows of a 0-D or 1-D int `index`
    (a 0-D index removes the axis). Negative indices count from the end."""

    name = "gather"
    inputs = ("x", "index")
    attrs = {"axis": 0}
    saves = ("x", "index")
    onnx = "Gather"

    def infer(self, x, index, axis=0):
        _check_index_dtype(self.name, index, "index")
        if x.ndim == 0:
            raise ValueError(f"{self.name}: x must have at least 1 dim, got a 0-D tensor")
        axis = norm_axis(self.name, axis, x.ndim)
        return x.with_shape(x.shape[:axis] + _gather_index_shape(self.name, index.shape)
                            + x.shape[axis + 1:])

    def compute(self, xp, x, index, axis=0):
        axis = norm_axis(self.name, axis, x.ndim)
        if index.ndim > 1:
            index = index.reshape(_gather_index_shape(self.name, index.shape))
        check_index_range(self.name, index, x.shape[axis], f"axis {axis} of x")
        return xp.take(x, index, axis=axis)

    def vjp(self, ctx, g):
        axis = norm_axis(self.name, ctx.axis, ctx.x.ndim)
        index = ctx.index
        if index.ndim > 1:
            index = call("reshape", index, shape=[-1])
        gx = call("setitem", zeros_like(ctx.x), g, [index],
                  index=_full_slices(axis) + ["t"], accumulate=True)
        return gx, None


def _nd_check(api: str, x, index):
    _check_index_dtype(api, index, "index")
    depth = index.shape[-1] if index.ndim else -2
    if index.ndim == 0 or (depth >= 0 and depth > x.ndim):
        raise ValueError(f"{api}: the last dim of index (shape {list(index.shape)}) must be "
                         f"at most the rank of x ({x.ndim})")
    return depth


def _nd_positions(xp, api: str, shape: tuple, index) -> tuple:
    depth = index.shape[-1]
    for k in range(depth):
        check_index_range(api, index[..., k], shape[k], f"axis {k} of x")
    return tuple(index[..., k] for k in range(depth))


@register
class GatherNd(OpDef):
    """out[i] = x[index[i]] where the last dim of `index` addresses the leading dims of x:
    out shape = index.shape[:-1] + x.shape[index.shape[-1]:]."""

    name = "gather_nd"
    inputs = ("x", "index")
    saves = ("x", "index")
    onnx = "GatherND"

    def infer(self, x, index):
        depth = _nd_check(self.name, x, index)
        return x.with_shape(index.shape[:-1] + (x.shape[depth:] if depth >= 0 else ()))

    def compute(self, xp, x, index):
        return x[_nd_positions(xp, self.name, x.shape, index)]

    def vjp(self, ctx, g):
        return call("scatter_nd_add", zeros_like(ctx.x), ctx.index, g), None


def _scatter_nd_check(api: str, shape: tuple, index, updates):
    depth = _nd_check(api, TensorSpec(shape, "float32"), index)
    want = index.shape[:-1] + (shape[depth:] if depth >= 0 else ())
    if len(want) != updates.ndim or any(a != b and a >= 0 and b >= 0
                                        for a, b in zip(want, updates.shape)):
        raise ValueError(f"{api}: updates must have shape index.shape[:-1] + "
                         f"x.shape[index.shape[-1]:] = {list(want)}, got "
                         f"{list(updates.shape)}")


@register
class ScatterNdAdd(OpDef):
    """out = copy of x with updates added at the positions addressed by the last dim of
    `index` (sums at repeated positions)."""

    name = "scatter_nd_add"
    inputs = ("x", "index", "updates")
    saves = ("index",)
    check = True

    def infer(self, x, index, updates):
        _scatter_nd_check(self.name, x.shape, index, updates)
        return x

    def compute(self, xp, x, index, updates):
        out = x.copy()
        xp.add.at(out, _nd_positions(xp, self.name, x.shape, index), updates.astype(x.dtype))
        return out

    def vjp(self, ctx, g):
        gu = call("gather_nd", g, ctx.index) if ctx.needs[2] else None
        return g, None, gu


@register
class ScatterNd(OpDef):
    """out = zeros(shape) with updates added at the positions addressed by `index`."""

    name = "scatter_nd"
    inputs = ("index", "updates")
    attrs = {"shape": ()}
    saves = ("index",)
    check = True

    def infer(self, index, updates, shape=()):
        _scatter_nd_check(self.name, tuple(shape), index, updates)
        return updates.with_shape(shape)

    def compute(self, xp, index, updates, shape=()):
        out = xp.zeros(tuple(shape), updates.dtype)
        xp.add.at(out, _nd_positions(xp, self.name, tuple(shape), index), updates)
        return out

    def vjp(self, ctx, g):
        return None, call("gather_nd", g, ctx.index)


@register
class Scatter(OpDef):
    """out = copy of x with rows `index` (1-D) replaced by the rows of updates
    (overwrite=True, last write wins) or set to the sum of the updates for that row
    (overwrite=False; rows not indexed keep x)."""

    name = "scatter"
    inputs = ("x", "index", "updates")
    attrs = {"overwrite": True}
    saves = ("index",)
    check = True

    def infer(self, x, index, updates, overwrite=True):
        _check_index_dtype(self.name, index, "index")
        if index.ndim > 1:
            raise ValueError(f"{self.name}: index must be a 0-D or 1-D tensor, got shape "
                             f"{list(index.shape)}")
        want = index.shape + x.shape[1:]
        if x.ndim == 0 or len(want) != updates.ndim or any(
                a != b and a >= 0 and b >= 0 for a, b in zip(want, updates.shape)):
            raise ValueError(f"{self.name}: updates must have shape index.shape + "
                             f"x.shape[1:] = {list(want)}, got {list(updates.shape)}")
        return x

    def compute(self, xp, x, index, updates, overwrite=True):
        check_index_range(self.name, index, x.shape[0], "axis 0 of x")
        out = x.copy()
        updates = updates.astype(x.dtype)
        if overwrite:
            out[index] = updates
        else:
            out[index] = 0
            xp.add.at(out, index, updates)
        return out

    def vjp(self, ctx, g):
        gx = call("setitem", g, _scalar(0, g.dtype), [ctx.index], index=["t"],
                  accumulate=False) if ctx.needs[0] else None
        gu = call("gather", g, ctx.index, axis=0) if ctx.needs[2] else None
        return gx, None, gu


@register
class IndexAdd(OpDef):
    """out = copy of x with value added at positions `index` (1-D) along `axis`
    (value has x's shape with index's length on `axis`; sums at repeated indices)."""

    name = "index_add"
    inputs = ("x", "index", "value")
    attrs = {"axis": 0}
    saves = ("index",)
    check = True

    def infer(self, x, index, value, axis=0):
        _check_index_dtype(self.name, index, "index")
        if index.ndim != 1:
            raise ValueError(f"{self.name}: index must be a 1-D tensor, got shape "
                             f"{list(index.shape)}")
        axis = norm_axis(self.name, axis, x.ndim)
        want = x.shape[:axis] + index.shape + x.shape[axis + 1:]
        if len(want) != value.ndim or any(a != b and a >= 0 and b >= 0
                                          for a, b in zip(want, value.shape)):
            raise ValueError(f"{self.name}: value must have shape {list(want)} (x's shape "
                             f"with len(index) on axis {axis}), got {list(value.shape)}")
        return x

    def compute(self, xp, x, index, value, axis=0):
        axis = norm_axis(self.name, axis, x.ndim)
        check_index_range(self.name, index, x.shape[axis], f"axis {axis} of x")
        out = x.copy()
        xp.add.at(out, (slice(None),) * axis + (index,), value.astype(x.dtype))
        return out

    def vjp(self, ctx, g):
        gv = call("gather", g, ctx.index, axis=ctx.axis) if ctx.needs[2] else None
        return g, None, gv


@register
class Take(OpDef):
    """out = x.flatten()[index] (shape of index); mode 'raise' allows -n <= index < n,
    'wrap' wraps indices modulo n, 'clip' clips them to [0, n - 1]."""

    name = "take"
    inputs = ("x", "index")
    attrs = {"mode": "raise"}
    saves = ("x", "index")

    def infer(self, x, index, mode="raise"):
        _check_index_dtype(self.name, index, "index")
        if mode not in ("raise", "wrap", "clip"):
            raise ValueError(f"{self.name}: mode must be 'raise', 'wrap' or 'clip', got "
                             f"{mode!r}")
        return index.with_dtype(x.dtype)

    def compute(self, xp, x, index, mode="raise"):
        n = x.size
        if mode == "raise":
            check_index_range(self.name, index, n, "x (flattened)")
        elif n == 0 and index.size:
            raise IndexError(f"{self.name}: cannot take from an empty tensor")
        return xp.take(x.reshape(-1), index, mode="clip" if mode == "raise" else mode)

    def vjp(self, ctx, g):
        n = 1
        for d in ctx.x.shape:
            n *= d
        positions = call("take", wrap(to_array(list(range(n)), "int64")), ctx.index,
                         mode=ctx.mode)
        flat = call("reshape", ctx.x, shape=[-1])
        gx = call("setitem", zeros_like(flat), g, [positions], index=["t"], accumulate=True)
        return call("reshape", gx, shape=list(ctx.x.shape)), None


@register
class MaskedFill(OpDef):
    """out = where(mask, value, x), mask and x broadcast together; value is a 0-D tensor
    cast to x's dtype."""

    name = "masked_fill"
    inputs = ("x", "mask", "value")
    saves = ("mask",)
    check = True

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
    onnx = None

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

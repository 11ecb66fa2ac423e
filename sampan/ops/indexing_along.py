"""take_along_axis / put_along_axis: Paddle's broadcasting of arr and indices, the index
grids that address their positions, and both OpDefs (put_along_axis with its reduce modes).
"""
from __future__ import annotations

from ..framework.tensor import Tensor, to_array, wrap
from .dispatch import call
from .indexing import _check_index_dtype, _scalar, check_index_range, ones_like, zeros_like
from .opdef import OpDef, norm_axis, register


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
    # indices may be longer than arr on `axis` itself (a scatter-add of many values)
    fits = all(a < 0 or b < 0 or b <= a for i, (a, b) in enumerate(zip(arr, idx)) if i != axis)
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


def _reduce_at(xp, ufunc, out, pos, values) -> None:
    """`ufunc.at(out, pos, values)` without `ufunc.at`: in rounds, each updating every
    target once (a position hit k times gets its values in their order, over k rounds), so
    the results are those of NumPy's unbuffered loop, bit for bit."""
    flat = xp.ravel_multi_index(tuple(xp.broadcast_to(p, values.shape) for p in pos),
                                out.shape, mode="wrap").ravel()  # indices in [-n, n)
    order = xp.argsort(flat, kind="stable")
    flat, vals = flat[order], values.ravel()[order]
    n = flat.shape[0]
    if n == 0:
        return
    first = xp.concatenate([xp.ones(1, bool), flat[1:] != flat[:-1]])
    starts = xp.nonzero(first)[0][xp.cumsum(first) - 1]   # each element's run start
    rank = xp.arange(n) - starts
    view = out.reshape(-1)  # out is a fresh contiguous copy: a view
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        idx = flat[sel]
        view[idx] = ufunc(view[idx], vals[sel])


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


def _assign_rows(xp, out, indices, values) -> bool:
    """out[..., indices[..., j]] = values[..., j] along out's last axis through one flat
    index (2.3x faster than broadcast index grids: max pooling's backward scatters this
    way); False, doing nothing, unless indices span out's leading dims and out is C-ordered.
    Duplicate indices keep the last value, as the grid assignment does."""
    n = out.shape[-1]
    if indices.shape[:-1] != out.shape[:-1] or out.size == 0 or not out.flags.c_contiguous:
        return False
    if indices.size and indices.min() < 0:
        indices = xp.where(indices < 0, indices + n, indices)
    rows = xp.arange(0, out.size, n, dtype=xp.intp).reshape(indices.shape[:-1] + (1,))
    out.reshape(-1)[(indices + rows).reshape(-1)] = values.reshape(-1)
    return True


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

    def onnx(self, b, node):
        (arr, idx), (sa, si) = node.inputs, node.specs
        axis = norm_axis(self.name, node.attrs["axis"], len(sa.shape))
        arr_t, idx_t = along_shapes(self.name, tuple(sa.shape), tuple(si.shape), axis,
                                    node.attrs["broadcast"])
        if -1 in arr_t or -1 in idx_t:
            raise b.Unsupported("take_along_axis with unknown dims")
        if list(arr_t) != list(sa.shape):
            if all(t >= s for t, s in zip(arr_t, sa.shape)):
                arr = b.op("Expand", [arr, b.ints(arr_t)])
            else:
                arr = b.op("Slice", [arr, b.ints([0] * len(arr_t)), b.ints(arr_t)])
        if list(idx_t) != list(si.shape):
            idx = b.op("Expand", [idx, b.ints(idx_t)])
        return b.op("GatherElements", [arr, idx], axis=axis)

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

    def onnx(self, b, node):   # ScatterElements (opset 17 reductions: none, add, mul)
        (arr, idx, vals), (sa, si, sv) = node.inputs, node.specs
        red = {"assign": "none", "add": "add", "mul": "mul", "multiply": "mul"}.get(
            node["reduce"])
        if red is None:
            raise b.Unsupported(f"put_along_axis reduce={node['reduce']!r} (ONNX opset 17 "
                                f"scatters with assign, add or mul only)")
        axis = norm_axis(self.name, node["axis"], len(sa.shape))
        _, idx_t = along_shapes(self.name, tuple(sa.shape), tuple(si.shape), axis,
                                node["broadcast"], True)
        if -1 in idx_t:
            raise b.Unsupported("put_along_axis with unknown dims")
        idx = b.op("Expand", [b.cast(idx, "int64"), b.ints(idx_t)])
        vals = b.op("Expand", [b.like([vals], [sv], node.out_dtype())[0], b.ints(idx_t)])
        if red != "none" and not node["include_self"]:   # reset the hit slots first
            fill = b.fill_like(vals, 0 if red == "add" else 1, node.out_dtype())
            arr = b.op("ScatterElements", [arr, idx, fill], axis=axis)
        return b.op("ScatterElements", [arr, idx, vals], axis=axis, reduction=red)

    def compute(self, xp, arr, indices, values, axis=0, reduce="assign", include_self=True,
                broadcast=True):
        axis = norm_axis(self.name, axis, arr.ndim)
        _, idx_t = along_shapes(self.name, arr.shape, indices.shape, axis, broadcast, True)
        check_index_range(self.name, indices, arr.shape[axis], f"axis {axis} of arr")
        indices = xp.broadcast_to(indices, idx_t)
        values = xp.broadcast_to(values, idx_t).astype(arr.dtype)
        out = arr.copy()
        if reduce == "assign" and axis == arr.ndim - 1 and _assign_rows(xp, out, indices,
                                                                        values):
            return out
        pos = _kernel_grids(xp, arr.shape, indices, axis)
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
            if reduce == "add":
                ufunc.at(out, pos, values)
            else:  # no multiply.at on GPUs; their maximum/minimum.at differ on repeats
                _reduce_at(xp, ufunc, out, pos, values)
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

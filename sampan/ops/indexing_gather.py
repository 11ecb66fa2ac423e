"""The gather/scatter families: gather, gather_nd, scatter, scatter_nd(_add), index_add and
take (index tensors along one axis, over leading dims, or into the flattened x).
"""
from __future__ import annotations

from ..framework.tensor import to_array, wrap
from .dispatch import call
from .indexing import _check_index_dtype, _scalar, check_index_range, zeros_like
from .opdef import OpDef, TensorSpec, norm_axis, register


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

    def onnx(self, b, node):
        axis = norm_axis(self.name, node.attrs["axis"], len(node.specs[0].shape))
        index = node.inputs[1]
        if len(node.specs[1].shape) > 1:
            index = b.reshape(index, [-1])
        return b.op("Gather", [node.inputs[0], index], axis=axis)

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

    def onnx(self, b, node):
        return b.op("GatherND", [node.inputs[0], b.cast(node.inputs[1], "int64")])

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

    def onnx(self, b, node):
        x, index, updates = node.inputs
        updates = b.like([updates], [node.specs[2]], node.out_dtype())[0]
        return b.op("ScatterND", [x, b.cast(index, "int64"), updates], reduction="add")

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

    def onnx(self, b, node):   # zeros(shape), then ScatterND with reduction add
        index, updates = node.inputs
        zeros = b.op("Expand", [b.scalar(0, node.out_dtype()), b.ints(node["shape"])])
        return b.op("ScatterND", [zeros, b.cast(index, "int64"), updates], reduction="add")

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

    amp = "float32_always"
    name = "scatter"
    inputs = ("x", "index", "updates")
    attrs = {"overwrite": True}
    saves = ("index",)
    check = True

    def onnx(self, b, node):   # ScatterND on rows; overwrite=False zeroes the rows first
        x, index, updates = node.inputs
        rows = b.reshape(b.cast(index, "int64"), [-1, 1])
        updates = b.like([updates], [node.specs[2]], node.out_dtype())[0]
        if len(node.specs[1].shape) == 0:
            updates = b.unsqueeze_axes(updates, [0])
        if node["overwrite"]:
            return b.op("ScatterND", [x, rows, updates])
        zeros = b.op("Mul", [updates, b.scalar(0, node.out_dtype())])
        cleared = b.op("ScatterND", [x, rows, zeros])
        return b.op("ScatterND", [cleared, rows, updates], reduction="add")

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

    def onnx(self, b, node):   # move `axis` first, ScatterND(add) on rows, move it back
        x, index, value = node.inputs
        nd = len(node.specs[0].shape)
        axis = norm_axis(self.name, node["axis"], nd)
        perm = [axis] + [i for i in range(nd) if i != axis]
        back = [perm.index(i) for i in range(nd)]
        value = b.like([value], [node.specs[2]], node.out_dtype())[0]
        rows = b.reshape(b.cast(index, "int64"), [-1, 1])
        out = b.op("ScatterND", [b.op("Transpose", [x], perm=perm), rows,
                                 b.op("Transpose", [value], perm=perm)], reduction="add")
        return b.op("Transpose", [out], perm=back)

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

    def onnx(self, b, node):   # Gather from the flat x; wrap: Mod by size, clip: Clip
        x, index = node.inputs
        index = b.cast(index, "int64")
        n = b.op("Size", [x])
        if node["mode"] == "wrap":
            index = b.op("Mod", [index, n], fmod=0)
        elif node["mode"] == "clip":
            index = b.op("Clip", [index, b.scalar(0, "int64"),
                                  b.op("Sub", [n, b.scalar(1, "int64")])])
        return b.op("Gather", [b.reshape(x, [-1]), index], axis=0)

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
        # after the range check, 'raise' indexes like Python: -1 is the last element
        return xp.take(x.reshape(-1), index, mode="wrap" if mode == "raise" else mode)

    def vjp(self, ctx, g):
        n = 1
        for d in ctx.x.shape:
            n *= d
        positions = call("take", wrap(to_array(list(range(n)), "int64")), ctx.index,
                         mode=ctx.mode)
        flat = call("reshape", ctx.x, shape=[-1])
        gx = call("setitem", zeros_like(flat), g, [positions], index=["t"], accumulate=True)
        return call("reshape", gx, shape=list(ctx.x.shape)), None

"""Join/split and repeat operators: concat, split, stack, tile, expand, expand_as and
repeat_interleave (concat and split are each other's vjp; tile/repeat vjps sum back).
"""
from __future__ import annotations

import math

from .dispatch import call
from .manipulation import _attr, _same_dim, axis_list
from .opdef import OpDef, broadcast_shapes, norm_axis, register


def _concat_shape(api: str, xs: list, axis: int) -> tuple:
    if not xs:
        raise ValueError(f"{api}: x must be a non-empty list of Tensors")
    shapes = [list(x.shape) for x in xs]
    ndim = len(shapes[0])
    if any(len(s) != ndim for s in shapes):
        raise ValueError(f"{api}: all inputs must have the same rank, got shapes {shapes}")
    if ndim == 0:
        raise ValueError(f"{api}: 0-D tensors cannot be concatenated (got shapes {shapes}); "
                         f"use paddle.stack")
    dtypes = [x.dtype.name for x in xs]
    if len(set(dtypes)) > 1:
        raise TypeError(f"{api}: all inputs must have the same dtype, got {dtypes}")
    ax = norm_axis(api, axis, ndim)
    out = list(shapes[0])
    for k, s in enumerate(shapes[1:], 1):
        for i in range(ndim):
            if i != ax and not _same_dim(s[i], out[i]):
                raise ValueError(f"{api}: input {k} has shape {s} but input 0 has shape "
                                 f"{shapes[0]}; all dims except axis {ax} must match")
    sizes = [s[ax] for s in shapes]
    out[ax] = -1 if -1 in sizes else sum(sizes)
    return tuple(out)


@register
class Concat(OpDef):
    """Join tensors of the same rank and dtype along `axis`."""

    name = "concat"
    inputs = ("*x",)
    attrs = {"axis": 0}
    check = True  # NumPy would promote mixed dtypes silently

    def onnx(self, b, node):
        axis = norm_axis(self.name, node.attrs["axis"], len(node.outs[0].shape))
        return b.op("Concat", b.like(node.inputs, node.specs, node.out_dtype()), axis=axis)

    def infer(self, x, axis=0):
        return x[0].with_shape(_concat_shape(self.name, x, axis))

    def compute(self, xp, x, axis=0):
        return xp.concatenate(x, axis=axis)

    def vjp(self, ctx, g):
        ax = axis_list(self.name, _attr(self, ctx, "axis"), g.ndim)[0]
        parts = call("split", g, num_or_sections=[t.shape[ax] for t in ctx.x], axis=ax)
        return ([p if need else None for p, need in zip(parts, ctx.needs[0])],)


def split_sections(api: str, num_or_sections, size: int, shape: tuple, axis: int) -> list:
    """Section sizes for split: an int divides `size` evenly; a list may hold one -1."""
    if isinstance(num_or_sections, int):
        num = num_or_sections
        if num <= 0:
            raise ValueError(f"{api}: num_or_sections must be a positive int, got {num}")
        if size == -1:
            return [-1] * num
        if size % num:
            raise ValueError(f"{api}: dim {axis} of x (shape {list(shape)}) is {size}, which "
                             f"cannot be split into {num} equal sections")
        return [size // num] * num
    sections = [int(s) for s in num_or_sections]
    if not sections:
        raise ValueError(f"{api}: num_or_sections must not be empty")
    if sections.count(-1) > 1 or any(s < -1 for s in sections):
        raise ValueError(f"{api}: sections {sections} may hold at most one -1 and no other "
                         f"negative value")
    if size == -1:
        return sections
    known = sum(s for s in sections if s != -1)
    if -1 in sections:
        if known > size:
            raise ValueError(f"{api}: sections {sections} sum to at least {known} but dim "
                             f"{axis} of x (shape {list(shape)}) is {size}")
        sections[sections.index(-1)] = size - known
    elif known != size:
        raise ValueError(f"{api}: sections {sections} sum to {known} but dim {axis} of x "
                         f"(shape {list(shape)}) is {size}")
    return sections


class MultiOut(OpDef):
    """Base of ops with a variable number of outputs (one per section)."""

    # NOTE: OpDef has no variadic-output marker; "*out" names the list and multi_out is
    # forced on so dispatch wraps each array of the returned tuple.
    outputs = ("*out",)

    def __init__(self) -> None:
        super().__init__()
        self.multi_out = True


@register
class Split(MultiOut):
    """Split x along `axis` into equal parts (int) or parts of the given sizes (list, one
    entry may be -1); returns one output per part."""

    name = "split"
    attrs = {"num_or_sections": 1, "axis": 0}
    saves = ()

    def onnx(self, b, node):
        x, spec = node.inputs[0], node.specs[0]
        ax = norm_axis(self.name, node.attrs["axis"], len(spec.shape))
        sizes = [o.shape[ax] for o in node.outs]
        split = None if -1 in sizes else b.ints(sizes)
        if split is None and not isinstance(node.attrs["num_or_sections"], int):
            raise b.Unsupported(f"split sections {node.attrs['num_or_sections']} of an "
                                f"unknown dim")
        outs = b.op("Split", [x, split], n_out=len(node.outs), axis=ax)
        return [outs] if isinstance(outs, str) else outs

    def infer(self, x, num_or_sections=1, axis=0):
        ax = norm_axis(self.name, axis, x.ndim)
        sections = split_sections(self.name, num_or_sections, x.shape[ax], x.shape, ax)
        return tuple(x.with_shape(x.shape[:ax] + (s,) + x.shape[ax + 1:]) for s in sections)

    def compute(self, xp, x, num_or_sections=1, axis=0):
        ax = norm_axis(self.name, axis, x.ndim)
        sections = split_sections(self.name, num_or_sections, x.shape[ax], x.shape, ax)
        bounds = []
        total = 0
        for s in sections[:-1]:
            total += s
            bounds.append(total)
        return tuple(xp.split(x, bounds, axis=ax))

    def vjp(self, ctx, *grads):
        return (call("concat", list(grads), axis=_attr(self, ctx, "axis")),)


@register
class Stack(OpDef):
    """Join same-shape tensors along a new axis at position `axis`."""

    name = "stack"
    inputs = ("*x",)
    attrs = {"axis": 0}
    saves = ()
    check = True

    def onnx(self, b, node):
        axis = norm_axis(self.name, node.attrs["axis"], len(node.outs[0].shape))
        parts = [b.unsqueeze_axes(x, [axis])
                 for x in b.like(node.inputs, node.specs, node.out_dtype())]
        return b.op("Concat", parts, axis=axis)

    def infer(self, x, axis=0):
        if not x:
            raise ValueError(f"{self.name}: x must be a non-empty list of Tensors")
        shapes = [list(t.shape) for t in x]
        dtypes = [t.dtype.name for t in x]
        if len(set(dtypes)) > 1:
            raise TypeError(f"{self.name}: all inputs must have the same dtype, got {dtypes}")
        if any(len(s) != len(shapes[0]) or not all(map(_same_dim, s, shapes[0]))
               for s in shapes):
            raise ValueError(f"{self.name}: all inputs must have the same shape, got {shapes}")
        ax = norm_axis(self.name, axis, len(shapes[0]) + 1)
        return x[0].with_shape(shapes[0][:ax] + [len(x)] + shapes[0][ax:])

    def compute(self, xp, x, axis=0):
        return xp.stack(x, axis=axis)

    def vjp(self, ctx, g):
        ax = norm_axis(self.name, _attr(self, ctx, "axis"), g.ndim)
        parts = call("split", g, num_or_sections=g.shape[ax], axis=ax)
        return ([call("squeeze", p, axis=[ax]) if need else None
                 for p, need in zip(parts, ctx.needs[0])],)


def _tile_shapes(api: str, shape: tuple, repeat_times) -> tuple:
    reps = [int(r) for r in repeat_times]
    if any(r < 0 for r in reps):
        raise ValueError(f"{api}: repeat_times must be non-negative, got {reps}")
    n = max(len(reps), len(shape))
    reps = [1] * (n - len(reps)) + reps
    src = [1] * (n - len(shape)) + list(shape)
    out = [-1 if d == -1 else d * r for d, r in zip(src, reps)]
    return src, reps, tuple(out)


@register
class Tile(OpDef):
    """Repeat x `repeat_times[i]` times along dim i; the shorter of x.shape and
    repeat_times is padded with leading 1s."""

    name = "tile"
    attrs = {"repeat_times": None}
    check = True

    def onnx(self, b, node):
        x, shape = node.inputs[0], node.specs[0].shape
        reps = [int(r) for r in node.attrs["repeat_times"]]
        if len(reps) > len(shape):
            x = b.unsqueeze_axes(x, list(range(len(reps) - len(shape))))
        reps = [1] * (len(shape) - len(reps)) + reps
        return b.op("Tile", [x, b.ints(reps)])

    def infer(self, x, repeat_times=None):
        return x.with_shape(_tile_shapes(self.name, x.shape, repeat_times)[2])

    def compute(self, xp, x, repeat_times=None):
        src, reps, _ = _tile_shapes(self.name, x.shape, repeat_times)
        return xp.tile(xp.reshape(x, src), reps)

    def vjp(self, ctx, g):
        reps = _attr(self, ctx, "repeat_times")
        src, reps, _ = _tile_shapes(self.name, tuple(ctx.x.shape), reps)
        inter = []
        for r, d in zip(reps, src):
            inter += [r, d]
        g = call("reshape", g, shape=inter)
        if inter:
            g = call("sum", g, axis=list(range(0, len(inter), 2)), keepdim=False, dtype=None)
        return (call("reshape", g, shape=list(ctx.x.shape)),)


def expand_shape(api: str, shape: tuple, target) -> tuple:
    """Target shape of expand: -1 keeps x's dim; new dims may only be prepended."""
    target = [int(s) for s in target]
    if len(target) < len(shape):
        raise ValueError(f"{api}: shape {target} has fewer dims than x (shape {list(shape)})")
    lead = len(target) - len(shape)
    out = []
    for i, t in enumerate(target):
        d = shape[i - lead] if i >= lead else None
        if t == -1:
            if d is None:
                raise ValueError(f"{api}: shape[{i}] is -1 but there is no matching dim of x "
                                 f"(shape {list(shape)}); -1 may only keep existing dims")
            out.append(d)
        elif t < -1:
            raise ValueError(f"{api}: shape[{i}] must be >= 0 or -1, got shape {target}")
        elif d is None or d == 1 or d == t or d == -1:
            out.append(t)
        else:
            raise ValueError(f"{api}: dim {i - lead} of x (shape {list(shape)}) is {d} and "
                             f"cannot be expanded to {t} (target shape {target}); only size-1 "
                             f"dims can be expanded")
    return tuple(out)


@register
class Expand(OpDef):
    """Broadcast x to `shape` (-1 keeps x's dim); the gradient sums over expanded dims."""

    name = "expand"
    attrs = {"shape": None}
    saves = ()
    check = True

    def onnx(self, b, node):   # -1 keeps a dim: broadcasting against 1 does the same
        shape = [1 if int(s) == -1 else int(s) for s in node.attrs["shape"]]
        return b.op("Expand", [node.inputs[0], b.ints(shape)])

    def infer(self, x, shape=None):
        return x.with_shape(expand_shape(self.name, x.shape, shape))

    def compute(self, xp, x, shape=None):
        return xp.broadcast_to(x, expand_shape(self.name, x.shape, shape)).copy()

    def vjp(self, ctx, g):
        return (g,)  # the engine reduces the expanded dims (unbroadcast)


@register
class ExpandAs(OpDef):
    """out = x broadcast to the shape of y (y's values are not used)."""

    name = "expand_as"
    inputs = ("x", "y")
    saves = ()

    def onnx(self, b, node):
        return b.op("Expand", [node.inputs[0], b.op("Shape", [node.inputs[1]])])

    def infer(self, x, y):
        broadcast_shapes(self.name, x.shape, y.shape)
        return y.with_dtype(x.dtype)

    def compute(self, xp, x, y):
        return xp.broadcast_to(x, y.shape)

    def vjp(self, ctx, g):
        return (g, None)


def _repeat_shape(api: str, shape: tuple, repeats, axis) -> tuple:
    if axis is None:
        n = -1 if -1 in shape else math.prod(shape)
        shape, ax = (n,), 0
    else:
        ax = norm_axis(api, axis, len(shape))
    n = shape[ax] if shape else 1
    if isinstance(repeats, int):
        if repeats < 0:
            raise ValueError(f"{api}: repeats must be non-negative, got {repeats}")
        size = -1 if n == -1 else n * repeats
    else:
        if any(r < 0 for r in repeats):
            raise ValueError(f"{api}: repeats must be non-negative, got {list(repeats)}")
        if n != -1 and len(repeats) not in (1, n):
            raise ValueError(f"{api}: repeats has {len(repeats)} entries but dim {ax} of x "
                             f"(shape {list(shape)}) is {n}")
        size = -1 if n == -1 else sum(repeats) * (n if len(repeats) == 1 else 1)
    if not shape:
        return (size,)
    return shape[:ax] + (size,) + shape[ax + 1:]


@register
class RepeatInterleave(OpDef):
    """Repeat each element of x along `axis` `repeats` times (an int, or one count per
    element); axis None works on the flattened x."""

    name = "repeat_interleave"
    attrs = {"repeats": 1, "axis": None}
    check = True

    def onnx(self, b, node):   # Gather with the static index list np.repeat(arange(n))
        shape, reps, axis = list(node.specs[0].shape), node["repeats"], node["axis"]
        x = node.inputs[0]
        if axis is None or not shape:
            if -1 in shape:
                raise b.Unsupported("repeat_interleave with axis None of unknown dims")
            x, ax, n = b.reshape(x, [-1]), 0, math.prod(shape)
        else:
            ax = norm_axis(self.name, axis, len(shape))
            n = shape[ax]
            if n < 0:
                raise b.Unsupported("repeat_interleave along a dim of unknown size")
        reps = [reps] * n if isinstance(reps, int) else list(reps) * (n if len(reps) == 1
                                                                      else 1)
        index = [i for i, r in enumerate(reps) for _ in range(int(r))]
        return b.op("Gather", [x, b.ints(index)], axis=ax)

    def infer(self, x, repeats=1, axis=None):
        return x.with_shape(_repeat_shape(self.name, x.shape, repeats, axis))

    def compute(self, xp, x, repeats=1, axis=None):
        if x.ndim == 0 and axis is not None:
            x = xp.reshape(x, (1,))
        return xp.repeat(x, repeats, axis=axis)

    def vjp(self, ctx, g):
        shape = list(ctx.x.shape)
        if _attr(self, ctx, "axis") is None or not shape:
            g = call("reshape", g, shape=[-1])
            ax, n = 0, math.prod(shape)
        else:
            ax = norm_axis(self.name, _attr(self, ctx, "axis"), len(shape))
            n = shape[ax]
        reps = _attr(self, ctx, "repeats")
        if not isinstance(reps, int) and len(reps) == 1:
            reps = reps[0]
        if isinstance(reps, int):
            inter = list(g.shape[:ax]) + [n, reps] + list(g.shape[ax + 1:])
            g = call("reshape", g, shape=inter)
            g = call("sum", g, axis=[ax + 1], keepdim=False, dtype=None)
        else:
            parts = call("split", g, num_or_sections=list(reps), axis=ax)
            g = call("concat", [call("sum", p, axis=[ax], keepdim=True, dtype=None)
                                for p in parts], axis=ax)
        return (call("reshape", g, shape=shape),)

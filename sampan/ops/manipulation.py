"""Shape manipulation operators: reshape, transpose, concat, split, tile, expand, flip, pad, ...

All of them move or copy elements without arithmetic, so every vjp is again a manipulation
op (transpose <-> transpose, concat <-> split, pad <-> crop, ...). Imports `framework` and
`ops.opdef` only.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, broadcast_shapes, norm_axis, register


def _infer_unknown(shape: list, src: tuple, out: list) -> tuple:
    """Static shapes: the user's -1 is still computable when every unknown dim of `src` is
    copied by a 0 (reshape([-1, C, H, W] -> [0, G, -1]) gives [-1, G, C*H*W/G])."""
    copied = [i for i, s in enumerate(shape) if s == 0 and src[i] == -1]
    if -1 in shape and copied == [i for i, d in enumerate(src) if d == -1]:
        user = shape.index(-1)
        known = math.prod(d for d in src if d != -1)
        rest = math.prod(d for i, d in enumerate(out) if i not in copied and i != user)
        if rest and known % rest == 0:
            out[user] = known // rest
    return tuple(out)


def resolve_shape(api: str, shape, src: tuple) -> tuple:
    """Paddle reshape rules: 0 copies the input dim, one -1 is inferred."""
    shape = [int(s) for s in shape]
    out = []
    for i, s in enumerate(shape):
        if s == 0:
            if i >= len(src):
                raise ValueError(f"{api}: shape[{i}] is 0 (copy the input dim) but x has only "
                                 f"{len(src)} dims")
            s = src[i]
        elif s < -1:
            raise ValueError(f"{api}: shape[{i}] is {s}; dims must be >= 0 or -1 (inferred), "
                             f"got shape {shape}")
        out.append(s)
    if shape.count(-1) > 1:
        raise ValueError(f"{api}: only one dim of shape may be -1, got {shape}")
    total = math.prod(src)
    if -1 in out:
        rest = math.prod(s for s in out if s != -1)
        if -1 in src:
            return _infer_unknown(shape, src, out)
        if rest == 0 or total % rest:
            raise ValueError(f"{api}: cannot reshape x of shape {list(src)} ({total} elements) "
                             f"to {shape}")
        out[out.index(-1)] = total // rest
    elif -1 not in src and math.prod(out) != total:
        raise ValueError(f"{api}: cannot reshape x of shape {list(src)} ({total} elements) to "
                         f"{shape} ({math.prod(out)} elements)")
    return tuple(out)


def axis_list(api: str, axis, ndim: int, arg: str = "axis") -> list:
    """`axis` (int or list) as a list of non-negative axes; duplicates are an error."""
    axes = [axis] if isinstance(axis, int) else list(axis)
    out = [norm_axis(api, int(a), ndim, arg) for a in axes]
    if len(set(out)) != len(out):
        raise ValueError(f"{api}: {arg} {axes} repeats an axis (x has {ndim} dims)")
    return out


def _attr(op: OpDef, ctx, name: str):
    """An attr as the vjp sees it; a caller of `call` may have left defaults out."""
    return ctx.attrs.get(name, op.attrs[name])


def _same_dim(a: int, b: int) -> bool:
    return a == b or a == -1 or b == -1


class ReshapeLike(OpDef):
    """Base of ops that only change the shape: the gradient is reshaped back to x's."""

    def vjp(self, ctx, g):
        return (call("reshape", g, shape=list(ctx.x.shape)),)


@register
class Reshape(ReshapeLike):
    """out = x with a new shape (0 copies a dim, -1 is inferred); the data is not copied."""

    name = "reshape"
    attrs = {"shape": None}
    check = True
    onnx = "Reshape"

    def infer(self, x, shape=None):
        return x.with_shape(resolve_shape(self.name, shape, x.shape))

    def compute(self, xp, x, shape=None):
        return xp.reshape(x, resolve_shape(self.name, shape, x.shape))


def _squeeze_shape(api: str, shape: tuple, axis) -> tuple:
    ndim = len(shape)
    if axis is None:
        return tuple(d for d in shape if d != 1)
    axes = {norm_axis(api, int(a), ndim) for a in axis} if ndim else set()
    # NOTE: Paddle ignores listed axes whose size is not 1 (they are kept, no error).
    return tuple(d for i, d in enumerate(shape) if not (i in axes and d == 1))


@register
class Squeeze(ReshapeLike):
    """Remove size-1 dims: all of them (axis None) or those listed in `axis`; listed dims
    whose size is not 1 are kept (Paddle semantics)."""

    name = "squeeze"
    attrs = {"axis": None}

    def infer(self, x, axis=None):
        return x.with_shape(_squeeze_shape(self.name, x.shape, axis))

    def compute(self, xp, x, axis=None):
        return xp.reshape(x, _squeeze_shape(self.name, x.shape, axis))


def _unsqueeze_shape(api: str, shape: tuple, axis) -> tuple:
    out = list(shape)
    for a in axis:
        a = int(a)
        n = len(out) + 1
        if not -n <= a < n:
            raise IndexError(f"{api}: axis {a} is out of range for inserting a dim into a "
                             f"tensor with {n - 1} dims (expected {-n} <= axis < {n}); "
                             f"x shape {list(shape)}, axis {list(axis)}")
        out.insert(a % n, 1)
    return tuple(out)


@register
class Unsqueeze(ReshapeLike):
    """Insert size-1 dims at the positions in `axis`, one after the other (each position
    refers to the shape produced by the previous insertions)."""

    name = "unsqueeze"
    attrs = {"axis": None}
    onnx = "Unsqueeze"

    def infer(self, x, axis=None):
        return x.with_shape(_unsqueeze_shape(self.name, x.shape, axis))

    def compute(self, xp, x, axis=None):
        return xp.reshape(x, _unsqueeze_shape(self.name, x.shape, axis))


def _flatten_shape(api: str, shape: tuple, start: int, stop: int) -> tuple:
    if not shape:
        return (1,)
    ndim = len(shape)
    s = norm_axis(api, start, ndim, "start_axis")
    e = norm_axis(api, stop, ndim, "stop_axis")
    if s > e:
        raise ValueError(f"{api}: start_axis ({start}) must not be after stop_axis ({stop}) "
                         f"for x of shape {list(shape)}")
    mid = shape[s:e + 1]
    merged = -1 if -1 in mid else math.prod(mid)
    return tuple(shape[:s]) + (merged,) + tuple(shape[e + 1:])


@register
class Flatten(ReshapeLike):
    """Merge dims start_axis..stop_axis (inclusive) into one; a 0-D x gives shape [1]."""

    name = "flatten"
    attrs = {"start_axis": 0, "stop_axis": -1}

    def infer(self, x, start_axis=0, stop_axis=-1):
        return x.with_shape(_flatten_shape(self.name, x.shape, start_axis, stop_axis))

    def compute(self, xp, x, start_axis=0, stop_axis=-1):
        return xp.reshape(x, _flatten_shape(self.name, x.shape, start_axis, stop_axis))


def check_perm(api: str, perm, shape: tuple) -> list:
    ndim = len(shape)
    if perm is None:
        raise ValueError(f"{api}: perm is required")
    perm = [int(p) for p in perm]
    norm = [p + ndim if p < 0 else p for p in perm]
    if len(perm) != ndim or sorted(norm) != list(range(ndim)):
        raise ValueError(f"{api}: perm {perm} is not a permutation of the {ndim} dims of x "
                         f"(shape {list(shape)}); expected a reordering of "
                         f"{list(range(ndim))}")
    return norm


@register
class Transpose(OpDef):
    """out.shape[i] = x.shape[perm[i]]; perm entries may be negative."""

    name = "transpose"
    attrs = {"perm": None}
    saves = ()
    check = True
    onnx = "Transpose"

    def infer(self, x, perm=None):
        perm = check_perm(self.name, perm, x.shape)
        return x.with_shape([x.shape[p] for p in perm])

    def compute(self, xp, x, perm=None):
        return xp.transpose(x, check_perm(self.name, perm, x.shape))

    def vjp(self, ctx, g):
        perm = [p % max(g.ndim, 1) for p in _attr(self, ctx, "perm")]
        inv = [0] * len(perm)
        for i, p in enumerate(perm):
            inv[p] = i
        return (call("transpose", g, perm=inv),)


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
    onnx = "Concat"

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
    onnx = "Split"

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
    onnx = "Tile"

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
    onnx = "Expand"

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

    def infer(self, x, y):
        broadcast_shapes(self.name, x.shape, y.shape)
        return y.with_dtype(x.dtype)

    def compute(self, xp, x, y):
        return xp.broadcast_to(x, y.shape)

    def vjp(self, ctx, g):
        return (g, None)


@register
class Flip(OpDef):
    """Reverse the order of elements along each axis in `axis`."""

    name = "flip"
    attrs = {"axis": None}
    saves = ()

    def infer(self, x, axis=None):
        axis_list(self.name, axis, x.ndim)
        return x

    def compute(self, xp, x, axis=None):
        axes = axis_list(self.name, axis, x.ndim)
        return xp.flip(x, axis=tuple(axes)) if axes else x.copy()

    def vjp(self, ctx, g):
        return (call("flip", g, axis=_attr(self, ctx, "axis")),)


def _roll_args(api: str, shifts, axis, ndim: int):
    shifts = [int(s) for s in shifts]
    if axis is None:
        if len(shifts) != 1:
            raise ValueError(f"{api}: with axis None, shifts must be one value, got {shifts}")
        return shifts, None
    axes = [norm_axis(api, int(a), ndim) for a in axis]
    if len(axes) != len(shifts):
        raise ValueError(f"{api}: shifts {shifts} and axis {list(axis)} must have the same "
                         f"length")
    return shifts, axes


@register
class Roll(OpDef):
    """Shift elements cyclically by `shifts` along `axis` (None: over the flattened x)."""

    name = "roll"
    attrs = {"shifts": None, "axis": None}
    saves = ()
    check = True

    def infer(self, x, shifts=None, axis=None):
        _roll_args(self.name, shifts, axis, x.ndim)
        return x

    def compute(self, xp, x, shifts=None, axis=None):
        shifts, axes = _roll_args(self.name, shifts, axis, x.ndim)
        if axes is None:
            return xp.roll(x, shifts[0])
        return xp.roll(x, shifts, axis=axes)

    def vjp(self, ctx, g):
        shifts = [-s for s in _attr(self, ctx, "shifts")]
        return (call("roll", g, shifts=shifts, axis=_attr(self, ctx, "axis")),)


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
              "circular": "wrap"}


def _pad_pairs(api: str, pad, shape: tuple, mode: str) -> list:
    """Validate the full per-axis pad list [b0, a0, b1, a1, ...] and return pairs."""
    if mode not in _PAD_MODES:
        raise ValueError(f"{api}: mode must be one of {sorted(_PAD_MODES)}, got {mode!r}")
    pad = [int(p) for p in pad]
    if len(pad) != 2 * len(shape):
        raise ValueError(f"{api}: pad {pad} must hold 2 values per dim of x "
                         f"(shape {list(shape)})")
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(len(shape))]
    for i, ((b, a), n) in enumerate(zip(pairs, shape)):
        if b < 0 or a < 0:
            raise ValueError(f"{api}: pad values must be non-negative, got {pad}")
        if n == -1 or (b == 0 and a == 0) or mode == "constant":
            continue
        limit = n - 1 if mode == "reflect" else n
        if b > limit or a > limit or n == 0:
            raise ValueError(f"{api}: {mode} padding of dim {i} (size {n}, x shape "
                             f"{list(shape)}) must be at most {limit}, got pad ({b}, {a})")
    return pairs


@register
class Pad(OpDef):
    """Pad every dim i by pad[2i] before and pad[2i+1] after. mode 'constant' fills `value`,
    'reflect' mirrors without the edge, 'replicate' repeats the edge, 'circular' wraps."""

    name = "pad"
    attrs = {"pad": None, "mode": "constant", "value": 0.0}
    saves = ()
    check = True

    def infer(self, x, pad=None, mode="constant", value=0.0):
        pairs = _pad_pairs(self.name, pad, x.shape, mode)
        return x.with_shape([-1 if n == -1 else n + b + a for n, (b, a) in zip(x.shape, pairs)])

    def compute(self, xp, x, pad=None, mode="constant", value=0.0):
        pairs = _pad_pairs(self.name, pad, x.shape, mode)
        if mode == "constant":
            return xp.pad(x, pairs, mode="constant", constant_values=value)
        return xp.pad(x, pairs, mode=_PAD_MODES[mode])

    def vjp(self, ctx, g):
        shape = list(g.shape)
        for ax in range(len(shape)):
            b, a = _attr(self, ctx, "pad")[2 * ax], _attr(self, ctx, "pad")[2 * ax + 1]
            if b or a:
                g = _pad_axis_vjp(g, ax, b, a, _attr(self, ctx, "mode"))
        return (g,)


def _slice_axis(t, ax: int, start: int, stop: int):
    shape = list(t.shape)
    offsets = [0] * len(shape)
    offsets[ax] = start
    shape[ax] = stop - start
    return call("crop", t, shape=shape, offsets=offsets)


def _pad_axis(t, ax: int, before: int, after: int):
    pad = [0] * (2 * t.ndim)
    pad[2 * ax], pad[2 * ax + 1] = before, after
    return call("pad", t, pad=pad, mode="constant", value=0.0)


def _pad_axis_vjp(g, ax: int, b: int, a: int, mode: str):
    """Gradient of padding one axis by (b, a) in `mode`: the centre plus the border
    gradients sent back to the x elements they copied."""
    n = g.shape[ax] - b - a
    out = _slice_axis(g, ax, b, b + n)
    if mode == "constant":
        return out
    left = _slice_axis(g, ax, 0, b) if b else None
    right = _slice_axis(g, ax, b + n, b + n + a) if a else None
    if mode == "reflect":  # out[i] = x[b - i] on the left, x[n - 2 - j] on the right
        if left is not None:
            out = out + _pad_axis(call("flip", left, axis=[ax]), ax, 1, n - 1 - b)
        if right is not None:
            out = out + _pad_axis(call("flip", right, axis=[ax]), ax, n - 1 - a, 1)
    elif mode == "replicate":
        if left is not None:
            total = call("sum", left, axis=[ax], keepdim=True, dtype=None)
            out = out + _pad_axis(total, ax, 0, n - 1)
        if right is not None:
            total = call("sum", right, axis=[ax], keepdim=True, dtype=None)
            out = out + _pad_axis(total, ax, n - 1, 0)
    else:  # circular: the left border copies x[n - b:], the right one x[:a]
        if left is not None:
            out = out + _pad_axis(left, ax, n - b, 0)
        if right is not None:
            out = out + _pad_axis(right, ax, 0, n - a)
    return out


def crop_box(api: str, shape: tuple, size, offsets) -> tuple:
    """(offsets, out shape) of crop; size -1 runs to the end of the dim."""
    ndim = len(shape)
    size = list(shape) if size is None else [int(s) for s in size]
    offsets = [0] * ndim if offsets is None else [int(o) for o in offsets]
    if len(size) != ndim or len(offsets) != ndim:
        raise ValueError(f"{api}: shape {size} and offsets {offsets} must each have one "
                         f"entry per dim of x (shape {list(shape)})")
    out = []
    for i, (n, s, o) in enumerate(zip(shape, size, offsets)):
        if o < 0:
            raise ValueError(f"{api}: offsets must be non-negative, got {offsets}")
        if s == -1:
            s = -1 if n == -1 else n - o
        if s < -1 or (n != -1 and s != -1 and o + s > n):
            raise ValueError(f"{api}: the box at offsets {offsets} with shape {size} does not "
                             f"fit in x of shape {list(shape)} (dim {i})")
        out.append(s)
    return offsets, tuple(out)


@register
class Crop(OpDef):
    """out = x[offsets[0]:offsets[0]+shape[0], ...]; shape -1 runs to the end of the dim."""

    name = "crop"
    attrs = {"shape": None, "offsets": None}
    check = True

    def infer(self, x, shape=None, offsets=None):
        return x.with_shape(crop_box(self.name, x.shape, shape, offsets)[1])

    def compute(self, xp, x, shape=None, offsets=None):
        offsets, size = crop_box(self.name, x.shape, shape, offsets)
        idx = tuple(slice(o, o + s) for o, s in zip(offsets, size))
        return x[idx].copy()

    def vjp(self, ctx, g):
        offsets, size = crop_box(self.name, tuple(ctx.x.shape), _attr(self, ctx, "shape"),
                                 _attr(self, ctx, "offsets"))
        pad = []
        for n, o, s in zip(ctx.x.shape, offsets, size):
            pad += [o, n - o - s]
        return (call("pad", g, pad=pad, mode="constant", value=0.0),)


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


_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}
_REAL_OF = {v: k for k, v in _COMPLEX_OF.items()}


@register
class AsComplex(OpDef):
    """A float tensor whose last dim is 2 (real, imag) viewed as a complex tensor."""

    name = "as_complex"
    saves = ()
    check = True

    def infer(self, x):
        if x.dtype.name not in _COMPLEX_OF:
            raise TypeError(f"{self.name}: x must be float32 or float64, got {x.dtype.name}")
        if not x.shape or x.shape[-1] not in (2, -1):
            raise ValueError(f"{self.name}: the last dim of x must be 2 (real, imag), got "
                             f"shape {list(x.shape)}")
        return x.with_shape(x.shape[:-1]).with_dtype(_COMPLEX_OF[x.dtype.name])

    def compute(self, xp, x):
        out = xp.empty(x.shape[:-1], dtype=_dt.convert_dtype(_COMPLEX_OF[x.dtype.name]).np)
        out.real = x[..., 0]
        out.imag = x[..., 1]
        return out

    def vjp(self, ctx, g):
        return (call("as_real", g),)


@register
class AsReal(OpDef):
    """A complex tensor as a float tensor with a trailing dim of 2 (real, imag)."""

    name = "as_real"
    saves = ()
    check = True

    def infer(self, x):
        if x.dtype.name not in _REAL_OF:
            raise TypeError(f"{self.name}: x must be complex64 or complex128, got "
                            f"{x.dtype.name}")
        return x.with_shape(x.shape + (2,)).with_dtype(_REAL_OF[x.dtype.name])

    def compute(self, xp, x):
        return xp.stack([x.real, x.imag], axis=-1)

    def vjp(self, ctx, g):
        return (call("as_complex", g),)


@register
class View(OpDef):
    """x's bytes reinterpreted as `dtype`; the last dim scales by the itemsize ratio."""

    name = "view"
    attrs = {"dtype": None}
    check = True

    def infer(self, x, dtype=None):
        new = _dt.convert_dtype(dtype)
        old_size, new_size = x.dtype.np.itemsize, new.np.itemsize
        if old_size == new_size:
            return x.with_dtype(new)
        last = x.shape[-1] if x.shape else None
        if last is None or (last != -1 and (last * old_size) % new_size):
            raise ValueError(f"view: cannot view x of shape {list(x.shape)} and dtype "
                             f"{x.dtype.name} as {new.name}: the last dim times "
                             f"{old_size} bytes must be a multiple of {new_size} bytes")
        size = -1 if last == -1 else last * old_size // new_size
        return x.with_shape(x.shape[:-1] + (size,)).with_dtype(new)

    def compute(self, xp, x, dtype=None):
        return xp.ascontiguousarray(x).view(_dt.convert_dtype(dtype).np)


def _unfold_shape(api: str, shape: tuple, axis: int, size: int, step: int) -> tuple:
    if not shape:
        raise ValueError(f"{api}: x must have at least 1 dim, got a 0-D tensor")
    ax = norm_axis(api, axis, len(shape))
    n = shape[ax]
    if step <= 0:
        raise ValueError(f"{api}: step must be positive, got {step}")
    if size < 1 or (n != -1 and size > n):
        raise ValueError(f"{api}: size {size} must be in [1, {n}] (dim {ax} of x, shape "
                         f"{list(shape)})")
    count = -1 if n == -1 else (n - size) // step + 1
    return ax, tuple(shape[:ax]) + (count,) + tuple(shape[ax + 1:]) + (size,)


@register
class Unfold(OpDef):
    """Windows of length `size` every `step` elements along `axis`: that dim becomes the
    window count and a new last dim of length `size` holds each window."""

    name = "unfold"
    attrs = {"axis": 0, "size": 1, "step": 1}
    check = True

    def infer(self, x, axis=0, size=1, step=1):
        return x.with_shape(_unfold_shape(self.name, x.shape, axis, size, step)[1])

    def compute(self, xp, x, axis=0, size=1, step=1):
        ax, _ = _unfold_shape(self.name, x.shape, axis, size, step)
        windows = xp.lib.stride_tricks.sliding_window_view(x, size, axis=ax)
        idx = [slice(None)] * windows.ndim
        idx[ax] = slice(None, None, step)
        return xp.ascontiguousarray(windows[tuple(idx)])

    def vjp(self, ctx, g):
        # window w, element j of the output came from x[w * step + j]
        ax = _attr(self, ctx, "axis") % ctx.x.ndim
        size, step = _attr(self, ctx, "size"), _attr(self, ctx, "step")
        count = g.shape[ax]
        n = ctx.x.shape[ax]
        total = None
        for j in range(size):
            gj = _slice_axis(g, g.ndim - 1, j, j + 1)
            gj = call("reshape", gj, shape=list(gj.shape[:-1]))
            if step > 1:
                gj = call("unsqueeze", gj, axis=[ax + 1])
                gj = _pad_axis(gj, ax + 1, 0, step - 1)
                gj = call("flatten", gj, start_axis=ax, stop_axis=ax + 1)
                gj = _slice_axis(gj, ax, 0, (count - 1) * step + 1 if count else 0)
            gj = _pad_axis(gj, ax, j, n - j - gj.shape[ax])
            total = gj if total is None else total + gj
        return (total,)


@register
class ShardIndex(OpDef):
    """Map global indices to shard-local ones: x - shard_id * shard_size inside the shard,
    ignore_value elsewhere, where shard_size = ceil(index_num / nshards)."""

    name = "shard_index"
    attrs = {"index_num": 1, "nshards": 1, "shard_id": 0, "ignore_value": -1}
    check = True

    def infer(self, x, index_num=1, nshards=1, shard_id=0, ignore_value=-1):
        if x.dtype.name not in ("int32", "int64"):
            raise TypeError(f"{self.name}: input must be int32 or int64, got {x.dtype.name}")
        if nshards <= 0 or not 0 <= shard_id < nshards:
            raise ValueError(f"{self.name}: shard_id must be in [0, nshards), got shard_id "
                             f"{shard_id} and nshards {nshards}")
        if index_num <= 0:
            raise ValueError(f"{self.name}: index_num must be positive, got {index_num}")
        return x

    def compute(self, xp, x, index_num=1, nshards=1, shard_id=0, ignore_value=-1):
        size = (index_num + nshards - 1) // nshards
        lo = shard_id * size
        inside = (x >= lo) & (x < lo + size)
        return xp.where(inside, x - lo, ignore_value).astype(x.dtype)

"""Operators that move elements within their dims: flip, roll, pad <-> crop (with the
per-axis pad vjp helpers) and unfold (sliding windows).
"""
from __future__ import annotations

import math

from .dispatch import call
from .manipulation import _attr, axis_list
from .opdef import OpDef, norm_axis, register


@register
class Flip(OpDef):
    """Reverse the order of elements along each axis in `axis`."""

    name = "flip"
    attrs = {"axis": None}
    saves = ()

    def onnx(self, b, node):
        axes = axis_list(self.name, node.attrs["axis"], len(node.specs[0].shape))
        if not axes:
            return b.op("Identity", [node.inputs[0]])
        n = len(axes)
        return b.op("Slice", [node.inputs[0], b.ints([-1] * n), b.ints([-2 ** 63] * n),
                              b.ints(axes), b.ints([-1] * n)])

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


def _onnx_roll(b, x: str, axis: int, shift: int, n: int) -> str:
    s = shift % n if n else 0
    if s == 0:
        return x
    return b.op("Concat", [b.slice_axis(x, axis, n - s, n), b.slice_axis(x, axis, 0, n - s)],
                axis=axis)


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

    def onnx(self, b, node):   # per axis: Concat(x[n - s:], x[:n - s]); None rolls the flat x
        spec, x = node.specs[0], node.inputs[0]
        shifts, axes = _roll_args(self.name, node["shifts"], node["axis"], len(spec.shape))
        if axes is None:
            if any(d < 0 for d in spec.shape):
                raise b.Unsupported("roll with axis None of a tensor with unknown dims")
            flat = b.reshape(x, [-1])
            n = math.prod(int(d) for d in spec.shape)
            return b.reshape(_onnx_roll(b, flat, 0, shifts[0], n), list(spec.shape))
        for s, ax in zip(shifts, axes):
            x = _onnx_roll(b, x, ax, s, b.static_dim(spec, ax, "roll"))
        return x if x != node.inputs[0] else b.op("Identity", [x])

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

    def onnx(self, b, node):
        a, x = node.attrs, node.inputs[0]
        pairs = _pad_pairs(self.name, a["pad"], node.specs[0].shape, a["mode"])
        if a["mode"] == "circular":   # ONNX "wrap" is opset 19: concatenate the wrapped slices
            for ax, (lo, hi) in enumerate(pairs):
                parts = [b.op("Slice", [x, b.ints([-lo]), b.ints([2 ** 62]), b.ints([ax])])] \
                    if lo else []
                parts.append(x)
                if hi:
                    parts.append(b.op("Slice", [x, b.ints([0]), b.ints([hi]), b.ints([ax])]))
                x = b.op("Concat", parts, axis=ax) if len(parts) > 1 else x
            return x
        modes = {"constant": "constant", "reflect": "reflect", "replicate": "edge"}
        pads = b.ints([p for p, _ in pairs] + [q for _, q in pairs])
        value = b.scalar(a["value"], node.out_dtype()) if a["mode"] == "constant" else None
        return b.op("Pad", [x, pads, value], mode=modes[a["mode"]])

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

    def onnx(self, b, node):
        offsets, size = crop_box(self.name, node.specs[0].shape, node.attrs["shape"],
                                 node.attrs["offsets"])
        ends = [o + s for o, s in zip(offsets, size)]
        return b.op("Slice", [node.inputs[0], b.ints(offsets), b.ints(ends)])

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

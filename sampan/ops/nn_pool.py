"""Max pooling operators (max_pool1d/2d/3d, adaptive_max_pool1d/2d/3d) with their argmax mask.

Average, adaptive average, Lp pooling and max_unpool are composites in
sampan/nn/functional/pooling.py (convolutions with a constant kernel, matmuls, put_along_axis).
The gradient of max pooling scatters the cotangent to the argmax (put_along_axis: 'assign'
when the windows are disjoint, else 'add'); `_reshape_like` brings it back to the input's
shape when that is known only at run time. max_pool's padding_algorithm ("EXPLICIT", "SAME",
"VALID") is resolved against the input's actual size inside infer/compute/vjp. The window
helpers come from sampan/backend/window.py. Imports `backend` and sibling op modules.
"""
from __future__ import annotations

import math

from ..backend.window import (PADDING_ALGORITHMS, from_channels_first, is_channel_last,
                              join_channels, multi_range, pad_spatial, same_pads,
                              split_channels, to_channels_first, window_view)
from .dispatch import call
from .opdef import OpDef, TensorSpec, register


def pool_out_len(n: int, k: int, s: int, pb: int, pa: int, ceil_mode: bool) -> int:
    """Paddle's pooled length (ceil_mode may add a window that starts in the padding)."""
    if n == -1:
        return -1
    span = n + pb + pa - k
    return (span + s - 1) // s + 1 if ceil_mode else span // s + 1


def adaptive_bounds(n: int, o: int) -> list:
    """[start, end) of each of the o adaptive windows over n elements."""
    return [((i * n) // o, -((-(i + 1) * n) // o)) for i in range(o)]


def _window_positions(xp, out_shape, kidx, starts_fn, in_shape):
    """Flat spatial input index of the chosen window element (-1 outside the input)."""
    nd = len(in_shape)
    flat = 0
    valid = True
    for d in range(nd):
        shape = [1] * (len(out_shape))
        shape[len(out_shape) - nd + d] = out_shape[len(out_shape) - nd + d]
        pos = starts_fn(d).reshape(shape) + kidx[d]
        valid = valid & (pos >= 0) & (pos < in_shape[d])
        flat = flat * in_shape[d] + pos
    return xp.where(valid, flat, -1).astype("int32")


def _lowest(xp, dtype):
    return xp.finfo(dtype).min


def _scatter_grad(g, mask, x, data_format, may_miss: bool, disjoint: bool = False):
    """Sum g into a zero tensor of x's shape at the flat spatial indices `mask` (sampan ops).
    disjoint: no two windows share an input, so the indices are unique and a plain
    assignment replaces the (much slower, ufunc.at) scatter-add."""
    if is_channel_last(data_format):
        nd = g.ndim
        perm = [0, nd - 1] + list(range(1, nd - 1))
        g = call("transpose", g, perm=perm)
        mask = call("transpose", mask, perm=perm)
        x = call("transpose", x, perm=perm)
    g = call("reshape", g, shape=[0, 0, -1])  # [N, C, positions]; dims may be unknown
    mask = call("reshape", mask, shape=[0, 0, -1])
    if may_miss:  # windows entirely in the padding have mask -1 and no input to feed
        hit = call("greater_equal", mask, call("full_like", mask, fill_value=0, dtype=None))
        g = call("where", hit, g, call("full_like", g, fill_value=0.0, dtype=None))
        mask = call("maximum", mask, call("full_like", mask, fill_value=0, dtype=None))
    zeros = call("full_like", call("reshape", x, shape=[0, 0, -1]), fill_value=0.0,
                 dtype=None)
    reduce = "assign" if disjoint and not may_miss else "add"
    gx = call("put_along_axis", zeros, mask, g, axis=2, reduce=reduce, include_self=True,
              broadcast=False)
    if -1 in x.shape[1:]:  # x's shape is known only at run time (a static Program)
        gx = call("_reshape_like", gx, x)
    else:
        gx = call("reshape", gx, shape=[-1, *x.shape[1:]])
    if is_channel_last(data_format):
        nd = gx.ndim
        gx = call("transpose", gx, perm=[0] + list(range(2, nd)) + [1])
    return gx


class _MaxPool(OpDef):
    """Max over windows of kernel_size moved by stride over x padded (with the lowest float)
    by padding ([before, after] per spatial dim); ceil_mode keeps a last partial window.

    mask: int32 flat index into the input's spatial dims of the first maximum of each window
    (-1 for a window entirely in the padding, whose output is the lowest float). The gradient
    goes to that element only (summed where windows overlap on the same maximum).
    """

    def onnx(self, b, node):
        return b.max_pool(node)

    outputs = ("out", "mask")
    saves = ("x", "mask")
    check = True
    nd = 2
    formats = ("NCHW", "NHWC")

    def _attrs(self, given):
        return {**self.attrs, **{k: v for k, v in given.items() if v is not None}}

    def _resolve(self, a: dict, spatial) -> dict:
        """The attrs with padding_algorithm resolved to explicit pads for `spatial`."""
        alg = a.get("padding_algorithm", "EXPLICIT")
        if alg == "SAME":
            return {**a, "padding": same_pads(spatial, a["kernel_size"], a["stride"])}
        if alg == "VALID":
            return {**a, "padding": [0] * (2 * len(spatial))}
        return a

    def _geometry(self, spatial, a):
        return [pool_out_len(n, a["kernel_size"][i], a["stride"][i], a["padding"][2 * i],
                             a["padding"][2 * i + 1], a["ceil_mode"])
                for i, n in enumerate(spatial)]

    def infer(self, x, **given):
        a = self._attrs(given)
        api = self.name
        if a["data_format"] not in self.formats:
            raise ValueError(f"{api}: data_format must be one of {list(self.formats)}, got "
                             f"{a['data_format']!r}")
        if x.ndim != self.nd + 2:
            raise ValueError(f"{api}: x must be a {self.nd + 2}-D tensor, got shape "
                             f"{list(x.shape)}")
        if x.dtype.kind != "f":
            raise TypeError(f"{api}: x must be a floating point tensor, got {x.dtype.name}")
        for arg in ("kernel_size", "stride"):
            if len(a[arg]) != self.nd or any(v <= 0 for v in a[arg]):
                raise ValueError(f"{api}: {arg} must be {self.nd} positive ints, got "
                                 f"{a[arg]}")
        if a["padding_algorithm"] not in PADDING_ALGORITHMS:
            raise ValueError(f"{api}: padding_algorithm must be one of "
                             f"{list(PADDING_ALGORITHMS)}, got {a['padding_algorithm']!r}")
        if a["padding_algorithm"] == "EXPLICIT" and any(p < 0 for p in a["padding"]):
            raise ValueError(f"{api}: padding must be non-negative, got {a['padding']}")
        n, c, spatial = split_channels(x.shape, a["data_format"])
        a = self._resolve(a, spatial)
        out = self._geometry(spatial, a)
        for i in range(self.nd):
            if out[i] != -1 and out[i] <= 0:
                raise ValueError(f"{api}: kernel_size {a['kernel_size']} is larger than the "
                                 f"padded input of spatial shape {list(spatial)}")
        shape = join_channels(n, c, out, a["data_format"])
        return TensorSpec(shape, x.dtype), TensorSpec(shape, "int32")

    def compute(self, xp, x, **given):
        a = self._attrs(given)
        x = to_channels_first(xp, x, a["data_format"])
        a = self._resolve(a, x.shape[2:])
        kernel, stride, pads = a["kernel_size"], a["stride"], list(a["padding"])
        spatial = x.shape[2:]
        out_len = self._geometry(spatial, a)
        for i, (o, k, s) in enumerate(zip(out_len, kernel, stride)):
            extra = (o - 1) * s + k - (spatial[i] + pads[2 * i] + pads[2 * i + 1])
            pads[2 * i + 1] += max(extra, 0)
        if not any(pads) and x.size:
            out, mask = _max_pool_unpadded(xp, x, kernel, stride, out_len)
            fmt = a["data_format"]
            return from_channels_first(xp, out, fmt), from_channels_first(xp, mask, fmt)
        xpad = pad_spatial(xp, x, pads, _lowest(xp, x.dtype))
        win = window_view(xp, xpad, kernel, stride, [1] * len(kernel), out_len)
        out = None
        kflat = None
        for idx, k in enumerate(multi_range(kernel)):
            v = win[(Ellipsis,) + k]
            if out is None:
                out = v.copy()
                kflat = xp.zeros(out.shape, "int32")
                continue
            # branch-free update (much faster than masked assignment): first max wins
            step = xp.greater(v, out).astype("int32")
            step *= idx - kflat
            kflat += step
            xp.maximum(out, v, out=out)
        kidx = list(xp.unravel_index(kflat, tuple(kernel)))

        def starts(d):
            return xp.arange(out_len[d]) * stride[d] - a["padding"][2 * d]
        mask = _window_positions(xp, out.shape, kidx, starts, spatial)
        fmt = a["data_format"]
        return from_channels_first(xp, out, fmt), from_channels_first(xp, mask, fmt)

    def vjp(self, ctx, g, g_mask=None):
        a = {k: getattr(ctx, k, v) for k, v in self.attrs.items()}
        spatial = split_channels(tuple(ctx.x.shape), a["data_format"])[2]
        may_miss = True  # some window may lie entirely in the padding (unknown sizes: maybe)
        if -1 not in spatial:
            a = self._resolve(a, spatial)
            out_len = self._geometry(spatial, a)
            may_miss = any((o - 1) * s >= n + pb or k <= pb
                           for o, s, n, k, pb in zip(out_len, a["stride"], spatial,
                                                     a["kernel_size"], a["padding"][0::2]))
        disjoint = all(k <= s for k, s in zip(a["kernel_size"], a["stride"]))
        return (_scatter_grad(g, ctx.mask, ctx.x, a["data_format"], may_miss, disjoint),)


def _max_pool_unpadded(xp, x, kernel, stride, out_len):
    """Max pooling of channels-first x whose windows all lie inside it: the max by running
    maximum over the kernel offsets, then the first offset that attains it (bool passes:
    still-missing & (v != max), counted), then its flat input index from a small table."""
    win = window_view(xp, x, kernel, stride, [1] * len(kernel), out_len)
    views = [win[(Ellipsis,) + k] for k in multi_range(kernel)]
    if len(views) == 1:
        out, kflat = views[0].copy(), xp.zeros(views[0].shape, "int8")
    else:
        out = xp.maximum(views[0], views[1])
        for v in views[2:]:
            xp.maximum(out, v, out=out)
        # the offset counter in the narrowest int that holds it (it is memory-bound)
        small = "int8" if len(views) <= 127 else "int32"
        miss = xp.not_equal(views[0], out)
        kflat = miss.astype(small)
        hit = xp.empty_like(miss)
        for v in views[1:-1]:
            xp.not_equal(v, out, out=hit)
            miss &= hit
            kflat += miss
    spatial = x.shape[2:]
    steps = [math.prod(spatial[d + 1:]) for d in range(len(spatial))]
    offs = xp.asarray([sum(kk * st for kk, st in zip(k, steps)) for k in multi_range(kernel)],
                      "int32")
    mask = xp.take(offs, kflat)
    base = xp.zeros(tuple(out_len), "int32")
    for d, (o, s, st) in enumerate(zip(out_len, stride, steps)):
        shape = [1] * len(out_len)
        shape[d] = o
        base += (xp.arange(o, dtype="int32") * (s * st)).reshape(shape)
    mask += base
    return out, mask


@register
class MaxPool2D(_MaxPool):
    name = "max_pool2d"
    attrs = {"kernel_size": [1, 1], "stride": [1, 1], "padding": [0, 0, 0, 0],
             "padding_algorithm": "EXPLICIT", "ceil_mode": False, "data_format": "NCHW"}


@register
class MaxPool1D(_MaxPool):
    name = "max_pool1d"
    nd = 1
    formats = ("NCL", "NLC")
    attrs = {"kernel_size": [1], "stride": [1], "padding": [0, 0],
             "padding_algorithm": "EXPLICIT", "ceil_mode": False, "data_format": "NCL"}


@register
class MaxPool3D(_MaxPool):
    name = "max_pool3d"
    nd = 3
    formats = ("NCDHW", "NDHWC")
    attrs = {"kernel_size": [1, 1, 1], "stride": [1, 1, 1], "padding": [0] * 6,
             "padding_algorithm": "EXPLICIT", "ceil_mode": False, "data_format": "NCDHW"}


def windows_max(xp, x, bounds: list):
    """(out, int32 mask) of the max of x [N, C, *spatial] over the windows given per spatial
    dim as [start, end) pairs (non-empty); mask is the flat spatial index of the first
    maximum in row-major window order."""
    spatial = x.shape[2:]
    nd = len(spatial)
    output_size = [len(b) for b in bounds]
    tables = []
    gathered = x
    for d, dim_bounds in enumerate(bounds):
        kmax = max(e - s for s, e in dim_bounds)
        table = xp.asarray([[min(s + k, e - 1) for k in range(kmax)] for s, e in dim_bounds])
        tables.append(table)
        # axis 2 + 2d of `gathered` is this dim: replace it by (o, kmax)
        gathered = xp.take(gathered, table, axis=2 + 2 * d)
    # gathered: (N, C, o0, k0, o1, k1, ...) -> (N, C, o0, o1, ..., k0 * k1 * ...)
    perm = [0, 1] + [2 + 2 * d for d in range(nd)] + [3 + 2 * d for d in range(nd)]
    win = xp.transpose(gathered, perm)
    kshape = [t.shape[1] for t in tables]
    win = win.reshape(win.shape[:2 + nd] + (-1,))
    kflat = xp.argmax(win, axis=-1)
    out = xp.take_along_axis(win, kflat[..., None], axis=-1)[..., 0]
    kidx = list(xp.unravel_index(kflat, tuple(kshape)))
    flat = 0
    for d in range(nd):
        shape = [1] * (2 + nd)
        shape[2 + d] = output_size[d]
        pos = tables[d][xp.arange(output_size[d]).reshape(shape), kidx[d]]
        flat = flat * spatial[d] + pos
    return out, xp.asarray(flat, "int32")


class _AdaptiveMaxPool(OpDef):
    """Max over adaptive windows: window i of a dim of size n spans [floor(i * n / o),
    ceil((i + 1) * n / o)). mask: int32 flat spatial index of the first maximum; the
    gradient goes to it. x is channels-first [N, C, *spatial]."""

    def onnx(self, b, node):
        return b.adaptive_max_pool(node)

    outputs = ("out", "mask")
    saves = ("x", "mask")
    check = True
    nd = 2

    def infer(self, x, output_size=None):
        api = self.name
        if x.ndim != self.nd + 2:
            raise ValueError(f"{api}: x must be a {self.nd + 2}-D tensor, got shape "
                             f"{list(x.shape)}")
        if x.dtype.kind != "f":
            raise TypeError(f"{api}: x must be a floating point tensor, got {x.dtype.name}")
        if output_size is None or len(output_size) != self.nd or any(
                int(o) <= 0 for o in output_size):
            raise ValueError(f"{api}: output_size must be {self.nd} positive ints, got "
                             f"{output_size}")
        shape = tuple(x.shape[:2]) + tuple(output_size)
        return TensorSpec(shape, x.dtype), TensorSpec(shape, "int32")

    def compute(self, xp, x, output_size=None):
        return windows_max(xp, x, [adaptive_bounds(n, o) for n, o in
                                   zip(x.shape[2:], output_size)])

    def vjp(self, ctx, g, g_mask=None):
        disjoint = all(n % o == 0 for n, o in zip(ctx.x.shape[2:], ctx.output_size))
        return (_scatter_grad(g, ctx.mask, ctx.x, "NCHW", False, disjoint),)


@register
class AdaptiveMaxPool2D(_AdaptiveMaxPool):
    name = "adaptive_max_pool2d"
    attrs = {"output_size": None}


@register
class AdaptiveMaxPool1D(_AdaptiveMaxPool):
    name = "adaptive_max_pool1d"
    nd = 1
    attrs = {"output_size": None}


@register
class AdaptiveMaxPool3D(_AdaptiveMaxPool):
    name = "adaptive_max_pool3d"
    nd = 3
    attrs = {"output_size": None}


@register
class ReshapeLike(OpDef):
    """out = x reshaped to the shape of `like`, which is read for its shape only: a reshape
    whose target shape is known only at run time (gradients in static Programs with unknown
    dims). Gradient: the cotangent reshaped like x; none for `like`."""

    name = "_reshape_like"
    inputs = ("x", "like")
    saves = ("x",)
    check = True

    def infer(self, x, like):
        size, want = math.prod(x.shape), math.prod(like.shape)
        if -1 not in x.shape and -1 not in like.shape and size != want:
            raise ValueError(f"{self.name}: cannot reshape x of shape {list(x.shape)} "
                             f"({size} elements) to the shape {list(like.shape)} of like "
                             f"({want} elements)")
        return x.with_shape(like.shape)

    def compute(self, xp, x, like):
        return xp.reshape(x, like.shape)

    def vjp(self, ctx, g):
        return call("_reshape_like", g, ctx.x), None

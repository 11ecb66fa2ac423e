"""Window geometry and copies shared by convolution and pooling kernels (framework-free).

Shape helpers are plain Python (-1 stands for an unknown length); kernels take `xp`-style
arrays, channels first ([N, C, *spatial]). Padding is canonical: [before, after] per spatial
dim, negative values crop. `resolve_pads` turns Paddle's padding algorithm ("SAME", "VALID"
or "EXPLICIT") into explicit pads for the actual spatial size, so an op can keep the
algorithm as an attribute and resolve it at run time. Imports nothing from sampan.
"""
from __future__ import annotations

import math

import numpy as _np

_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")
PADDING_ALGORITHMS = ("EXPLICIT", "SAME", "VALID")


# --- shape helpers (pure Python) ------------------------------------------------------------

def conv_out_len(n: int, k: int, s: int, pb: int, pa: int, d: int) -> int:
    """Output length of a convolution along one dim (-1 when the input length is unknown)."""
    if n == -1:
        return -1
    return (n + pb + pa - d * (k - 1) - 1) // s + 1


def transpose_out_len(n: int, k: int, s: int, pb: int, pa: int, d: int, op: int = 0) -> int:
    if n == -1:
        return -1
    return (n - 1) * s - pb - pa + d * (k - 1) + 1 + op


def is_channel_last(data_format: str) -> bool:
    return data_format in _CHANNEL_LAST


def split_channels(shape, data_format: str) -> tuple:
    """(N, C, spatial tuple) of a shape in `data_format`."""
    if is_channel_last(data_format):
        return shape[0], shape[-1], tuple(shape[1:-1])
    return shape[0], shape[1], tuple(shape[2:])


def join_channels(n, c, spatial, data_format: str) -> tuple:
    if is_channel_last(data_format):
        return (n, *spatial, c)
    return (n, c, *spatial)


def pad_pairs(padding) -> list:
    """[(before, after)] per dim of a flat [b0, a0, b1, a1, ...] padding."""
    return [(padding[2 * i], padding[2 * i + 1]) for i in range(len(padding) // 2)]


def same_pads(spatial, kernel, stride) -> list:
    """Paddle's 'SAME' padding: out = ceil(in / stride), the total split (floor, ceil);
    -1 (unknown) where the input length is unknown."""
    pads = []
    for n, k, s in zip(spatial, kernel, stride):
        if n == -1:
            pads += [-1, -1]
            continue
        out = (n + s - 1) // s
        total = max((out - 1) * s + k - n, 0)
        pads += [total // 2, total - total // 2]
    return pads


def resolve_pads(algorithm: str, padding, spatial, kernel, stride, dilation) -> tuple:
    """(pads, dilation) for a padding algorithm over `spatial`: EXPLICIT keeps `padding`,
    VALID pads nothing, SAME pads to ceil(in / stride) outputs with dilation 1 (as Paddle)."""
    nd = len(kernel)
    if algorithm == "SAME":
        return same_pads(spatial, kernel, stride), [1] * nd
    if algorithm == "VALID":
        return [0] * (2 * nd), list(dilation)
    return list(padding), list(dilation)


def fit_pads(size, out, kernel, stride, pads, dilation) -> list:
    """Pads whose convolution of length `size` yields exactly `out` positions: trailing rows
    that no window uses are cropped (negative after-padding). Unknown lengths stay as given."""
    fitted = list(pads)
    for i, (n, m, k, s, d) in enumerate(zip(size, out, kernel, stride, dilation)):
        have = conv_out_len(n, k, s, pads[2 * i], pads[2 * i + 1], d)
        if -1 not in (have, m) and have > m:
            fitted[2 * i + 1] -= (have - m) * s
    return fitted


def multi_range(dims):
    """Every index tuple of an array of shape `dims`, in row-major order."""
    if not dims:
        yield ()
        return
    for i in range(dims[0]):
        for rest in multi_range(dims[1:]):
            yield (i,) + rest


# --- kernels (xp only) ------------------------------------------------------------------------

def to_channels_first(xp, x, data_format: str):
    if is_channel_last(data_format):
        return xp.moveaxis(x, -1, 1)
    return x


def from_channels_first(xp, x, data_format: str):
    if is_channel_last(data_format):
        return xp.moveaxis(x, 1, -1)
    return x


def pad_spatial(xp, x, pads, value=0.0):
    """Pad (positive) or crop (negative) the spatial dims (2..) of a channels-first array."""
    pairs = pad_pairs(pads)
    if any(b < 0 or a < 0 for b, a in pairs):
        x = x[(slice(None), slice(None)) + tuple(
            slice(max(-b, 0), n - max(-a, 0)) for (b, a), n in zip(pairs, x.shape[2:]))]
    if any(b > 0 or a > 0 for b, a in pairs):
        width = [(0, 0), (0, 0)] + [(max(b, 0), max(a, 0)) for b, a in pairs]
        x = xp.pad(x, width, mode="constant", constant_values=value)
    return x


def window_view(xp, x, kernel, stride, dilation, out_len):
    """Read-only view (N, C, *out, *kernel) of the windows of a channels-first array."""
    st = x.strides
    shape = tuple(x.shape[:2]) + tuple(out_len) + tuple(kernel)
    strides = (st[0], st[1]) + tuple(a * s for a, s in zip(st[2:], stride)) + tuple(
        a * d for a, d in zip(st[2:], dilation))
    if x.__class__ is not _np.ndarray:  # CuPy's as_strided has no writeable flag
        return xp.lib.stride_tricks.as_strided(x, shape, strides)
    return xp.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)


def im2col_array(xp, x, kernel, stride, pads, dilation):
    """Channels-first x -> contiguous columns (N, C, *kernel, *out)."""
    nd = len(kernel)
    x = pad_spatial(xp, x, pads)
    out_len = [conv_out_len(n, k, s, 0, 0, d)
               for n, k, s, d in zip(x.shape[2:], kernel, stride, dilation)]
    if min(out_len) <= 0:
        return xp.zeros(tuple(x.shape[:2]) + tuple(kernel) + tuple(max(o, 0) for o in out_len),
                        x.dtype)
    win = window_view(xp, x, kernel, stride, dilation, out_len)
    perm = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    return xp.ascontiguousarray(xp.transpose(win, perm))


def col2im_array(xp, cols, size, stride, pads, dilation):
    """Adjoint of im2col_array: columns (N, C, *kernel, *inp) summed into (N, C, *size)."""
    nd = len(size)
    kernel = cols.shape[2:2 + nd]
    inp = cols.shape[2 + nd:]
    extent = [(i - 1) * s + (k - 1) * d + 1 if i > 0 and k > 0 else 0
              for i, k, s, d in zip(inp, kernel, stride, dilation)]
    buf = xp.zeros(tuple(cols.shape[:2]) + tuple(extent), cols.dtype)
    if buf.size:
        lead = (slice(None), slice(None))
        if math.prod(kernel) <= math.prod(inp):
            for k in multi_range(kernel):
                dst = tuple(slice(kk * d, kk * d + (i - 1) * s + 1, s)
                            for kk, i, s, d in zip(k, inp, stride, dilation))
                buf[lead + dst] += cols[lead + k]
        else:
            for p in multi_range(inp):
                dst = tuple(slice(pp * s, pp * s + (k - 1) * d + 1, d)
                            for pp, k, s, d in zip(p, kernel, stride, dilation))
                buf[lead + dst] += cols[lead + (Ellipsis,) + p]
    # buf holds padded coordinates [0, extent); out[o] = buf[o + pad_before]
    crop = []
    for (b, _), n, e in zip(pad_pairs(pads), size, extent):
        crop += [-b, (n + b) - e]
    return pad_spatial(xp, buf, crop)



"""The flat layout of stride-1 convolutions (framework-free, channels first).

With the padded spatial dims flattened (row-major, a zero tail appended), the window offset
k of a stride-1 convolution is a constant shift of the flat index: the input rows that
offset k needs are one contiguous slice buf[:, :, off_k : off_k + L]. backend/conv.py's
shifted GEMMs and backend/conv_depthwise.py's multiply-adds read x through this layout;
positions computed in the padding columns are cropped at the end. Imports only `backend`.
"""
from __future__ import annotations

import functools
import math

from .window import multi_range, pad_pairs, pad_spatial


class _FlatGeometry:
    """Offsets and lengths of a stride-1 window layout over padded spatial dims."""

    def __init__(self, padded, kernel, dilation):
        nd = len(padded)
        self.padded = list(padded)
        self.steps = [math.prod(padded[i + 1:]) for i in range(nd)]
        self.out_len = [p - d * (k - 1) for p, k, d in zip(padded, kernel, dilation)]
        self.tail = sum((k - 1) * d * st for k, d, st in
                        zip(kernel[1:], dilation[1:], self.steps[1:]))
        self.total = math.prod(padded) + self.tail
        self.length = self.out_len[0] * self.steps[0]  # flat positions computed per offset

    def offsets(self, kernel, dilation):
        return [sum(kk * d * st for kk, d, st in zip(k, dilation, self.steps))
                for k in multi_range(kernel)]

    def crop(self, flat):
        """(A, B, length) flat results -> a (A, B, *out_len) view."""
        full = flat.reshape(tuple(flat.shape[:2]) + (self.out_len[0],) + tuple(self.padded[1:]))
        return full[(Ellipsis,) + tuple(slice(0, o) for o in self.out_len[1:])]

    def embed(self, xp, y):
        """(A, B, *out_len) -> (A, B, length) zero-filled at the padding columns."""
        a, b = y.shape[:2]
        if self.out_len[1:] == self.padded[1:]:
            return y.reshape(a, b, self.length)
        buf = xp.zeros((a, b, self.out_len[0]) + tuple(self.padded[1:]), y.dtype)
        buf[(Ellipsis,) + tuple(slice(0, o) for o in self.out_len[1:])] = y
        return buf.reshape(a, b, self.length)


@functools.lru_cache(maxsize=256)
def _flat_layout(padded: tuple, kernel: tuple, dilation: tuple, stack: bool):
    """(geometry, GEMM offsets) of a stride-1 layout; cached because small convolutions
    (batch-1 inference) rebuild the same few layouts on every call."""
    geo = _FlatGeometry(padded, kernel, dilation)
    rest = kernel[:-1] if stack else kernel
    return geo, tuple(geo.offsets(rest, dilation[:len(rest)]))


class _ShiftPlan:
    """The flat layout of x (negative pads cropped) for a stride-1 conv with `kernel`: flat
    padded sample chunks (optionally stacked over the last kernel dim) and the GEMM offsets."""

    def __init__(self, xp, x, pads, kernel, dilation, mode):
        crop = [min(p, 0) for p in pads]
        self.x = pad_spatial(xp, x, crop) if any(crop) else x
        self.pos = pad_pairs([max(p, 0) for p in pads])
        padded = tuple(m + b + a for m, (b, a) in zip(self.x.shape[2:], self.pos))
        self.geo, self.offsets = _flat_layout(padded, tuple(kernel), tuple(dilation),
                                              mode == "stack")
        self.stack = (kernel[-1], dilation[-1]) if mode == "stack" else None
        self.depth = x.shape[1] * (kernel[-1] if self.stack else 1)

    def source(self, xp, a, b):
        """(b - a, depth, span) flat padded samples a..b, shifted copies stacked if asked."""
        x = self.x[a:b]
        n, c = x.shape[:2]
        geo = self.geo
        buf = xp.zeros((n, c, geo.total), x.dtype)
        inner = tuple(slice(p, p + m) for (p, _), m in zip(self.pos, x.shape[2:]))
        buf[:, :, :math.prod(geo.padded)].reshape((n, c) + tuple(geo.padded))[
            (Ellipsis,) + inner] = x
        if self.stack is None:
            return buf
        k_last, d_last = self.stack
        span = geo.total - (k_last - 1) * d_last
        cols = xp.empty((n, k_last, c, span), x.dtype)
        for j in range(k_last):
            cols[:, j] = buf[:, :, j * d_last:j * d_last + span]
        return cols.reshape(n, k_last * c, span)

    def stacked(self, xp, src, depth_major: bool = False):
        """(n, K * depth, length): the GEMM operand of every offset stacked over depth,
        rows ordered (offset, depth), or (depth, offset) with `depth_major` (the order of a
        weight (O, C, *K) as it is, when depth is the channels)."""
        n, length = src.shape[0], self.geo.length
        kp = len(self.offsets)
        cols = xp.empty((n, self.depth, kp, length) if depth_major else
                        (n, kp, self.depth, length), src.dtype)
        dst = cols.swapaxes(1, 2) if depth_major else cols
        for k, off in enumerate(self.offsets):
            dst[:, k] = src[:, :, off:off + length]
        return cols.reshape(n, -1, length)

    def stacked_bytes(self, n: int, itemsize: int) -> int:
        return n * itemsize * len(self.offsets) * self.depth * self.geo.length

    def sample_bytes(self, o: int, itemsize: int) -> int:
        return itemsize * (self.depth * self.geo.total + 2 * o * self.geo.length)

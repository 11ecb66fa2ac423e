"""Depthwise stride-1 convolution kernels over the flat layout (framework-free, channels first).

A depthwise convolution (groups = in channels = out channels) has no channel sum, so no GEMM:
it is a multiply-add per kernel offset. Over backend/conv_flat.py's flat padded layout each
offset reads one contiguous slice per (sample, channel) row, so the multiply-adds stream long
contiguous rows (a strided window view runs NumPy's inner loops over one output row at a
time). The weight gradient is one row-wise dot product per offset (einsum). backend/conv.py
chooses these kernels and their batch chunks (run on the kernel thread pool; chunks depend on
the shapes only, so results are bitwise the same for any thread count). Imports only
`backend`.
"""
from __future__ import annotations

from .conv_flat import _ShiftPlan
from .threads import run_parts


def depthwise_shift_conv(xp, x, w, pads, dilation, chunks, split=False):
    """Stride-1 depthwise convolution of x (N, C, *S) with w (C, 1, *K) -> (N, C, *out)."""
    n, c = x.shape[:2]
    plan = _ShiftPlan(xp, x, pads, tuple(w.shape[2:]), dilation, "shift")
    length = plan.geo.length
    wk = w.reshape(c, -1)
    out = xp.empty((n, c) + tuple(plan.geo.out_len), x.dtype)

    def part(ab):
        a, b = ab
        src = plan.source(xp, a, b)
        acc = xp.empty((b - a, c, length), x.dtype)
        tmp = xp.empty_like(acc)
        for i, off in enumerate(plan.offsets):
            xp.multiply(src[:, :, off:off + length], wk[:, i:i + 1], out=tmp if i else acc)
            if i:
                acc += tmp
        out[a:b] = plan.geo.crop(acc)
    run_parts(part, chunks, split)
    return out


def depthwise_shift_weight(xp, x, g, kernel, pads, dilation, chunks, split=False):
    """Stride-1 depthwise weight gradient: (C, 1, *kernel) from x (N, C, *S), g (N, C, *out)."""
    c = x.shape[1]
    kernel = tuple(kernel)
    plan = _ShiftPlan(xp, x, pads, kernel, dilation, "shift")
    length = plan.geo.length

    def part(ab):
        a, b = ab
        src = plan.source(xp, a, b)
        gflat = plan.geo.embed(xp, g[a:b])
        res = xp.empty((len(plan.offsets), c), x.dtype)
        for i, off in enumerate(plan.offsets):
            res[i] = xp.einsum("ncl,ncl->c", gflat, src[:, :, off:off + length])
        return res
    parts = run_parts(part, chunks, split)
    res = parts[0]
    for p in parts[1:]:
        res += p
    return xp.ascontiguousarray(res.T).reshape((c, 1) + kernel)

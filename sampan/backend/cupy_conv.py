"""GPU-shaped convolution kernels: im2col by one strided view + one copy, then ONE GEMM.

backend/conv.py's kernels are shaped for a CPU (per-sample chunks, one small GEMM per kernel
offset, host loops); on a GPU each of those pieces is a kernel launch. These kernels do the
same arithmetic in a few big calls: the padded input's windows are one strided view, copied
once into a column matrix laid out (C, *kernel, N, *out), and one (grouped: batched) GEMM
multiplies it with the weights. The transposed convolution is one GEMM followed by col2im as
one strided add per kernel offset. Batches are cut into chunks only when the column matrix
would pass `COLS_BYTES`.

The functions are `xp`-generic (NumPy, CuPy, the test-only fake device); `kernels_for(xp)`
binds them to a backend as its `conv_kernels` (backend/conv.py's `_own` hook), with the
signatures of conv.py's conv_array, conv_transpose_array and weight_corr_array minus `xp`.
Semantics are those of backend/conv.py: channels first, pads [before, after] per spatial dim
(negative crops). Imports only `backend.window`.
"""
from __future__ import annotations

import math
from types import SimpleNamespace

from .window import conv_out_len, multi_range, pad_pairs, window_view

#: the largest column matrix (bytes) built at once; bigger batches run in chunks
COLS_BYTES = 512 << 20


def _chunks(n: int, per_sample: int) -> list:
    """Batch ranges whose column matrices stay under COLS_BYTES (at least one sample each)."""
    step = max(1, min(n, COLS_BYTES // max(per_sample, 1)))
    return [(a, min(a + step, n)) for a in range(0, n, step)]


def _pad(xp, x, pads):
    """Spatial dims (2..) of x padded with zeros (positive pads) or cropped (negative): a
    zero buffer and one copy (a GPU pad routine launches a kernel per side and axis)."""
    pairs = pad_pairs(pads)
    if any(b < 0 or a < 0 for b, a in pairs):
        x = x[(slice(None), slice(None)) + tuple(
            slice(max(-b, 0), n - max(-a, 0)) for (b, a), n in zip(pairs, x.shape[2:]))]
    if not any(b > 0 or a > 0 for b, a in pairs):
        return x
    shape = tuple(x.shape[:2]) + tuple(n + max(b, 0) + max(a, 0)
                                       for (b, a), n in zip(pairs, x.shape[2:]))
    buf = xp.zeros(shape, x.dtype)
    buf[(slice(None), slice(None)) + tuple(slice(max(b, 0), max(b, 0) + n) for (b, _), n
                                           in zip(pairs, x.shape[2:]))] = x
    return buf


def _columns(xp, xpad, kernel, stride, dilation, out_len, groups: int):
    """The windows of padded xpad (m, C, *S) as a contiguous (groups, C/g * K, m * P)
    matrix: one strided view, one copy."""
    m, c = xpad.shape[:2]
    nd = len(kernel)
    win = window_view(xp, xpad, kernel, stride, dilation, out_len)  # (m, C, *out, *K)
    perm = (1,) + tuple(range(2 + nd, 2 + 2 * nd)) + (0,) + tuple(range(2, 2 + nd))
    cols = xp.ascontiguousarray(xp.transpose(win, perm))
    return cols.reshape(groups, c // groups * math.prod(kernel), m * math.prod(out_len))


def conv_array(xp, x, w, stride, pads, dilation, groups):
    """Channels-first N-d convolution of x (N, C, *S) with w (O, C/g, *K) -> (N, O, *out)."""
    n = x.shape[0]
    o, cg = w.shape[:2]
    kernel = tuple(w.shape[2:])
    xpad = _pad(xp, x, pads)
    out_len = [conv_out_len(m, k, s, 0, 0, d)
               for m, k, s, d in zip(xpad.shape[2:], kernel, stride, dilation)]
    shape = (n, o) + tuple(max(v, 0) for v in out_len)
    if min(out_len, default=1) <= 0 or x.size == 0 or w.size == 0:
        return xp.zeros(shape, x.dtype)
    p = math.prod(out_len)
    wm = w.reshape(groups, o // groups, cg * math.prod(kernel))
    chunks = _chunks(n, x.itemsize * cg * groups * math.prod(kernel) * p)
    out = xp.empty((n, o, p), x.dtype) if len(chunks) > 1 else None
    for a, b in chunks:
        cols = _columns(xp, xpad[a:b], kernel, stride, dilation, out_len, groups)
        if groups == 1:
            res = xp.matmul(wm[0], cols[0])                       # (O, m * P)
        else:
            res = xp.matmul(wm, cols)                              # (G, O/g, m * P)
        res = xp.swapaxes(res.reshape(o, b - a, p), 0, 1)
        if out is None:
            return xp.ascontiguousarray(res).reshape(shape)
        out[a:b] = res
    return out.reshape(shape)


def weight_corr_array(xp, x, g, kernel, stride, pads, dilation, groups):
    """The weight gradient: (A, C/g, *kernel) = sum over samples and positions of
    g (N, A, *out) times the windows of x (N, C, *S)."""
    n, c = x.shape[:2]
    a_ch = g.shape[1]
    kernel = tuple(kernel)
    out_len = tuple(g.shape[2:])
    p = math.prod(out_len)
    shape = (a_ch, c // groups) + kernel
    if x.size == 0 or g.size == 0:
        return xp.zeros(shape, x.dtype)
    xpad = _pad(xp, x, pads)
    acc = None
    for a, b in _chunks(n, x.itemsize * c * math.prod(kernel) * p):
        cols = _columns(xp, xpad[a:b], kernel, stride, dilation, out_len, groups)
        gm = xp.ascontiguousarray(xp.swapaxes(g[a:b].reshape(b - a, a_ch, p), 0, 1))
        if groups == 1:   # a 2-d GEMM reads the transposed columns without a copy
            part = xp.matmul(gm.reshape(a_ch, (b - a) * p), cols[0].T)[None]
        else:
            part = xp.matmul(gm.reshape(groups, a_ch // groups, (b - a) * p),
                             xp.swapaxes(cols, 1, 2))              # (G, A/g, C/g * K)
        acc = part if acc is None else acc + part
    return acc.reshape(shape)


def conv_transpose_array(xp, x, w, size, stride, pads, dilation, groups):
    """Channels-first transposed convolution: x (N, Cin, *I), w (Cin, O/g, *K) ->
    (N, O, *size): one GEMM to columns, then col2im by one strided add per kernel offset."""
    n, cin = x.shape[:2]
    og = w.shape[1]
    kernel = tuple(w.shape[2:])
    inp = tuple(x.shape[2:])
    cg = cin // groups
    ip, kp = math.prod(inp), math.prod(kernel)
    if x.size == 0 or w.size == 0:
        return xp.zeros((n, groups * og) + tuple(size), x.dtype)
    wt = xp.swapaxes(w.reshape(groups, cg, og * kp), 1, 2)         # (G, Og * K, Cg)
    parts = []
    for a, b in _chunks(n, x.itemsize * groups * og * kp * ip):
        xm = xp.ascontiguousarray(xp.swapaxes(x[a:b].reshape(b - a, cin, ip), 0, 1))
        cols = xp.matmul(wt, xm.reshape(groups, cg, (b - a) * ip))  # (G, Og * K, m * I)
        cols = cols.reshape((groups * og,) + kernel + (b - a,) + inp)
        parts.append(_col2im(xp, cols, size, stride, pads, dilation))
    out = parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=1)
    return xp.ascontiguousarray(xp.swapaxes(out, 0, 1))


def _col2im(xp, cols, size, stride, pads, dilation):
    """Columns (C, *K, m, *I) summed into (C, m, *size): one strided add per kernel offset."""
    nd = len(size)
    kernel = cols.shape[1:1 + nd]
    m = cols.shape[1 + nd]
    inp = cols.shape[2 + nd:]
    extent = [(i - 1) * s + (k - 1) * d + 1 for i, k, s, d in zip(inp, kernel, stride, dilation)]
    buf = xp.zeros((cols.shape[0], m) + tuple(extent), cols.dtype)
    lead = (slice(None), slice(None))
    for k in multi_range(kernel):
        dst = tuple(slice(kk * d, kk * d + (i - 1) * s + 1, s)
                    for kk, i, s, d in zip(k, inp, stride, dilation))
        buf[lead + dst] += cols[(slice(None),) + k]
    crop = []   # buf holds padded coordinates [0, extent); out[o] = buf[o + pad_before]
    for (before, _), want, e in zip(pad_pairs(pads), size, extent):
        crop += [-before, (want + before) - e]
    return _pad(xp, buf, crop)


def kernels_for(xp) -> SimpleNamespace:
    """These kernels bound to backend `xp`, as backend/conv.py's `xp.conv_kernels` hook."""
    return SimpleNamespace(
        conv_array=lambda x, w, stride, pads, dilation, groups:
            conv_array(xp, x, w, stride, pads, dilation, groups),
        conv_transpose_array=lambda x, w, size, stride, pads, dilation, groups:
            conv_transpose_array(xp, x, w, size, stride, pads, dilation, groups),
        weight_corr_array=lambda x, g, kernel, stride, pads, dilation, groups:
            weight_corr_array(xp, x, g, kernel, stride, pads, dilation, groups))

"""Convolution kernels (framework-free, `xp`-style arrays, channels first).

One N-d kernel serves every rank: stride-1 ungrouped convolutions with enough channels are
sums of shifted GEMMs over the flattened padded input (backend/conv_flat.py; no im2col
copy); pointwise (1x1) ones are plain GEMMs on the (strided) input; depthwise stride-1 ones
multiply-add contiguous slices of the same flat layout (backend/conv_depthwise.py); the
others im2col through a strided window view copied once, then a batched BLAS matmul. The
weight gradient (`weight_corr_array`) has the same strategies. The transposed convolution
is a matmul followed by col2im (strided adds over the kernel or the input positions,
whichever are fewer), at stride 1 a convolution with the flipped kernel, and at larger
strides (batch >= 4) one stride-1 convolution per output phase. Single-sample forward
convolutions (batch-1 inference) run through backend/conv_small.py (per-thread scratch
buffers, one GEMM); other small stride-1 ones stack every offset's slice into one GEMM. Padding
is explicit [before, after] per spatial dim (negative crops). Big enough convolutions run
their batch chunks on the kernel thread pool (backend/threads.py). Imports only `backend`.
"""
from __future__ import annotations

import math

from .conv_flat import _FlatGeometry, _ShiftPlan, _flat_layout  # noqa: F401 (tests use them)
from .conv_depthwise import depthwise_shift_conv, depthwise_shift_weight
from .conv_small import small_conv2d
from .threads import run_parts
from .window import (conv_out_len, col2im_array, im2col_array, multi_range, pad_spatial,
                     pad_pairs, window_view)

# --- stride-1 convolutions as shifted GEMMs ----------------------------------------------------
# With the padded spatial dims flattened (row-major, a zero tail appended), the window offset
# k of a stride-1 convolution is a constant shift of the flat index: the input rows that
# offset k needs are one contiguous slice buf[:, :, off_k : off_k + L]. So the convolution is
# a sum over offsets of plain GEMMs on slices (no im2col copy); positions computed in the
# padding columns of the flat layout are cropped at the end. The GEMM depth is C; for few
# channels the shifts of the last kernel dim are stacked first (depth C * k_last).

_SHIFT_DEPTH = 16  # below this GEMM depth (channels) per-offset GEMMs lose to im2col


def _own(xp, name: str):
    """The backend's own kernel `name`, if it supplies one (`xp.conv_kernels`, e.g. the GPU's
    GEMM-shaped convolutions); None means the kernels below serve it."""
    kernels = getattr(xp, "conv_kernels", None)
    return None if kernels is None else getattr(kernels, name, None)


def shift_mode(c: int, kernel, stride, groups: int) -> str:
    """'shift' (one GEMM per kernel offset), 'stack' (the last kernel dim stacked into the
    GEMM depth) or 'im2col' for a convolution over c input channels."""
    if groups != 1 or any(s != 1 for s in stride) or not kernel:
        return "im2col"
    if c >= _SHIFT_DEPTH:
        return "shift"
    if c * kernel[-1] >= 24 and math.prod(kernel) > kernel[-1]:
        return "stack"
    return "im2col"


_CHUNK_BYTES = 1 << 20  # per batch chunk: keeps the GEMM operands and sums in the L2 cache

# --- batch chunks on worker threads ------------------------------------------------------------
# The GEMMs of these convolutions are too small for BLAS's own threading to pay off, so big
# enough convolutions run their batch chunks on the kernel thread pool (backend/threads.py:
# NumPy releases the GIL in matmul and copies; BLAS is pinned to one thread meanwhile).
# Chunks depend on the shapes only, never on the thread count, and weight-gradient partial
# sums are added in chunk order, so results are bitwise the same with any number of threads.
# Work below _PAR_FLOPS multiply-adds (about 1 ms) stays in one piece on the calling thread:
# the hand-offs cost more than they save on small convolutions (LeNet, batch-1 inference).

_PAR_FLOPS = 20_000_000
_COPY_CHUNK_BYTES = 4 << 20  # im2col / col2im chunks: fewer, bigger (those copies stream)


def _split_batch(n: int, flops: int) -> bool:
    """Whether a convolution of n samples and `flops` multiply-adds is cut into >= 2 chunks."""
    return n >= 2 and flops >= _PAR_FLOPS


def _batch_chunks(n: int, per_sample: int, split: bool = False, limit: int = 0) -> list:
    """Near-equal batch ranges of about `limit` (default _CHUNK_BYTES) bytes each; with
    `split` an even count >= 2 (so that two workers share them evenly)."""
    step = max(1, min(n, (limit or _CHUNK_BYTES) // max(per_sample, 1)))
    k = -(-n // step) if n else 1
    if split:
        k = min(n, max(2, k + k % 2))
    return [(n * i // k, n * (i + 1) // k) for i in range(k)]


_DEPTHWISE_CHUNK_BYTES = 2 << 20  # a few samples per chunk: per-call overheads vs cache


def _depthwise_chunks(x, kernel, split: bool) -> list:
    """Batch chunks of a depthwise stride-1 kernel (about 3 flat copies of x per sample)."""
    per_sample = 3 * x.itemsize * x.shape[1] * math.prod(
        m + k for m, k in zip(x.shape[2:], kernel))
    return _batch_chunks(x.shape[0], per_sample, split, _DEPTHWISE_CHUNK_BYTES)


def _sum_in_order(parts):
    """parts[0] + parts[1] + ... accumulated left to right into parts[0]."""
    out = parts[0]
    for p in parts[1:]:
        out += p
    return out


def shift_conv_array(xp, x, w, pads, dilation, mode, split=False):
    """Channels-first stride-1 convolution of x (N, C, *S) with w (O, C, *K), groups 1."""
    n, c = x.shape[:2]
    o = w.shape[0]
    kernel = tuple(w.shape[2:])
    plan = _ShiftPlan(xp, x, pads, kernel, dilation, mode)
    length = plan.geo.length
    out = xp.empty((n, o) + tuple(plan.geo.out_len), x.dtype)
    small = not split and plan.stacked_bytes(n, x.itemsize) <= _CHUNK_BYTES
    if small and not plan.stack:
        # small work (batch-1 inference): all offsets stacked into the GEMM depth, one GEMM;
        # the per-offset GEMM calls and partial-sum adds cost more than the copies here.
        # Rows ordered (channel, offset): the weight is used as it is (no transposed copy)
        cols = plan.stacked(xp, plan.source(xp, 0, n), depth_major=True)
        out[...] = plan.geo.crop(xp.matmul(w.reshape(o, -1), cols))
        return out
    if plan.stack:
        mats = xp.transpose(w.reshape(o, c, -1, kernel[-1]), (2, 0, 3, 1))
        mats = xp.ascontiguousarray(mats).reshape(-1, o, kernel[-1] * c)
    else:
        mats = xp.ascontiguousarray(xp.transpose(w.reshape(o, c, -1), (2, 0, 1)))
    if small:
        wk = xp.ascontiguousarray(xp.swapaxes(mats, 0, 1)).reshape(o, -1)
        out[...] = plan.geo.crop(xp.matmul(wk, plan.stacked(xp, plan.source(xp, 0, n))))
        return out

    def chunk(ab):
        a, b = ab
        src = plan.source(xp, a, b)
        acc = xp.matmul(mats[0], src[:, :, plan.offsets[0]:plan.offsets[0] + length])
        tmp = xp.empty_like(acc)
        for mat, off in zip(mats[1:], plan.offsets[1:]):
            xp.matmul(mat, src[:, :, off:off + length], out=tmp)
            acc += tmp
        out[a:b] = plan.geo.crop(acc)
    run_parts(chunk, _batch_chunks(n, plan.sample_bytes(o, x.itemsize), split), split)
    return out


def shift_weight_array(xp, x, g, kernel, pads, dilation, mode, split=False):
    """sum over n and positions of g (N, O, *out) times the windows of x (N, C, *S) at each
    kernel offset: (O, C, *kernel), for stride 1 and groups 1 (the weight gradient)."""
    n, c = x.shape[:2]
    o = g.shape[1]
    kernel = tuple(kernel)
    plan = _ShiftPlan(xp, x, pads, kernel, dilation, mode)
    length = plan.geo.length

    def chunk(ab):
        a, b = ab
        src = plan.source(xp, a, b)
        gflat = plan.geo.embed(xp, g[a:b])
        part = xp.empty((len(plan.offsets), o, plan.depth), x.dtype)
        for r, off in enumerate(plan.offsets):
            cols = xp.swapaxes(src[:, :, off:off + length], 1, 2)
            xp.sum(xp.matmul(gflat, cols), axis=0, out=part[r])
        return part
    res = _sum_in_order(run_parts(chunk, _batch_chunks(
        n, plan.sample_bytes(o, x.itemsize), split), split))
    # res[r, o, (j, c)] -> (O, C, *rest, k_last)
    kl = kernel[-1] if plan.stack else 1
    res = res.reshape((len(plan.offsets), o, kl, c))
    return xp.ascontiguousarray(xp.transpose(res, (1, 3, 0, 2))).reshape((o, c) + kernel)


# --- pointwise (1x1) convolutions: plain GEMMs on the (strided) input -------------------------
# A kernel of ones with no before-padding reads x at multiples of the stride only: the
# convolution is one batched GEMM on x itself (a strided view, copied only when strided), its
# input gradient the transposed GEMM written into those positions, its weight gradient the
# per-sample GEMMs summed. No padding buffer, no flat layout.


def _pointwise(kernel, pads, groups: int) -> bool:
    return (groups == 1 and all(k == 1 for k in kernel) and not any(pads[0::2])
            and all(p <= 0 for p in pads[1::2]))


def _strided(x, stride, out_len):
    """The positions of channels-first x that a pointwise convolution reads: (n, C, *out)."""
    return x[(slice(None), slice(None)) + tuple(slice(0, (o - 1) * s + 1, s)
                                               for o, s in zip(out_len, stride))]


def _flat_samples(xp, x):
    n, c = x.shape[:2]
    return xp.ascontiguousarray(x).reshape(n, c, -1)


def _chunked(xp, fn, n: int, per_sample: int, split: bool) -> list:
    return run_parts(fn, _batch_chunks(n, per_sample, split, _COPY_CHUNK_BYTES), split)


def pointwise_conv_array(xp, x, w, stride, out_len, split=False):
    n = x.shape[0]
    o = w.shape[0]
    w2 = w.reshape(o, -1)
    xs = _strided(x, stride, out_len)
    parts = _chunked(xp, lambda ab: xp.matmul(w2, _flat_samples(xp, xs[ab[0]:ab[1]])), n,
                     x.itemsize * (x.shape[1] + o) * math.prod(out_len), split)
    out = parts[0] if len(parts) == 1 else xp.concatenate(parts, axis=0)
    return out.reshape((n, o) + tuple(out_len))


def pointwise_transpose_array(xp, x, w, size, stride, split=False):
    n, cin = x.shape[:2]
    o = w.shape[1]
    inp = tuple(x.shape[2:])
    wt = w.reshape(cin, o).T
    dense = tuple(size) == inp
    out = (xp.empty if dense else xp.zeros)((n, o) + tuple(size), x.dtype)
    dst = out if dense else _strided(out, stride, inp)

    def part(ab):
        dst[ab[0]:ab[1]] = xp.matmul(wt, x[ab[0]:ab[1]].reshape(ab[1] - ab[0], cin, -1)
                                     ).reshape((ab[1] - ab[0], o) + inp)
    _chunked(xp, part, n, x.itemsize * (cin + o) * math.prod(inp), split)
    return out


def pointwise_weight_array(xp, x, g, stride, split=False):
    n, c = x.shape[:2]
    o = g.shape[1]
    out_len = tuple(g.shape[2:])
    xs = _strided(x, stride, out_len)

    def part(ab):
        cols = xp.swapaxes(_flat_samples(xp, xs[ab[0]:ab[1]]), 1, 2)
        return xp.matmul(g[ab[0]:ab[1]].reshape(ab[1] - ab[0], o, -1), cols).sum(axis=0)
    parts = _chunked(xp, part, n, x.itemsize * (c + o) * math.prod(out_len), split)
    return _sum_in_order(parts).reshape((o, c) + (1,) * len(out_len))


def conv_array(xp, x, w, stride, pads, dilation, groups):
    """Channels-first N-d convolution (cross-correlation) of x (N, C, *S) with w (O, C/g, *K)."""
    own = _own(xp, "conv_array")
    if own is not None:
        return own(x, w, stride, pads, dilation, groups)
    n, c = x.shape[:2]
    if n == 1 and groups == 1 and x.ndim == 4 and x.size and w.size:
        out = small_conv2d(x, w, stride, pads, dilation)
        if out is not None:
            return out
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    kp = math.prod(kernel)
    out_len = [conv_out_len(m, k, s, pb, pa, d) for m, k, s, (pb, pa), d in
               zip(x.shape[2:], kernel, stride, pad_pairs(pads), dilation)]
    split = _split_batch(n, n * o * cg * kp * math.prod(out_len))
    if _pointwise(kernel, pads, groups) and x.size and w.size and min(out_len) > 0:
        return pointwise_conv_array(xp, x, w, stride, out_len, split)
    mode = shift_mode(c, kernel, stride, groups)
    if mode != "im2col" and x.size and w.size:
        return shift_conv_array(xp, x, w, pads, dilation, mode, split)
    depthwise = cg == 1 and o == groups and c == groups
    if depthwise and all(s == 1 for s in stride) and x.size and w.size:
        return depthwise_shift_conv(xp, x, w, pads, dilation, _depthwise_chunks(
            x, w.shape[2:], split), split)
    if depthwise:  # strided: multiply-adds over the kernel on the window view
        xpad = pad_spatial(xp, x, pads)
        out_len = [conv_out_len(m, k, s, 0, 0, d)
                   for m, k, s, d in zip(xpad.shape[2:], kernel, stride, dilation)]
        win = window_view(xp, xpad, kernel, stride, dilation, out_len)
        wk = w.reshape((1, c) + (1,) * len(kernel) + (kp,))
        out = xp.zeros((n, c) + tuple(out_len), x.dtype)
        for idx, k in enumerate(multi_range(kernel)):
            out += win[(Ellipsis,) + k] * wk[..., idx]
        return out
    if not split:
        return _im2col_conv(xp, x, w, stride, pads, dilation, groups)
    out = xp.empty((n, o) + tuple(out_len), x.dtype)

    def chunk(ab):
        out[ab[0]:ab[1]] = _im2col_conv(xp, x[ab[0]:ab[1]], w, stride, pads, dilation, groups)
    per_sample = x.itemsize * c * kp * max(math.prod(out_len), 1)
    run_parts(chunk, _batch_chunks(n, per_sample, True, _COPY_CHUNK_BYTES))
    return out


def _im2col_conv(xp, x, w, stride, pads, dilation, groups):
    """conv_array through an im2col copy and one batched matmul."""
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    kp = math.prod(kernel)
    cols = im2col_array(xp, x, kernel, stride, pads, dilation)
    out_len = cols.shape[2 + len(kernel):]
    p = math.prod(out_len)
    if groups == 1:
        out = xp.matmul(w.reshape(o, c * kp), cols.reshape(n, c * kp, p))
    else:
        out = xp.matmul(w.reshape(groups, o // groups, cg * kp),
                        cols.reshape(n, groups, cg * kp, p))
    return out.reshape((n, o) + tuple(out_len))


def conv_transpose_array(xp, x, w, size, stride, pads, dilation, groups):
    """Channels-first transposed convolution: x (N, Cin, *I), w (Cin, O/g, *K) -> (N, O, *size)."""
    own = _own(xp, "conv_transpose_array")
    if own is not None:
        return own(x, w, size, stride, pads, dilation, groups)
    n, cin = x.shape[:2]
    og = w.shape[1]
    kernel = w.shape[2:]
    inp = x.shape[2:]
    kp, ip = math.prod(kernel), math.prod(inp)
    cg = cin // groups
    if (_pointwise(kernel, pads[0::2] * 2, groups) and x.size and w.size
            and all((i - 1) * s < m for i, s, m in zip(inp, stride, size))):
        return pointwise_transpose_array(xp, x, w, size, stride,
                                         _split_batch(n, n * cin * og * ip))
    mode = shift_mode(cin, kernel, stride, groups)
    if all(s == 1 for s in stride) and (cin <= og * groups or mode == "stack" or (
            mode == "shift" and 2 * cin < 5 * og * groups)):
        # stride 1: a convolution with the flipped, in/out-swapped kernel; as shifted GEMMs
        # it needs no copies, and its im2col (cin * K rows) moves less memory than matmul +
        # col2im (og * groups * K rows) when cin <= og * groups. With 2.5x fewer outputs
        # than inputs (LeNet's 16 -> 6) the per-offset GEMMs are too thin (M = og): col2im
        pads_c = []
        for i, (m, k, d) in enumerate(zip(inp, kernel, dilation)):
            natural = m - 1 - pads[2 * i] - pads[2 * i + 1] + d * (k - 1) + 1
            pads_c += [d * (k - 1) - pads[2 * i], d * (k - 1) - pads[2 * i + 1]
                       + size[i] - natural]
        wc = xp.swapaxes(w.reshape((groups, cg, og) + tuple(kernel)), 1, 2)
        wc = wc.reshape((groups * og, cg) + tuple(kernel))
        wc = xp.ascontiguousarray(wc[(Ellipsis,) + (slice(None, None, -1),) * len(kernel)])
        return conv_array(xp, x, wc, [1] * len(kernel), pads_c, dilation, groups)
    if (groups == 1 and all(d == 1 for d in dilation) and x.size and w.size and n >= 4
            and 2 * cin < 5 * og and shift_mode(cin, kernel, [1] * len(kernel), 1) == "shift"):
        # strided, batch >= 4: one stride-1 convolution per output phase beats matmul +
        # col2im (ResNet's stride-2 input gradients 0.8x); batch 1-2 or thin outputs do not
        return phase_transpose_array(xp, x, w, size, stride, pads)
    if _split_batch(n, n * cin * og * kp * ip):
        out = xp.empty((n, groups * og) + tuple(size), x.dtype)

        def chunk(ab):
            out[ab[0]:ab[1]] = _matmul_col2im(xp, x[ab[0]:ab[1]], w, size, stride, pads,
                                              dilation, groups)
        per_sample = x.itemsize * groups * og * kp * ip
        run_parts(chunk, _batch_chunks(n, per_sample, True, _COPY_CHUNK_BYTES))
        return out
    return _matmul_col2im(xp, x, w, size, stride, pads, dilation, groups)


def _phase_plan(m: int, size: int, k: int, s: int, pb: int, r: int):
    """(taps slice, pads) of output phase r (positions r, r + s, ...) along one dim of a
    stride-s transposed convolution (dilation 1) of an input of length m: that phase is a
    stride-1 correlation of the input with the kernel taps k0, k0 + s, ... reversed."""
    k0 = (r + pb) % s
    taps = len(range(k0, k, s))
    if taps == 0:
        return None
    before = (k0 - pb - r) // s + taps - 1
    return (slice(k0 + (taps - 1) * s, None if k0 == 0 else k0 - 1, -s),
            [before, len(range(r, size, s)) - m - before + taps - 1])


def phase_transpose_array(xp, x, w, size, stride, pads):
    """conv_transpose_array for groups 1, dilation 1 and stride > 1 as s^nd stride-1
    convolutions, one per output phase (sub-kernels of the taps that reach it), written
    interleaved: shifted GEMMs with no col2im scatter-adds."""
    n = x.shape[0]
    og = w.shape[1]
    wc = xp.swapaxes(w, 0, 1)
    out = xp.empty((n, og) + tuple(size), x.dtype)
    for phase in multi_range(stride):
        plans = [_phase_plan(m, sz, k, s, pb, r) for m, sz, k, s, pb, r in
                 zip(x.shape[2:], size, w.shape[2:], stride, pads[0::2], phase)]
        dst = (slice(None), slice(None)) + tuple(slice(r, None, s)
                                                 for r, s in zip(phase, stride))
        if any(p is None for p in plans):
            out[dst] = 0
            continue
        sub = xp.ascontiguousarray(wc[(slice(None), slice(None)) + tuple(p[0] for p in plans)])
        out[dst] = conv_array(xp, x, sub, [1] * len(size), sum((p[1] for p in plans), []),
                              [1] * len(size), 1)
    return out


def _matmul_col2im(xp, x, w, size, stride, pads, dilation, groups):
    """conv_transpose_array as one batched matmul followed by col2im."""
    n, cin = x.shape[:2]
    og = w.shape[1]
    kernel = w.shape[2:]
    inp = x.shape[2:]
    kp, ip = math.prod(kernel), math.prod(inp)
    cg = cin // groups
    if cg == 1 and og == 1:  # depthwise
        cols = x.reshape(n, cin, 1, ip) * w.reshape(1, cin, kp, 1)
    elif groups == 1:
        cols = xp.matmul(w.reshape(cin, og * kp).T, x.reshape(n, cin, ip))
    else:
        wt = xp.swapaxes(w.reshape(groups, cg, og * kp), 1, 2)
        cols = xp.matmul(wt, x.reshape(n, groups, cg, ip))
    cols = cols.reshape((n, groups * og) + tuple(kernel) + tuple(inp))
    return col2im_array(xp, cols, size, stride, pads, dilation)


def add_bias(xp, out, bias):
    if bias is not None:
        out += bias.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


def weight_corr_array(xp, x, g, kernel, stride, pads, dilation, groups):
    """The kernel of _conv_weight_corr: (A, C/G, *kernel) from x (N, C, *S), g (N, A, *out)."""
    own = _own(xp, "weight_corr_array")
    if own is not None:
        return own(x, g, kernel, stride, pads, dilation, groups)
    n, c = x.shape[:2]
    a = g.shape[1]
    kp = math.prod(kernel)
    p = math.prod(g.shape[2:])
    split = _split_batch(n, n * a * (c // groups) * kp * p)
    if _pointwise(kernel, pads, groups) and x.size and g.size:
        return pointwise_weight_array(xp, x, g, stride, split)
    mode = shift_mode(c, kernel, stride, groups)
    if mode != "im2col" and x.size and g.size:
        return shift_weight_array(xp, x, g, kernel, pads, dilation, mode, split)
    if (groups == c == a and all(s == 1 for s in stride) and x.size and g.size
            and min(g.shape[2:]) > 0):
        return depthwise_shift_weight(xp, x, g, kernel, pads, dilation, _depthwise_chunks(
            x, kernel, split), split)

    def chunk(ab):
        m = ab[1] - ab[0]
        cols = im2col_array(xp, x[ab[0]:ab[1]], kernel, stride, pads, dilation)
        g3 = g[ab[0]:ab[1]].reshape(m, groups, a // groups, p)
        c3 = cols.reshape(m, groups, c // groups * kp, p)
        return xp.matmul(g3, xp.swapaxes(c3, -1, -2)).sum(axis=0)
    if not split:
        out = chunk((0, n))
    else:
        per_sample = x.itemsize * (c * kp + a) * p
        out = _sum_in_order(run_parts(chunk, _batch_chunks(n, per_sample, True,
                                                           _COPY_CHUNK_BYTES)))
    return out.reshape((a, c // groups) + tuple(kernel))


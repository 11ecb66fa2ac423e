"""Convolution operators (conv1d/2d/3d and transposed) and im2col/fold.

One N-d kernel serves every rank: stride-1 ungrouped convolutions with enough channels are
sums of shifted GEMMs over the flattened padded input (no im2col copy); the others im2col
through a strided window view copied once, then a batched BLAS matmul. The weight gradient
is its own bilinear op (_conv_weight_corr) with the same two strategies. The transposed
convolution is a matmul followed by col2im (strided adds over the kernel or the input
positions, whichever are fewer), or at stride 1 a convolution with the flipped kernel.
Attrs are canonical: stride and dilation have one int per spatial dim, padding two (before,
after) per spatial dim; negative padding crops (used by the vjp rules only). Big enough
convolutions run their batch chunks on the kernel thread pool (backend/threads.py). Imports
only `framework`, `backend.threads` and sibling op modules.
"""
from __future__ import annotations

import math

from ..backend.threads import run_parts
from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, TensorSpec, register

_CHANNEL_LAST = ("NLC", "NHWC", "NDHWC")


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


def _pairs(padding) -> list:
    return [(padding[2 * i], padding[2 * i + 1]) for i in range(len(padding) // 2)]


def _check_rank(api: str, arg: str, spec, rank: int, what: str) -> None:
    if spec.ndim != rank:
        raise ValueError(f"{api}: {arg} must be a {rank}-D tensor ({what}), got shape "
                         f"{list(spec.shape)}")


def _check_float(api: str, *named) -> None:
    dtype = named[0][1].dtype
    for arg, spec in named:
        if spec.dtype.kind != "f":
            raise TypeError(f"{api}: {arg} must be a floating point tensor, got "
                            f"{spec.dtype.name}")
        if spec.dtype is not dtype:
            raise TypeError(f"{api}: {arg} has dtype {spec.dtype.name} but x has "
                            f"{dtype.name}; they must match")


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
    pairs = _pairs(pads)
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
            for k in _multi_range(kernel):
                dst = tuple(slice(kk * d, kk * d + (i - 1) * s + 1, s)
                            for kk, i, s, d in zip(k, inp, stride, dilation))
                buf[lead + dst] += cols[lead + k]
        else:
            for p in _multi_range(inp):
                dst = tuple(slice(pp * s, pp * s + (k - 1) * d + 1, d)
                            for pp, k, s, d in zip(p, kernel, stride, dilation))
                buf[lead + dst] += cols[lead + (Ellipsis,) + p]
    # buf holds padded coordinates [0, extent); out[o] = buf[o + pad_before]
    crop = []
    for (b, _), n, e in zip(_pairs(pads), size, extent):
        crop += [-b, (n + b) - e]
    return pad_spatial(xp, buf, crop)


def _multi_range(dims):
    if not dims:
        yield ()
        return
    for i in range(dims[0]):
        for rest in _multi_range(dims[1:]):
            yield (i,) + rest


# --- stride-1 convolutions as shifted GEMMs ----------------------------------------------------
# With the padded spatial dims flattened (row-major, a zero tail appended), the window offset
# k of a stride-1 convolution is a constant shift of the flat index: the input rows that
# offset k needs are one contiguous slice buf[:, :, off_k : off_k + L]. So the convolution is
# a sum over offsets of plain GEMMs on slices (no im2col copy); positions computed in the
# padding columns of the flat layout are cropped at the end. The GEMM depth is C; for few
# channels the shifts of the last kernel dim are stacked first (depth C * k_last).

_SHIFT_DEPTH = 16  # below this GEMM depth (channels) per-offset GEMMs lose to im2col


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
                for k in _multi_range(kernel)]

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


def _sum_in_order(parts):
    """parts[0] + parts[1] + ... accumulated left to right into parts[0]."""
    out = parts[0]
    for p in parts[1:]:
        out += p
    return out


class _ShiftPlan:
    """The flat layout of x (negative pads cropped) for a stride-1 conv with `kernel`: flat
    padded sample chunks (optionally stacked over the last kernel dim) and the GEMM offsets."""

    def __init__(self, xp, x, pads, kernel, dilation, mode):
        crop = [min(p, 0) for p in pads]
        self.x = pad_spatial(xp, x, crop) if any(crop) else x
        self.pos = _pairs([max(p, 0) for p in pads])
        padded = [m + b + a for m, (b, a) in zip(self.x.shape[2:], self.pos)]
        self.geo = _FlatGeometry(padded, kernel, dilation)
        self.stack = (kernel[-1], dilation[-1]) if mode == "stack" else None
        rest = kernel[:-1] if self.stack else kernel
        self.offsets = self.geo.offsets(rest, dilation[:len(rest)])
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

    def sample_bytes(self, o: int, itemsize: int) -> int:
        return itemsize * (self.depth * self.geo.total + 2 * o * self.geo.length)


def shift_conv_array(xp, x, w, pads, dilation, mode, split=False):
    """Channels-first stride-1 convolution of x (N, C, *S) with w (O, C, *K), groups 1."""
    n, c = x.shape[:2]
    o = w.shape[0]
    kernel = tuple(w.shape[2:])
    plan = _ShiftPlan(xp, x, pads, kernel, dilation, mode)
    if plan.stack:
        mats = xp.transpose(w.reshape(o, c, -1, kernel[-1]), (2, 0, 3, 1))
        mats = xp.ascontiguousarray(mats).reshape(-1, o, kernel[-1] * c)
    else:
        mats = xp.ascontiguousarray(xp.transpose(w.reshape(o, c, -1), (2, 0, 1)))
    length = plan.geo.length
    out = xp.empty((n, o) + tuple(plan.geo.out_len), x.dtype)

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


def conv_array(xp, x, w, stride, pads, dilation, groups):
    """Channels-first N-d convolution (cross-correlation) of x (N, C, *S) with w (O, C/g, *K)."""
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    kp = math.prod(kernel)
    out_len = [conv_out_len(m, k, s, pb, pa, d) for m, k, s, (pb, pa), d in
               zip(x.shape[2:], kernel, stride, _pairs(pads), dilation)]
    split = _split_batch(n, n * o * cg * kp * math.prod(out_len))
    mode = shift_mode(c, kernel, stride, groups)
    if mode != "im2col" and x.size and w.size:
        return shift_conv_array(xp, x, w, pads, dilation, mode, split)
    if cg == 1 and o == groups and c == groups:  # depthwise: multiply-adds over the kernel
        xpad = pad_spatial(xp, x, pads)
        out_len = [conv_out_len(m, k, s, 0, 0, d)
                   for m, k, s, d in zip(xpad.shape[2:], kernel, stride, dilation)]
        win = window_view(xp, xpad, kernel, stride, dilation, out_len)
        wk = w.reshape((1, c) + (1,) * len(kernel) + (kp,))
        out = xp.zeros((n, c) + tuple(out_len), x.dtype)
        for idx, k in enumerate(_multi_range(kernel)):
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
    n, cin = x.shape[:2]
    og = w.shape[1]
    kernel = w.shape[2:]
    inp = x.shape[2:]
    kp, ip = math.prod(kernel), math.prod(inp)
    cg = cin // groups
    if all(s == 1 for s in stride) and (cin <= og * groups or shift_mode(
            cin, kernel, stride, groups) != "im2col"):
        # stride 1: a convolution with the flipped, in/out-swapped kernel; as shifted GEMMs
        # it needs no copies, and its im2col (cin * K rows) moves less memory than matmul +
        # col2im (og * groups * K rows) when cin <= og * groups
        pads_c = []
        for i, (m, k, d) in enumerate(zip(inp, kernel, dilation)):
            natural = m - 1 - pads[2 * i] - pads[2 * i + 1] + d * (k - 1) + 1
            pads_c += [d * (k - 1) - pads[2 * i], d * (k - 1) - pads[2 * i + 1]
                       + size[i] - natural]
        wc = xp.swapaxes(w.reshape((groups, cg, og) + tuple(kernel)), 1, 2)
        wc = wc.reshape((groups * og, cg) + tuple(kernel))
        wc = xp.ascontiguousarray(wc[(Ellipsis,) + (slice(None, None, -1),) * len(kernel)])
        return conv_array(xp, x, wc, [1] * len(kernel), pads_c, dilation, groups)
    if _split_batch(n, n * cin * og * kp * ip):
        out = xp.empty((n, groups * og) + tuple(size), x.dtype)

        def chunk(ab):
            out[ab[0]:ab[1]] = _matmul_col2im(xp, x[ab[0]:ab[1]], w, size, stride, pads,
                                              dilation, groups)
        per_sample = x.itemsize * groups * og * kp * ip
        run_parts(chunk, _batch_chunks(n, per_sample, True, _COPY_CHUNK_BYTES))
        return out
    return _matmul_col2im(xp, x, w, size, stride, pads, dilation, groups)


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


def _add_bias(xp, out, bias):
    if bias is not None:
        out += bias.reshape((1, -1) + (1,) * (out.ndim - 2))
    return out


# --- gradient helpers (sampan ops) -------------------------------------------------------------

def _cf(t, data_format: str):
    """A Tensor moved to channels-first (a transpose op) when data_format is channel-last."""
    if not is_channel_last(data_format):
        return t
    nd = t.ndim
    return call("transpose", t, perm=[0, nd - 1] + list(range(1, nd - 1)))


def _bias_grad(g, data_format: str):
    axes = list(range(g.ndim - 1)) if is_channel_last(data_format) else [0] + list(
        range(2, g.ndim))
    return call("sum", g, axis=axes, keepdim=False, dtype=None)


def _fit_pads(size, out, kernel, stride, pads, dilation) -> list:
    """Pads whose convolution of length `size` yields exactly `out` positions: trailing rows
    that no window uses are cropped (negative after-padding)."""
    fitted = list(pads)
    for i, (n, m, k, s, d) in enumerate(zip(size, out, kernel, stride, dilation)):
        have = conv_out_len(n, k, s, pads[2 * i], pads[2 * i + 1], d)
        if have > m:
            fitted[2 * i + 1] -= (have - m) * s
    return fitted


def weight_grad(x_cf, g_cf, kernel, stride, pads, dilation, groups):
    """sum over batch and positions of g (N, A, P) times im2col(x) (N, B*K, P) as ops:
    (A, B/G, *kernel); x_cf/g_cf channels-first Tensors whose im2col positions match g's."""
    a = g_cf.shape[1]
    cols = call("im2col", x_cf, kernel_sizes=list(kernel), strides=list(stride),
                paddings=list(pads), dilations=list(dilation))
    p = math.prod(g_cf.shape[2:])
    g3 = call("reshape", g_cf, shape=[-1, groups, a // groups, p])
    c3 = call("reshape", cols, shape=[-1, groups, cols.shape[1] // groups, p])
    prod = call("matmul", g3, c3, transpose_x=False, transpose_y=True)
    gw = call("sum", prod, axis=[0], keepdim=False, dtype=None)
    return call("reshape", gw, shape=[a, x_cf.shape[1] // groups] + list(kernel))


def weight_corr_array(xp, x, g, kernel, stride, pads, dilation, groups):
    """The kernel of _conv_weight_corr: (A, C/G, *kernel) from x (N, C, *S), g (N, A, *out)."""
    n, c = x.shape[:2]
    a = g.shape[1]
    kp = math.prod(kernel)
    p = math.prod(g.shape[2:])
    split = _split_batch(n, n * a * (c // groups) * kp * p)
    mode = shift_mode(c, kernel, stride, groups)
    if mode != "im2col" and x.size and g.size:
        return shift_weight_array(xp, x, g, kernel, pads, dilation, mode, split)

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


# --- convolution ops ---------------------------------------------------------------------------

class _ConvBase(OpDef):
    """Shared infer/attr handling of conv{1,2,3}d and their transposes."""

    inputs = ("x", "weight", "bias?")
    check = True
    nd = 2
    formats = ("NCHW", "NHWC")

    def _common(self, x, w, bias, data_format, groups, transposed):
        api = self.name
        if data_format not in self.formats:
            raise ValueError(f"{api}: data_format must be one of {list(self.formats)}, got "
                             f"{data_format!r}")
        _check_rank(api, "x", x, self.nd + 2, f"batch, channels and {self.nd} spatial dims")
        _check_rank(api, "weight", w, self.nd + 2, "out/in channels and the kernel dims")
        named = [("x", x), ("weight", w)] + ([("bias", bias)] if bias is not None else [])
        _check_float(api, *named)
        if not isinstance(groups, int) or groups < 1:
            raise ValueError(f"{api}: groups must be a positive int, got {groups!r}")
        n, c, spatial = split_channels(x.shape, data_format)
        kernel = w.shape[2:]
        if transposed:
            out_c = -1 if w.shape[1] == -1 else w.shape[1] * groups
            if -1 not in (c, w.shape[0]) and c != w.shape[0]:
                raise ValueError(f"{api}: x has {c} channels (shape {list(x.shape)}, "
                                 f"data_format {data_format}) but weight (shape "
                                 f"{list(w.shape)}) expects {w.shape[0]} input channels")
        else:
            out_c = w.shape[0]
            if -1 not in (c, w.shape[1]) and c != w.shape[1] * groups:
                raise ValueError(f"{api}: x has {c} channels (shape {list(x.shape)}, "
                                 f"data_format {data_format}) but weight (shape "
                                 f"{list(w.shape)}) with groups={groups} expects "
                                 f"{w.shape[1] * groups}")
            if out_c != -1 and out_c % groups:
                raise ValueError(f"{api}: the number of filters (weight.shape[0] = {out_c}) "
                                 f"must be divisible by groups ({groups})")
        if c != -1 and c % groups:
            raise ValueError(f"{api}: the channels of x ({c}) must be divisible by groups "
                             f"({groups})")
        if bias is not None and (bias.ndim != 1 or -1 not in (bias.shape[0], out_c)
                                 and bias.shape[0] != out_c):
            raise ValueError(f"{api}: bias must be 1-D with {out_c} elements (the output "
                             f"channels), got shape {list(bias.shape)}")
        return n, out_c, spatial, kernel


class _Conv(_ConvBase):
    """N-d cross-correlation of x with weight [out_c, in_c / groups, *kernel] plus bias.

    padding is [before, after] per spatial dim; stride/dilation one int per spatial dim.
    Gradients: x via the transposed convolution, weight via im2col(x) times the cotangent.
    """

    onnx = "Conv"

    def infer(self, x, weight, bias=None, stride=None, padding=None, dilation=None,
              groups=1, data_format=None):
        a = {**self.attrs, **{k: v for k, v in dict(stride=stride, padding=padding,
                                                    dilation=dilation,
                                                    data_format=data_format).items()
                              if v is not None}}
        n, out_c, spatial, kernel = self._common(x, weight, bias, a["data_format"], groups,
                                                 False)
        out = []
        for i, (m, k) in enumerate(zip(spatial, kernel)):
            o = conv_out_len(m, k, a["stride"][i], a["padding"][2 * i],
                             a["padding"][2 * i + 1], a["dilation"][i])
            if m != -1 and k != -1 and o <= 0:
                raise ValueError(f"{self.name}: the (padded) input of spatial size "
                                 f"{list(spatial)} is smaller than the dilated kernel "
                                 f"{list(kernel)} (dilation {a['dilation']}, padding "
                                 f"{a['padding']}); the output would be empty")
            out.append(o)
        return TensorSpec(join_channels(n, out_c, out, a["data_format"]), x.dtype)

    def compute(self, xp, x, weight, bias=None, stride=None, padding=None, dilation=None,
                groups=1, data_format=None):
        a = self.attrs
        data_format = data_format or a["data_format"]
        out = conv_array(xp, to_channels_first(xp, x, data_format), weight,
                         stride or a["stride"], padding or a["padding"],
                         dilation or a["dilation"], groups)
        return from_channels_first(xp, _add_bias(xp, out, bias), data_format)

    def vjp(self, ctx, g):
        a = ctx
        x, w = ctx.x, ctx.weight
        nd = self.nd
        gx = gw = gb = None
        if ctx.needs[0]:
            size = list(split_channels(x.shape, a.data_format)[2])
            gx = call(self.name + "_transpose", g, w, None, stride=a.stride,
                      padding=a.padding, output_padding=[0] * nd, dilation=a.dilation,
                      groups=a.groups, data_format=a.data_format, output_size=size)
        if ctx.needs[1]:
            x_cf, g_cf = _cf(x, a.data_format), _cf(g, a.data_format)
            pads = _fit_pads(x_cf.shape[2:], g_cf.shape[2:], w.shape[2:], a.stride,
                             a.padding, a.dilation)
            gw = call("_conv_weight_corr", x_cf, g_cf, kernel_size=list(w.shape[2:]),
                      stride=a.stride, padding=pads, dilation=a.dilation, groups=a.groups)
        if len(ctx.needs) > 2 and ctx.needs[2]:
            gb = _bias_grad(g, a.data_format)
        return gx, gw, gb


@register
class Conv2D(_Conv):
    name = "conv2d"
    attrs = {"stride": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1], "groups": 1,
             "data_format": "NCHW"}


@register
class Conv1D(_Conv):
    name = "conv1d"
    nd = 1
    formats = ("NCL", "NLC")
    attrs = {"stride": [1], "padding": [0, 0], "dilation": [1], "groups": 1,
             "data_format": "NCL"}


@register
class Conv3D(_Conv):
    name = "conv3d"
    nd = 3
    formats = ("NCDHW", "NDHWC")
    attrs = {"stride": [1, 1, 1], "padding": [0] * 6, "dilation": [1, 1, 1], "groups": 1,
             "data_format": "NCDHW"}


class _ConvTranspose(_ConvBase):
    """Transposed convolution (the adjoint of conv2d in x) with weight [in_c, out_c / groups,
    *kernel] plus bias. output_size (one int per spatial dim) overrides the natural size
    (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + 1 + output_padding.

    Gradients: x via conv2d of the cotangent, weight via x times im2col(cotangent).
    """

    onnx = "ConvTranspose"

    def _attrs(self, given):
        return {**self.attrs, **{k: v for k, v in given.items() if v is not None}}

    def _size(self, spatial, kernel, a):
        if a["output_size"] is not None:
            return list(a["output_size"])
        return [transpose_out_len(m, k, a["stride"][i], a["padding"][2 * i],
                                  a["padding"][2 * i + 1], a["dilation"][i],
                                  a["output_padding"][i])
                for i, (m, k) in enumerate(zip(spatial, kernel))]

    def infer(self, x, weight, bias=None, **given):
        a = self._attrs(given)
        n, out_c, spatial, kernel = self._common(x, weight, bias, a["data_format"],
                                                 a["groups"], True)
        size = self._size(spatial, kernel, a)
        if any(s != -1 and s <= 0 for s in size):
            raise ValueError(f"{self.name}: the output size {size} must be positive (input "
                             f"spatial size {list(spatial)}, kernel {list(kernel)})")
        return TensorSpec(join_channels(n, out_c, size, a["data_format"]), x.dtype)

    def compute(self, xp, x, weight, bias=None, **given):
        a = self._attrs(given)
        x = to_channels_first(xp, x, a["data_format"])
        size = self._size(x.shape[2:], weight.shape[2:], a)
        out = conv_transpose_array(xp, x, weight, size, a["stride"], a["padding"],
                                   a["dilation"], a["groups"])
        return from_channels_first(xp, _add_bias(xp, out, bias), a["data_format"])

    def vjp(self, ctx, g):
        a = ctx
        x, w = ctx.x, ctx.weight
        gx = gw = gb = None
        g_cf = _cf(g, a.data_format)
        inp = split_channels(x.shape, a.data_format)[2]
        pads = _fit_pads(g_cf.shape[2:], inp, w.shape[2:], a.stride, a.padding, a.dilation)
        if ctx.needs[0]:
            gx = call(self.name[:-len("_transpose")], g, w, None, stride=a.stride,
                      padding=pads, dilation=a.dilation, groups=a.groups,
                      data_format=a.data_format)
        if ctx.needs[1]:
            gw = call("_conv_weight_corr", g_cf, _cf(x, a.data_format),
                      kernel_size=list(w.shape[2:]), stride=a.stride, padding=pads,
                      dilation=a.dilation, groups=a.groups)
        if len(ctx.needs) > 2 and ctx.needs[2]:
            gb = _bias_grad(g, a.data_format)
        return gx, gw, gb


@register
class Conv2DTranspose(_ConvTranspose):
    name = "conv2d_transpose"
    attrs = {"stride": [1, 1], "padding": [0, 0, 0, 0], "output_padding": [0, 0],
             "dilation": [1, 1], "groups": 1, "data_format": "NCHW", "output_size": None}


@register
class Conv1DTranspose(_ConvTranspose):
    name = "conv1d_transpose"
    nd = 1
    formats = ("NCL", "NLC")
    attrs = {"stride": [1], "padding": [0, 0], "output_padding": [0], "dilation": [1],
             "groups": 1, "data_format": "NCL", "output_size": None}


@register
class Conv3DTranspose(_ConvTranspose):
    name = "conv3d_transpose"
    nd = 3
    formats = ("NCDHW", "NDHWC")
    attrs = {"stride": [1, 1, 1], "padding": [0] * 6, "output_padding": [0, 0, 0],
             "dilation": [1, 1, 1], "groups": 1, "data_format": "NCDHW", "output_size": None}


_CF_FORMATS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


@register
class ConvWeightCorr(OpDef):
    """Weight-shaped correlation of a channels-first input x [N, C, *S] with a cotangent
    dout [N, A, *out] of conv(x, w): out[a, c, k] = sum over n and output positions q of
    dout[n, g*A/G + a', q] * x_padded[n, g*C/G + c, q * stride + k * dilation] (grouped like
    the convolution); i.e. the gradient of conv(x, w) with respect to w. dout's spatial size
    must equal the convolution's output size for these attrs (padding may be negative).
    Stride-1 ungrouped cases run as shifted GEMMs, the others as im2col + matmul.

    Gradients (it is bilinear): x via conv_transpose(dout, cotangent), dout via
    conv(x, cotangent).
    """

    name = "_conv_weight_corr"
    inputs = ("x", "dout")
    attrs = {"kernel_size": None, "stride": None, "padding": None, "dilation": None,
             "groups": 1}
    check = True

    def infer(self, x, dout, kernel_size=None, stride=None, padding=None, dilation=None,
              groups=1):
        api = self.name
        nd = x.ndim - 2
        if nd not in (1, 2, 3) or dout.ndim != x.ndim:
            raise ValueError(f"{api}: x and dout must both be 3-D, 4-D or 5-D, got shapes "
                             f"{list(x.shape)} and {list(dout.shape)}")
        _check_float(api, ("x", x), ("dout", dout))
        for arg, v, n in (("kernel_size", kernel_size, nd), ("stride", stride, nd),
                          ("padding", padding, 2 * nd), ("dilation", dilation, nd)):
            if v is None or len(v) != n:
                raise ValueError(f"{api}: {arg} must have {n} entries, got {v}")
        c, a = x.shape[1], dout.shape[1]
        for arg, v in (("x channels", c), ("dout channels", a)):
            if v != -1 and v % groups:
                raise ValueError(f"{api}: {arg} ({v}) must be divisible by groups ({groups})")
        for i, (m, o) in enumerate(zip(x.shape[2:], dout.shape[2:])):
            want = conv_out_len(m, kernel_size[i], stride[i], padding[2 * i],
                                padding[2 * i + 1], dilation[i])
            if -1 not in (m, o) and want != o:
                raise ValueError(f"{api}: dout spatial shape {list(dout.shape[2:])} does not "
                                 f"match the convolution output size of x {list(x.shape)} "
                                 f"(dim {i}: {want})")
        return TensorSpec((a, -1 if c == -1 else c // groups) + tuple(kernel_size), x.dtype)

    def compute(self, xp, x, dout, kernel_size=None, stride=None, padding=None, dilation=None,
                groups=1):
        return weight_corr_array(xp, x, dout, kernel_size, stride, padding, dilation, groups)

    def vjp(self, ctx, h):
        nd = len(ctx.kernel_size)
        fmt = _CF_FORMATS[nd]
        gx = gd = None
        if ctx.needs[0]:
            gx = call(f"conv{nd}d_transpose", ctx.dout, h, None, stride=ctx.stride,
                      padding=ctx.padding, output_padding=[0] * nd, dilation=ctx.dilation,
                      groups=ctx.groups, data_format=fmt, output_size=list(ctx.x.shape[2:]))
        if ctx.needs[1]:
            gd = call(f"conv{nd}d", ctx.x, h, None, stride=ctx.stride, padding=ctx.padding,
                      dilation=ctx.dilation, groups=ctx.groups, data_format=fmt)
        return gx, gd

    @staticmethod
    def decompose(x, dout, kernel_size=None, stride=None, padding=None, dilation=None,
                  groups=1):
        return weight_grad(x, dout, kernel_size, stride, padding, dilation, groups)


# --- im2col / fold ---------------------------------------------------------------------------

class _ColBase(OpDef):
    check = True

    def _geometry(self, spatial, kernel_sizes, strides, paddings, dilations):
        nd = len(spatial)
        for arg, v, n in (("kernel_sizes", kernel_sizes, nd), ("strides", strides, nd),
                          ("paddings", paddings, 2 * nd), ("dilations", dilations, nd)):
            if v is None or len(v) != n:
                raise ValueError(f"{self.name}: {arg} must have {n} entries for {nd} "
                                 f"spatial dims, got {v}")
        for arg, v in (("kernel_sizes", kernel_sizes), ("strides", strides),
                       ("dilations", dilations)):
            if any(int(e) <= 0 for e in v):
                raise ValueError(f"{self.name}: {arg} must be positive, got {list(v)}")
        return [conv_out_len(m, k, s, paddings[2 * i], paddings[2 * i + 1], d)
                for i, (m, k, s, d) in enumerate(zip(spatial, kernel_sizes, strides,
                                                     dilations))]


@register
class Im2col(_ColBase):
    """The sliding blocks of x [N, C, *spatial] as columns [N, C * prod(kernel), L]
    (the op behind paddle.nn.functional.unfold; "unfold" names Tensor.unfold).

    paddings: [before, after] per spatial dim. Row index = c * prod(kernel) + kernel offset,
    column = output position in row-major order. Gradient: fold (col2im).
    """

    name = "im2col"
    attrs = {"kernel_sizes": None, "strides": None, "paddings": None, "dilations": None}
    saves = ()

    def infer(self, x, kernel_sizes=None, strides=None, paddings=None, dilations=None):
        if x.ndim < 3:
            raise ValueError(f"{self.name}: x must have a batch, a channel and at least one "
                             f"spatial dim, got shape {list(x.shape)}")
        out = self._geometry(x.shape[2:], kernel_sizes, strides, paddings, dilations)
        if any(o != -1 and o <= 0 for o in out):
            raise ValueError(f"{self.name}: the kernel {list(kernel_sizes)} (dilations "
                             f"{list(dilations)}) does not fit in the padded input of "
                             f"spatial shape {list(x.shape[2:])} (paddings {list(paddings)})")
        c = x.shape[1]
        rows = -1 if c == -1 else c * math.prod(kernel_sizes)
        return x.with_shape([x.shape[0], rows, -1 if -1 in out else math.prod(out)])

    def compute(self, xp, x, kernel_sizes=None, strides=None, paddings=None, dilations=None):
        cols = im2col_array(xp, x, kernel_sizes, strides, paddings, dilations)
        n, c = x.shape[:2]
        nd = len(kernel_sizes)
        return cols.reshape(n, c * math.prod(kernel_sizes), math.prod(cols.shape[2 + nd:]))

    def vjp(self, ctx, g):
        size = list(ctx.in_shapes[0][2:])
        return (call("fold", g, output_sizes=size, kernel_sizes=ctx.kernel_sizes,
                     strides=ctx.strides, paddings=ctx.paddings, dilations=ctx.dilations),)


@register
class Fold(_ColBase):
    """Sum columns x [N, C * prod(kernel), L] back into [N, C, *output_sizes] (col2im): the
    adjoint of im2col, overlapping entries add up. paddings: [before, after] per dim."""

    name = "fold"
    attrs = {"output_sizes": None, "kernel_sizes": None, "strides": None, "paddings": None,
             "dilations": None}
    saves = ()

    def infer(self, x, output_sizes=None, kernel_sizes=None, strides=None, paddings=None,
              dilations=None):
        if x.ndim != 3:
            raise ValueError(f"{self.name}: x must be 3-D [N, C * prod(kernel_sizes), L], "
                             f"got shape {list(x.shape)}")
        if output_sizes is None or any(int(s) <= 0 for s in output_sizes):
            raise ValueError(f"{self.name}: output_sizes must be positive ints, got "
                             f"{output_sizes}")
        out = self._geometry(output_sizes, kernel_sizes, strides, paddings, dilations)
        kp = math.prod(kernel_sizes)
        rows, blocks = x.shape[1], x.shape[2]
        if rows != -1 and rows % kp:
            raise ValueError(f"{self.name}: x.shape[1] ({rows}) must be divisible by the "
                             f"kernel size product {kp} (kernel_sizes {list(kernel_sizes)})")
        if blocks != -1 and blocks != math.prod(out):
            raise ValueError(f"{self.name}: x.shape[2] ({blocks}) must equal the number of "
                             f"sliding blocks {math.prod(out)} ({out}) for output_sizes "
                             f"{list(output_sizes)}")
        return x.with_shape([x.shape[0], -1 if rows == -1 else rows // kp, *output_sizes])

    def compute(self, xp, x, output_sizes=None, kernel_sizes=None, strides=None,
                paddings=None, dilations=None):
        self.infer(TensorSpec(x.shape, _dt.from_numpy(x.dtype)), output_sizes, kernel_sizes,
                   strides, paddings, dilations)
        blocks = self._geometry(output_sizes, kernel_sizes, strides, paddings, dilations)
        n, rows = x.shape[:2]
        cols = x.reshape((n, rows // math.prod(kernel_sizes)) + tuple(kernel_sizes)
                         + tuple(blocks))
        return col2im_array(xp, cols, output_sizes, strides, paddings, dilations)

    def vjp(self, ctx, g):
        return (call("im2col", g, kernel_sizes=ctx.kernel_sizes, strides=ctx.strides,
                     paddings=ctx.paddings, dilations=ctx.dilations),)

"""Single-sample convolutions (batch-1 inference): one GEMM over per-thread scratch buffers.

At batch 1 the GEMMs of a small network take about half of a convolution's time in the
general kernels; the rest was allocating and zero-filling the padded input, building the
columns, and Python bookkeeping. Here the zero-padded input and the column matrix live in
scratch buffers kept per thread and per geometry: only the interior of the padded buffer is
ever written, so its border stays zero, and the columns are rebuilt in place on each call.
The result is always a fresh array. Stride-1 2-D convolutions use a flat layout whose rows
share their padding columns (row length W + max(pad_left, pad_right) instead of
W + pad_left + pad_right), so the GEMM computes fewer discarded positions; strided ones copy
the windows of the padded buffer. Imports only `backend`.
"""
from __future__ import annotations

import math
import threading

import numpy as _np
from numpy.lib.stride_tricks import as_strided

_LOCAL = threading.local()
_SCRATCH_BYTES = 8 << 20   # per thread; the cache is dropped when a new buffer would exceed it
_COLS_BYTES = 2 << 20      # larger column matrices go to the general kernels
_MAX_ENTRIES = 512         # plans per thread (shapes that keep changing must not pile up)
_FLOATS = frozenset((_np.dtype(_np.float32), _np.dtype(_np.float64)))


def _cache() -> dict:
    """This thread's scratch dict (buffers, window views and plans)."""
    cache = getattr(_LOCAL, "bufs", None)
    if cache is None:
        cache = _LOCAL.bufs = {}
        _LOCAL.nbytes = 0
    return cache


def _drop() -> None:
    """Forget this thread's buffers, views and plans (they are rebuilt on demand)."""
    _LOCAL.bufs.clear()
    _LOCAL.nbytes = 0


def _scratch(key: tuple, shape: tuple, dtype, zero: bool):
    """This thread's buffer for `key`, `shape` and `dtype` (created zero-filled or empty on
    first use). A zero-filled buffer's key must fix which part of it is ever written."""
    cache = _cache()
    key += (shape, dtype.char)
    buf = cache.get(key)
    if buf is None:
        nbytes = math.prod(shape) * dtype.itemsize
        if _LOCAL.nbytes + nbytes > _SCRATCH_BYTES:
            _drop()
        buf = cache[key] = (_np.zeros if zero else _np.empty)(shape, dtype)
        _LOCAL.nbytes += nbytes
    return buf


def _window(key: tuple, src, shape: tuple, steps: tuple):
    """A read-only view of the scratch buffer src: `shape` with src's first stride and then
    `steps` (in elements) of its last axis; made once per buffer (as_strided costs more than
    the copy it feeds in small convolutions)."""
    cache = _LOCAL.bufs
    key += (src.dtype.char,)
    entry = cache.get(key)
    if entry is None or entry[0] is not src:
        item = src.itemsize
        view = as_strided(src, shape, (src.strides[0],) + tuple(s * item for s in steps),
                          writeable=False)
        entry = cache[key] = (src, view)
    return entry[1]


def small_conv2d(x, w, stride, pads, dilation):
    """The convolution of one sample x (1, C, H, W) with w (O, C, kh, kw), groups 1, as
    (1, O, Ho, Wo); None when this path does not apply (the caller's kernels then run):
    another batch size, rank or dtype, negative (cropping) pads, or too large columns."""
    if (x.__class__ is not _np.ndarray or w.__class__ is not _np.ndarray
            or x.ndim != 4 or x.shape[0] != 1 or x.dtype not in _FLOATS
            or w.dtype != x.dtype):
        return None
    key = ("plan", x.shape, w.shape, tuple(stride), tuple(pads), tuple(dilation), x.dtype)
    cache = _cache()
    plan = cache.get(key)
    if plan is None:
        if min(pads) < 0:
            return None
        plan = _plan(x, w, stride, pads, dilation)
        if plan is None:
            return None
        if len(cache) >= _MAX_ENTRIES:
            _drop()
        cache[key] = plan
    dst, win, pick, cols, cols2d, res, crop, shape = plan
    if dst is not None:
        dst[...] = x[0]
    if win is not None:
        cols[...] = win
    elif pick is not None:
        cols[...] = x[0][pick]
    if cols2d is None:    # pointwise at stride 1: x is the columns
        cols2d = x.reshape(w.shape[1], -1)
    out = _np.empty(shape, x.dtype)
    o = shape[1]
    if res is None:
        _np.matmul(w.reshape(o, -1), cols2d, out=out.reshape(o, -1))
    else:
        _np.matmul(w.reshape(o, -1), cols2d, out=res)
        out[0] = crop
    return out


def _plan(x, w, stride, pads, dilation):
    """(dst, win, pick, cols, cols2d, res, crop, out shape) of a convolution (see
    small_conv2d), views of this thread's scratch buffers made once per call signature:
    x[0] is copied into dst (the interior of a zero-padded buffer), the window view win (or
    x[0][pick]) into the columns cols (cols2d: the GEMM operand; None: x itself), the GEMM
    writes res (when the output needs a crop, then copied from the view crop) or the
    result."""
    if stride[0] == 1 and stride[1] == 1:
        if w.shape[2] == w.shape[3] == 1 and not any(pads):
            return None, None, None, None, None, None, None, (1, w.shape[0]) + x.shape[2:]
        return _flat_plan(x, w, pads, dilation)
    return _window_plan(x, w, stride, pads, dilation)


def _flat_plan(x, w, pads, dilation):
    """Stride 1: the padded sample flattened with row length P = W + z (z zero columns per
    row, shared as the right padding of a row and the left padding of the next), so kernel
    offset (i, j) is the constant shift i * dh * P + j * dw of the flat index; the columns are
    the C x (kh * kw) shifted slices of length Ho * P, cropped to Wo after the GEMM."""
    _, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    pt, pb, pl, pr = pads
    dh, dw = dilation
    ho = h + pt + pb - dh * (kh - 1)
    wo = wd + pl + pr - dw * (kw - 1)
    p = wd + max(pl, pr, wo - wd)
    length = ho * p
    kk = kh * kw
    if ho <= 0 or wo <= 0 or c * kk * length * x.itemsize > _COLS_BYTES:
        return None
    total = max((ho + (kh - 1) * dh) * p + (kw - 1) * dw, (pt + h) * p + pl)
    dt = x.dtype
    geo = (c, h, wd, kh, kw, pt, pl, dh, dw, p, total)
    buf = _scratch(("flat",) + geo, (c, total), dt, True)
    start = pt * p + pl
    dst = buf[:, start:start + h * p].reshape(c, h, p)[:, :, :wd]
    cols = _scratch(("cols",), (c, kh, kw, length), dt, False)
    win = _window(("fwin",) + geo, buf, (c, kh, kw, length), (dh * p, dw, 1))
    cols2d = cols.reshape(c * kk, length)
    if wo == p:
        return dst, win, None, cols, cols2d, None, None, (1, o, ho, wo)
    res = _scratch(("res",), (o, length), dt, False)
    crop = res.reshape(o, ho, p)[:, :, :wo]
    return dst, win, None, cols, cols2d, res, crop, (1, o, ho, wo)


def _window_plan(x, w, stride, pads, dilation):
    """Strided: the windows of the zero-padded sample copied once into (C, kh, kw, Ho, Wo)
    columns, one GEMM written straight into the result."""
    _, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    pt, pb, pl, pr = pads
    sh, sw = stride
    dh, dw = dilation
    hp, wp = h + pt + pb, wd + pl + pr
    ho = (hp - dh * (kh - 1) - 1) // sh + 1
    wo = (wp - dw * (kw - 1) - 1) // sw + 1
    kk = kh * kw
    dt = x.dtype
    if ho <= 0 or wo <= 0 or c * kk * ho * wo * x.itemsize > _COLS_BYTES:
        return None
    cols = _scratch(("wcols",), (c, kh, kw, ho, wo), dt, False)
    cols2d = cols.reshape(c * kk, ho * wo)
    if kk == 1 and not any(pads):
        pick = (slice(None), slice(0, (ho - 1) * sh + 1, sh), slice(0, (wo - 1) * sw + 1, sw))
        return None, None, pick, cols.reshape(c, ho, wo), cols2d, None, None, (1, o, ho, wo)
    key = ("pad", c, h, wd, pt, pb, pl, pr)
    src = _scratch(key, (c, hp, wp), dt, True)
    dst = src[:, pt:pt + h, pl:pl + wd]
    win = _window(key + (kh, kw, sh, sw, dh, dw), src, (c, kh, kw, ho, wo),
                  (dh * wp, dw, sh * wp, sw))
    return dst, win, None, cols, cols2d, None, None, (1, o, ho, wo)

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
_FLOATS = frozenset((_np.dtype(_np.float32), _np.dtype(_np.float64)))


def _scratch(key: tuple, shape: tuple, dtype, zero: bool):
    """This thread's buffer for `key`, `shape` and `dtype` (created zero-filled or empty on
    first use). A zero-filled buffer's key must fix which part of it is ever written."""
    cache = getattr(_LOCAL, "bufs", None)
    if cache is None:
        cache = _LOCAL.bufs = {}
        _LOCAL.nbytes = 0
    key += (shape, dtype.char)
    buf = cache.get(key)
    if buf is None:
        nbytes = math.prod(shape) * dtype.itemsize
        if _LOCAL.nbytes + nbytes > _SCRATCH_BYTES:
            cache.clear()
            _LOCAL.nbytes = 0
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
            or w.dtype != x.dtype or min(pads) < 0):
        return None
    if stride[0] == 1 and stride[1] == 1:
        if w.shape[2] == w.shape[3] == 1 and not any(pads):  # pointwise: x is the columns
            o, c = w.shape[:2]
            out = _np.empty((1, o) + x.shape[2:], x.dtype)
            _np.matmul(w.reshape(o, c), x.reshape(c, -1), out=out.reshape(o, -1))
            return out
        return _flat_conv(x, w, pads, dilation)
    return _window_conv(x, w, stride, pads, dilation)


def _flat_conv(x, w, pads, dilation):
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
    if ho <= 0 or wo <= 0:
        return None
    p = wd + max(pl, pr, wo - wd)
    length = ho * p
    kk = kh * kw
    if c * kk * length * x.itemsize > _COLS_BYTES:
        return None
    total = max((ho + (kh - 1) * dh) * p + (kw - 1) * dw, (pt + h) * p + pl)
    dt = x.dtype
    geo = (c, h, wd, kh, kw, pt, pl, dh, dw, p, total)
    buf = _scratch(("flat",) + geo, (c, total), dt, True)
    start = pt * p + pl
    buf[:, start:start + h * p].reshape(c, h, p)[:, :, :wd] = x[0]
    cols = _scratch(("cols", c, kk, length), (c, kh, kw, length), dt, False)
    cols[...] = _window(("fwin",) + geo, buf, (c, kh, kw, length), (dh * p, dw, 1))
    out = _np.empty((1, o, ho, wo), dt)
    w2 = w.reshape(o, c * kk)
    if wo == p:
        _np.matmul(w2, cols.reshape(c * kk, length), out=out.reshape(o, length))
        return out
    res = _scratch(("res", o, length), (o, length), dt, False)
    _np.matmul(w2, cols.reshape(c * kk, length), out=res)
    out[0] = res.reshape(o, ho, p)[:, :, :wo]
    return out


def _window_conv(x, w, stride, pads, dilation):
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
    if ho <= 0 or wo <= 0:
        return None
    kk = kh * kw
    dt = x.dtype
    if c * kk * ho * wo * x.itemsize > _COLS_BYTES:
        return None
    cols = _scratch(("wcols", c, kh, kw, ho, wo), (c, kh, kw, ho, wo), dt, False)
    if kk == 1 and not (pt or pb or pl or pr):
        cols[:, 0, 0] = x[0, :, :(ho - 1) * sh + 1:sh, :(wo - 1) * sw + 1:sw]
    else:
        key = ("pad", c, h, wd, pt, pb, pl, pr)
        src = _scratch(key, (c, hp, wp), dt, True)
        src[:, pt:pt + h, pl:pl + wd] = x[0]
        cols[...] = _window(key + (kh, kw, sh, sw, dh, dw), src, (c, kh, kw, ho, wo),
                            (dh * wp, dw, sh * wp, sw))
    out = _np.empty((1, o, ho, wo), dt)
    _np.matmul(w.reshape(o, c * kk), cols.reshape(c * kk, ho * wo), out=out.reshape(o, -1))
    return out

"""Op database entries for sampan/ops/fft.py (fft_c2c, fft_r2c, fft_c2r, frame, overlap_add).

Complex results are checked through real views (as_real, abs ** 2) so that the generic
gradient tests (real cotangents, float64 finite differences) see every real input
direction; complex inputs are built as complex(re, im) from two real arrays.
"""
import numpy as np
import scipy.fft as sfft

import sampan as paddle
import sampan.fft as pfft
from tests.ops.op_db import OpEntry, Sample


def _c(re, im):
    return paddle.complex(re, im)


def _view(z):
    return np.stack([z.real, z.imag], -1)


def _cdtype(dtype):
    return np.complex64 if np.dtype(dtype) == np.float32 else np.complex128


def _pair_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(3, 4), r(3, 4)), name="2-d"),
            Sample((r(3, 4), r(3, 4)), {"n": 6, "norm": "ortho"}, name="pad-ortho"),
            Sample((r(3, 5), r(3, 5)), {"n": 3, "axis": 0, "norm": "forward"},
                   name="crop-axis0"),
            Sample((r(4, 3).T, r(4, 3).T), name="non-contiguous"),
            Sample((r(5), r(5)), {"n": 4}, name="1-d"),
            Sample((r(0, 3), r(0, 3)), name="empty")]


def _nd_pair_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(2, 3, 4), r(2, 3, 4)), name="3-d"),
            Sample((r(2, 3, 4), r(2, 3, 4)), {"s": [2, 5], "norm": "ortho"}, name="s"),
            Sample((r(2, 3, 4), r(2, 3, 4)), {"axes": [0, 2], "norm": "forward"},
                   name="axes"),
            Sample((r(3, 2).T, r(3, 2).T), name="non-contiguous")]


def _real_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(3, 4),), name="even"),
            Sample((r(3, 5),), {"norm": "ortho"}, name="odd-ortho"),
            Sample((r(3, 4),), {"n": 7, "axis": 0, "norm": "forward"}, name="pad-axis0"),
            Sample((r(6),), {"n": 4}, name="crop"),
            Sample((r(4, 3).T,), name="non-contiguous"),
            Sample((r(2, 0),), {"axis": 0}, name="empty")]


def _nd_real_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(2, 3, 4),), name="3-d"),
            Sample((r(2, 3, 5),), {"s": [4, 3], "norm": "ortho"}, name="s"),
            Sample((r(3, 2, 4),), {"axes": [2, 0], "norm": "forward"}, name="axes")]


def _half_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(2, 3), r(2, 3)), name="default-n"),
            Sample((r(2, 3), r(2, 3)), {"n": 5, "norm": "ortho"}, name="odd-n"),
            Sample((r(2, 4), r(2, 4)), {"n": 4, "norm": "forward"}, name="crop"),
            Sample((r(3, 2), r(3, 2)), {"n": 8, "axis": 0}, name="pad-axis0"),
            Sample((r(3), r(3)), {"n": 1}, name="n=1")]


def _nd_half_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(2, 3, 3), r(2, 3, 3)), name="3-d"),
            Sample((r(2, 3, 3), r(2, 3, 3)), {"s": [2, 5], "norm": "ortho"}, name="s"),
            Sample((r(3, 2, 3), r(3, 2, 3)), {"axes": [1, 0], "norm": "forward"},
                   name="axes")]


def _complex_entry(name, fn, ref, samples, **kw):
    return OpEntry(name.split(":")[0], lambda re, im, **k: paddle.as_real(fn(_c(re, im), **k)),
                   lambda re, im, **k: _view(ref(re + 1j * im, **k)).astype(re.dtype), samples,
                   name=name.split(":")[1], **kw)


def _real_to_complex(name, fn, ref, samples, **kw):
    return OpEntry(name.split(":")[0], lambda x, **k: paddle.as_real(fn(x, **k)),
                   lambda x, **k: _view(ref(x, **k)).astype(x.dtype), samples,
                   name=name.split(":")[1], **kw)


def _to_real(name, fn, ref, samples, **kw):
    return OpEntry(name.split(":")[0], lambda re, im, **k: fn(_c(re, im), **k),
                   lambda re, im, **k: ref(re + 1j * im, **k).astype(re.dtype), samples,
                   name=name.split(":")[1], **kw)


def _sq_abs(z):
    # NOTE: |z|^2 as re^2 + im^2; abs() of a complex tensor has no second derivative yet
    return paddle.real(z) ** 2 + paddle.imag(z) ** 2


def _power(fn):
    return lambda re, im, **k: _sq_abs(fn(_c(re, im), **k))


def _power_ref(ref):
    return lambda re, im, **k: (np.abs(ref(re + 1j * im, **k)) ** 2).astype(re.dtype)


def _frame_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(2, 9),), {"frame_length": 4, "hop_length": 2}, name="last"),
            Sample((r(10, 2),), {"frame_length": 3, "hop_length": 3, "axis": 0},
                   name="axis0-tail"),
            Sample((r(7),), {"frame_length": 7, "hop_length": 1}, name="one-frame"),
            Sample((r(2, 8).T,), {"frame_length": 2, "hop_length": 1, "axis": 0},
                   name="non-contiguous")]


def _frame_ref(x, frame_length, hop_length, axis=-1):
    if axis == 0:
        count = 1 + (x.shape[0] - frame_length) // hop_length
        return np.stack([x[i * hop_length:i * hop_length + frame_length]
                         for i in range(count)], 0)
    count = 1 + (x.shape[-1] - frame_length) // hop_length
    return np.stack([x[..., i * hop_length:i * hop_length + frame_length]
                     for i in range(count)], -1)


def _ola_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(2, 4, 3),), {"hop_length": 2}, name="last"),
            Sample((r(3, 2, 2),), {"hop_length": 3, "axis": 0}, name="axis0-gap"),
            Sample((r(2, 6),), {"hop_length": 1}, name="many-frames"),
            Sample((r(3, 4).T,), {"hop_length": 2}, name="non-contiguous")]


def _ola_ref(x, hop_length, axis=-1):
    if axis == 0:
        x = np.moveaxis(np.moveaxis(x, 0, -1), 0, -2)
    length, count = x.shape[-2:]
    out = np.zeros(x.shape[:-2] + ((count - 1) * hop_length + length,), x.dtype)
    for i in range(count):
        out[..., i * hop_length:i * hop_length + length] += x[..., i]
    return np.moveaxis(out, -1, 0) if axis == 0 else out


def _np(name):
    fn = getattr(np.fft, name)
    return lambda z, n=None, axis=-1, norm="backward": fn(z, n=n, axis=axis, norm=norm)


def _sp(name):
    fn = getattr(sfft, name)

    def ref(z, s=None, axes=None, norm="backward"):
        if axes is not None or name.endswith("2"):
            return fn(z, s=s, axes=(-2, -1) if axes is None else axes, norm=norm)
        return fn(z, s=s, norm=norm)
    return ref


ENTRIES = [
    _complex_entry("fft_c2c:fft", pfft.fft, _np("fft"), _pair_samples),
    _complex_entry("fft_c2c:ifft", pfft.ifft, _np("ifft"), _pair_samples),
    _complex_entry("fft_c2c:fftn", pfft.fftn, _sp("fftn"), _nd_pair_samples),
    _complex_entry("fft_c2c:ifft2", pfft.ifft2, _sp("ifft2"), _nd_pair_samples),
    _real_to_complex("fft_c2c:fft-real-input", pfft.fft, _np("fft"), _real_samples),
    OpEntry("fft_c2c", _power(pfft.fft), _power_ref(_np("fft")), _pair_samples,
            name="fft-power"),
    _real_to_complex("fft_r2c:rfft", pfft.rfft, _np("rfft"), _real_samples),
    _real_to_complex("fft_r2c:ihfft", pfft.ihfft, _np("ihfft"), _real_samples),
    _real_to_complex("fft_r2c:rfftn", pfft.rfftn, _sp("rfftn"), _nd_real_samples),
    _real_to_complex("fft_r2c:ihfft2", pfft.ihfft2, _sp("ihfft2"), _nd_real_samples),
    OpEntry("fft_r2c", lambda x, **k: _sq_abs(pfft.rfft(x, **k)),
            lambda x, **k: (np.abs(np.fft.rfft(x, **k)) ** 2).astype(x.dtype),
            _real_samples, name="rfft-power"),
    _to_real("fft_c2r:irfft", pfft.irfft, _np("irfft"), _half_samples),
    _to_real("fft_c2r:hfft", pfft.hfft, _np("hfft"), _half_samples),
    _to_real("fft_c2r:irfftn", pfft.irfftn, _sp("irfftn"), _nd_half_samples),
    _to_real("fft_c2r:hfft2", pfft.hfft2, _sp("hfft2"), _nd_half_samples),
    OpEntry("fft_c2r", lambda re, im, **k: pfft.irfft(_c(re, im), **k) ** 2,
            lambda re, im, **k: (np.fft.irfft(re + 1j * im, **k) ** 2).astype(re.dtype),
            _half_samples, name="irfft-square"),
    OpEntry("fft_c2r", lambda x, **k: pfft.hfft(x, **k),
            lambda x, **k: np.fft.hfft(x, **k).astype(x.dtype),
            lambda rng, dtype: [Sample((rng.uniform(-1, 1, (2, 4)).astype(dtype),))],
            name="hfft-real-input"),
    OpEntry("frame", lambda x, **k: pfft_signal().frame(x, **k), _frame_ref, _frame_samples),
    OpEntry("overlap_add", lambda x, **k: pfft_signal().overlap_add(x, **k), _ola_ref,
            _ola_samples),
]


def pfft_signal():
    import sampan.signal as signal
    return signal

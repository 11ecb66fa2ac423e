"""FFT operators (c2c, r2c, c2r over a list of axes, as Paddle's fft_* kernels) and the
signal framing pair frame / overlap_add. Imports `framework` and `ops` only.

Normalisation attrs are the user's `norm` string ("backward", "forward", "ortho") read with
the transform direction, as numpy.fft does. Complex gradients follow Paddle: for a real loss
L of z = a + ib the gradient is dL/da + i dL/db, so the vjp of a linear transform is its
conjugate transpose.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from .dispatch import call
from .opdef import OpDef, TensorSpec, norm_axis, register

_NORMS = ("backward", "forward", "ortho")
_SWAP = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def check_axes(api: str, axes, ndim: int) -> list:
    """Normalised, distinct transform axes; ValueError naming the API otherwise."""
    if not isinstance(axes, (list, tuple)) or not axes:
        raise ValueError(f"{api}: axes must be a non-empty list of ints, got {axes!r}")
    out = []
    for a in axes:
        if not -ndim <= int(a) < ndim:
            raise ValueError(f"{api}: invalid FFT axis ({a}), it should be in range "
                             f"[{-ndim}, {ndim}) for a {ndim}-D input")
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{api}: FFT axes {list(axes)} contain a repeated axis")
    return out


def check_norm(api: str, norm) -> str:
    if norm not in _NORMS:
        raise ValueError(f"{api}: unexpected norm {norm!r}; norm should be 'forward', "
                         f"'backward' or 'ortho'")
    return norm


def _check_float_or_complex(api: str, x: TensorSpec, complex_only: bool = False) -> None:
    kinds = "c" if complex_only else "fc"
    if x.dtype.kind not in kinds:
        want = "complex" if complex_only else "floating point or complex"
        raise TypeError(f"{api}: x must be a {want} tensor, got {x.dtype.name}")


def _empty(xp, shape, dtype):
    return xp.zeros(shape, _dt.convert_dtype(dtype).np)


@register
class FftC2C(OpDef):
    """Complex-to-complex DFT over `axes` (forward: exp(-2 pi i jk/n), else the inverse),
    scaled by `normalization` read with the direction. Real x is taken as complex; float32
    gives complex64. vjp: the same transform in the other direction with the swapped norm
    (the conjugate transpose); a real x gets its real part."""

    name = "fft_c2c"
    attrs = {"axes": None, "normalization": "backward", "forward": True}
    saves = ("x",)
    check = True

    def infer(self, x, axes=None, normalization="backward", forward=True):
        _check_float_or_complex(self.name, x)
        check_axes(self.name, axes, x.ndim)
        check_norm(self.name, normalization)
        return x.with_dtype(_dt.complex_of(x.dtype))

    def compute(self, xp, x, axes=None, normalization="backward", forward=True):
        dtype = _dt.complex_of(_dt.from_numpy(x.dtype)).name
        if any(x.shape[a] == 0 for a in axes):
            return _empty(xp, x.shape, dtype)
        fn = xp.fft.fftn if forward else xp.fft.ifftn
        return fn(x, axes=axes, norm=normalization).astype(_dt.convert_dtype(dtype).np)

    def vjp(self, ctx, g):
        gx = call("fft_c2c", g, axes=ctx.axes, normalization=_SWAP[ctx.normalization],
                  forward=not ctx.forward)
        return (gx if ctx.x.dtype.kind == "c" else call("real", gx),)


@register
class FftR2C(OpDef):
    """Real-to-complex DFT over `axes`; `onesided` keeps n // 2 + 1 bins of the last axis.
    forward=False is the inverse transform of a real signal (ihfft). vjp: zero-pad the
    cotangent back to full length, inverse c2c with the swapped norm, real part."""

    name = "fft_r2c"
    attrs = {"axes": None, "normalization": "backward", "forward": True, "onesided": True}
    saves = ()
    check = True

    def infer(self, x, axes=None, normalization="backward", forward=True, onesided=True):
        if x.dtype.kind != "f":
            raise TypeError(f"{self.name}: x must be a real floating point tensor, got "
                            f"{x.dtype.name}")
        axes = check_axes(self.name, axes, x.ndim)
        check_norm(self.name, normalization)
        shape = list(x.shape)
        if onesided and shape[axes[-1]] != -1:
            shape[axes[-1]] = shape[axes[-1]] // 2 + 1
        return TensorSpec(shape, _dt.complex_of(x.dtype))

    def compute(self, xp, x, axes=None, normalization="backward", forward=True,
                onesided=True):
        dtype = _dt.complex_of(_dt.from_numpy(x.dtype)).np
        if any(x.shape[a] == 0 for a in axes):
            shape = list(x.shape)
            if onesided:
                shape[axes[-1]] = shape[axes[-1]] // 2 + 1
            return xp.zeros(shape, dtype)
        if not onesided:
            fn = xp.fft.fftn if forward else xp.fft.ifftn
            return fn(x, axes=axes, norm=normalization).astype(dtype)
        if forward:
            return xp.fft.rfftn(x, axes=axes, norm=normalization).astype(dtype)
        # the inverse one-sided transform of a real signal is conj(rfft) with swapped scaling
        return xp.conj(xp.fft.rfftn(x, axes=axes, norm=_SWAP[normalization])).astype(dtype)

    def vjp(self, ctx, g):
        axes = ctx.axes
        if ctx.onesided:
            last = axes[-1]
            n = ctx.in_shapes[0][last]
            pad = [0] * (2 * g.ndim)
            pad[2 * last + 1] = n - g.shape[last]
            if pad[2 * last + 1]:
                g = call("pad", g, pad=pad, mode="constant", value=0.0)
        gx = call("fft_c2c", g, axes=axes, normalization=_SWAP[ctx.normalization],
                  forward=not ctx.forward)
        return (call("real", gx),)


@register
class FftC2R(OpDef):
    """Complex (Hermitian half-spectrum) to real DFT over `axes`: c2c over all but the last
    axis, then a one-sided inverse along it giving `last_dim_size` points (0: 2 * (m - 1)).
    forward=True is hfft (exp(-...) kernel). The imaginary parts of the zero and Nyquist
    bins are ignored, as in numpy. vjp: r2c of the cotangent (other direction, swapped
    norm), interior bins doubled, a real x gets its real part."""

    name = "fft_c2r"
    attrs = {"axes": None, "normalization": "backward", "forward": False, "last_dim_size": 0}
    saves = ("x",)
    check = True

    def infer(self, x, axes=None, normalization="backward", forward=False, last_dim_size=0):
        _check_float_or_complex(self.name, x)
        axes = check_axes(self.name, axes, x.ndim)
        check_norm(self.name, normalization)
        shape = list(x.shape)
        shape[axes[-1]] = _out_len(self.name, shape[axes[-1]], last_dim_size)
        return TensorSpec(shape, _dt.real_of(_dt.complex_of(x.dtype)))  # half -> float32

    def compute(self, xp, x, axes=None, normalization="backward", forward=False,
                last_dim_size=0):
        dtype = _dt.real_of(_dt.complex_of(_dt.from_numpy(x.dtype))).np
        n = _out_len(self.name, x.shape[axes[-1]], last_dim_size)
        sizes = [x.shape[a] for a in axes[:-1]] + [n]
        if any(s == 0 for s in sizes) or x.shape[axes[-1]] == 0:
            shape = list(x.shape)
            shape[axes[-1]] = n
            return xp.zeros(shape, dtype)
        if forward:  # hfft: irfft of the conjugate with the swapped scaling
            out = xp.fft.irfftn(xp.conj(x), s=sizes, axes=axes, norm=_SWAP[normalization])
        else:
            out = xp.fft.irfftn(x, s=sizes, axes=axes, norm=normalization)
        return out.astype(dtype)

    def vjp(self, ctx, g):
        axes = ctx.axes
        last = axes[-1]
        n = g.shape[last]
        gx = call("fft_r2c", g, axes=axes, normalization=_SWAP[ctx.normalization],
                  forward=not ctx.forward, onesided=True)
        # bins 1 .. (n - 1) // 2 stand for two conjugate bins of the full spectrum
        interior = (n - 1) // 2
        if interior > 0:
            parts = [_crop(gx, last, 0, 1), _crop(gx, last, 1, 1 + interior) * 2.0]
            if n // 2 + 1 > 1 + interior:
                parts.append(_crop(gx, last, 1 + interior, n // 2 + 1))
            gx = call("concat", parts, axis=last)
        m = ctx.x.shape[last]
        if m < gx.shape[last]:
            gx = _crop(gx, last, 0, m)
        elif m > gx.shape[last]:
            pad = [0] * (2 * gx.ndim)
            pad[2 * last + 1] = m - gx.shape[last]
            gx = call("pad", gx, pad=pad, mode="constant", value=0.0)
        return (gx if ctx.x.dtype.kind == "c" else call("real", gx),)


def _out_len(api: str, m: int, last_dim_size: int) -> int:
    if last_dim_size:
        return int(last_dim_size)
    if m == -1:
        return -1
    n = 2 * (m - 1)
    if n < 1:
        raise ValueError(f"{api}: the last transform axis has {m} bins, giving "
                         f"{n} output points; pass n (or s) >= 1")
    return n


def _crop(t, axis: int, start: int, stop: int):
    shape = list(t.shape)
    offsets = [0] * len(shape)
    offsets[axis] = start
    shape[axis] = stop - start
    return call("crop", t, shape=shape, offsets=offsets)


def _frame_axis(api: str, axis: int, ndim: int, least: int) -> int:
    if ndim < least:
        raise ValueError(f"{api}: x must have at least {least} dims, got {ndim}")
    if axis not in (0, -1):
        raise ValueError(f"{api}: axis must be 0 or -1, got {axis}")
    return 0 if axis == 0 else ndim - 1


@register
class Frame(OpDef):
    """Slice x into frames of `frame_length` every `hop_length` samples along axis 0 or -1:
    [..., seq] -> [..., frame_length, num_frames] (axis=-1) or [seq, ...] -> [num_frames,
    frame_length, ...] (axis=0), num_frames = 1 + (seq - frame_length) // hop_length.
    vjp: overlap_add of the cotangent (zero for trailing samples no frame covers)."""

    name = "frame"
    attrs = {"frame_length": 1, "hop_length": 1, "axis": -1}
    saves = ()
    check = True

    def infer(self, x, frame_length=1, hop_length=1, axis=-1):
        return x.with_shape(self._shape(x.shape, frame_length, hop_length, axis))

    def _shape(self, shape, frame_length, hop_length, axis):
        ax = _frame_axis(self.name, axis, len(shape), 1)
        seq = shape[ax]
        if hop_length <= 0:
            raise ValueError(f"{self.name}: hop_length should be > 0, got {hop_length}")
        if frame_length <= 0 or (seq != -1 and frame_length > seq):
            raise ValueError(f"{self.name}: frame_length should be in (0, {seq}] (the "
                             f"length of x along axis {axis}, shape {list(shape)}), got "
                             f"{frame_length}")
        count = -1 if seq == -1 else 1 + (seq - frame_length) // hop_length
        if axis == 0:
            return (count, frame_length) + tuple(shape[1:])
        return tuple(shape[:-1]) + (frame_length, count)

    def compute(self, xp, x, frame_length=1, hop_length=1, axis=-1):
        ax = _frame_axis(self.name, axis, x.ndim, 1)
        win = xp.lib.stride_tricks.sliding_window_view(x, frame_length, axis=ax)
        idx = [slice(None)] * win.ndim
        idx[ax] = slice(None, None, hop_length)
        win = win[tuple(idx)]  # window index at ax, sample index last
        if axis == 0:
            return xp.ascontiguousarray(xp.moveaxis(win, -1, 1))
        return xp.ascontiguousarray(xp.swapaxes(win, -1, -2))

    def vjp(self, ctx, g):
        gx = call("overlap_add", g, hop_length=ctx.hop_length, axis=ctx.axis)
        ax = 0 if ctx.axis == 0 else g.ndim - 2
        seq = ctx.in_shapes[0][ax]
        if gx.shape[ax] < seq:
            pad = [0] * (2 * gx.ndim)
            pad[2 * ax + 1] = seq - gx.shape[ax]
            gx = call("pad", gx, pad=pad, mode="constant", value=0.0)
        return (gx,)


@register
class OverlapAdd(OpDef):
    """Sum frames back into a signal: [..., frame_length, num_frames] (axis=-1) or
    [num_frames, frame_length, ...] (axis=0) -> length (num_frames - 1) * hop_length +
    frame_length along that axis, frame i added at offset i * hop_length. vjp: frame."""

    name = "overlap_add"
    attrs = {"hop_length": 1, "axis": -1}
    saves = ()
    check = True

    def infer(self, x, hop_length=1, axis=-1):
        _frame_axis(self.name, axis, x.ndim, 2)
        if hop_length <= 0:
            raise ValueError(f"{self.name}: hop_length should be > 0, got {hop_length}")
        if axis == 0:
            count, length, rest = x.shape[0], x.shape[1], x.shape[2:]
        else:
            count, length, rest = x.shape[-1], x.shape[-2], ()
        seq = -1 if -1 in (count, length) else (count - 1) * hop_length + length
        if count == 0:
            seq = 0
        if axis == 0:
            return x.with_shape((seq,) + tuple(rest))
        return x.with_shape(tuple(x.shape[:-2]) + (seq,))

    def compute(self, xp, x, hop_length=1, axis=-1):
        if axis == 0:  # work on [..., frame_length, num_frames]
            x = xp.moveaxis(xp.moveaxis(x, 0, -1), 0, -2)
        length, count = x.shape[-2], x.shape[-1]
        seq = (count - 1) * hop_length + length if count else 0
        out = xp.zeros(x.shape[:-2] + (seq,), x.dtype)
        if count <= length:
            for i in range(count):
                out[..., i * hop_length:i * hop_length + length] += x[..., i]
        else:  # sample j of every frame lands on distinct positions j + i * hop
            for j in range(length):
                out[..., j:j + (count - 1) * hop_length + 1:hop_length] += x[..., j, :]
        return xp.moveaxis(out, -1, 0) if axis == 0 else out

    def vjp(self, ctx, g):
        length = ctx.in_shapes[0][1 if ctx.axis == 0 else -2]
        return (call("frame", g, frame_length=length, hop_length=ctx.hop_length,
                     axis=ctx.axis),)

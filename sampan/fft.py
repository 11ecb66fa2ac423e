"""paddle.fft: discrete Fourier transforms over the fft_c2c / fft_r2c / fft_c2r operators
(ops/fft.py), the sample-frequency helpers and fftshift. Imports `framework`, `ops` and
`tensor` only.

`n` / `s` crop or zero-pad the input along the transform axes before the transform; `norm`
is "backward" (scale the inverse by 1/n), "forward" (scale the forward by 1/n) or "ortho".
float32 inputs give complex64 results, float64 complex128; integer inputs are first cast to
the default float dtype.
"""
from __future__ import annotations

import numbers

from .framework import dtype as _dt
from .framework.tensor import Tensor, is_variable
from .ops.dispatch import call
from .ops.fft import check_axes, check_norm

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2",
           "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


# --- argument handling -------------------------------------------------------------------

def _as_input(api: str, x, real_only: bool = False) -> Tensor:
    if not isinstance(x, Tensor):
        if is_variable(x):
            return x
        raise TypeError(f"paddle.fft.{api}: x must be a Tensor, got {type(x).__name__}")
    kind = x.dtype.kind
    if kind in "biu":
        return call("cast", x, dtype=_dt.get_default_dtype())
    if real_only and kind == "c":
        raise TypeError(f"paddle.fft.{api}: x must be a real tensor (float32 or float64), "
                        f"got {x.dtype.name}")
    if kind == "f" and x.dtype.name in ("float16", "bfloat16"):
        return call("cast", x, dtype="float32")
    return x


def _check_size(api: str, arg: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ValueError(f"paddle.fft.{api}: invalid FFT argument {arg}({n!r}), it should be "
                         f"an integer")
    if n <= 0:
        raise ValueError(f"paddle.fft.{api}: invalid FFT argument {arg}({n}), it should be "
                         f"positive")
    return int(n)


def _one_axis(api: str, x, n, axis) -> tuple:
    ndim = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise ValueError(f"paddle.fft.{api}: axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"paddle.fft.{api}: invalid FFT axis ({axis}), it should be in range "
                         f"[{-ndim}, {ndim}) for x of shape {list(x.shape)}")
    s = None if n is None else [_check_size(api, "n", n)]
    return s, [int(axis) % ndim]


def _many_axes(api: str, x, s, axes, exactly: int | None = None) -> tuple:
    ndim = len(x.shape)
    if exactly is not None and ndim < exactly:
        raise ValueError(f"paddle.fft.{api}: the rank of x ({ndim}) should be >= {exactly}")
    if axes is not None:
        if isinstance(axes, numbers.Integral):
            axes = [axes]
        if not isinstance(axes, (list, tuple)) or (exactly and len(axes) != exactly):
            raise ValueError(f"paddle.fft.{api}: invalid FFT argument axes ({axes!r}), it "
                             f"should be a sequence of {exactly or 'distinct'} integers")
        axes = check_axes(f"paddle.fft.{api}", list(axes), ndim)
    if s is not None:
        if isinstance(s, numbers.Integral):
            s = [s]
        if not isinstance(s, (list, tuple)) or (exactly and len(s) != exactly):
            raise ValueError(f"paddle.fft.{api}: invalid FFT argument s ({s!r}), it should be "
                             f"a sequence of {exactly or ''} integers".replace("  ", " "))
        s = [_check_size(api, "s", v) for v in s]
        if axes is None:
            if len(s) > ndim:
                raise ValueError(f"paddle.fft.{api}: length of s ({len(s)}) is larger than "
                                 f"the rank of x ({ndim})")
            axes = list(range(ndim - len(s), ndim))
        elif len(s) != len(axes):
            raise ValueError(f"paddle.fft.{api}: length of s ({len(s)}) and length of axes "
                             f"({len(axes)}) does not match")
    if axes is None:
        if ndim == 0:
            raise ValueError(f"paddle.fft.{api}: x must have at least 1 dim, got a 0-D "
                             f"tensor")
        axes = list(range(ndim))
    return s, axes


def _resize(x, axes: list, sizes: list):
    """Crop or zero-pad x along each of `axes` to `sizes` (ops with gradients)."""
    shape = list(x.shape)
    if all(shape[a] == n for a, n in zip(axes, sizes)):
        return x
    crop = list(shape)
    for a, n in zip(axes, sizes):
        crop[a] = min(n, shape[a])
    if crop != shape:
        x = call("crop", x, shape=crop, offsets=[0] * len(shape))
    pad = [0] * (2 * len(shape))
    for a, n in zip(axes, sizes):
        pad[2 * a + 1] = max(n - shape[a], 0)
    if any(pad):
        x = call("pad", x, pad=pad, mode="constant", value=0.0)
    return x


# --- the three transform kinds -----------------------------------------------------------

def _c2c(api, x, s, axes, norm, forward):
    check_norm(f"paddle.fft.{api}", norm)
    if s is not None:
        x = _resize(x, axes, s)
    return call("fft_c2c", x, axes=axes, normalization=norm, forward=forward)


def _r2c(api, x, s, axes, norm, forward):
    check_norm(f"paddle.fft.{api}", norm)
    if s is not None:
        x = _resize(x, axes, s)
    return call("fft_r2c", x, axes=axes, normalization=norm, forward=forward, onesided=True)


def _c2r(api, x, s, axes, norm, forward):
    check_norm(f"paddle.fft.{api}", norm)
    if s is not None:
        last = s[-1]
        x = _resize(x, axes, list(s[:-1]) + [last // 2 + 1])
    else:
        m = x.shape[axes[-1]]
        last = 2 * (m - 1)
        if last <= 0:
            raise ValueError(f"paddle.fft.{api}: the last transform axis of x has {m} "
                             f"element(s), giving {last} output points; pass n (or s) >= 1")
    return call("fft_c2r", x, axes=axes, normalization=norm, forward=forward,
                last_dim_size=int(last))


# --- one-dimensional ---------------------------------------------------------------------

def fft(x, n=None, axis=-1, norm="backward", name=None):
    """One-dimensional DFT of x along `axis`.

    Args:
        x (Tensor): real or complex input.
        n (int, optional): transform length; x is cropped or zero-padded to it.
        axis (int): the transform axis. Default -1.
        norm (str): "backward" (default), "forward" or "ortho".

    Returns:
        Tensor: complex64 for float32 input, complex128 for float64.

    Examples:
        >>> import sampan as paddle
        >>> paddle.fft.fft(paddle.to_tensor([1.0, 2.0, 3.0, 4.0])).numpy()
        array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
    """
    x = _as_input("fft", x)
    s, axes = _one_axis("fft", x, n, axis)
    return _c2c("fft", x, s, axes, norm, True)


def ifft(x, n=None, axis=-1, norm="backward", name=None):
    """One-dimensional inverse DFT of x along `axis` (see fft for the arguments)."""
    x = _as_input("ifft", x)
    s, axes = _one_axis("ifft", x, n, axis)
    return _c2c("ifft", x, s, axes, norm, False)


def rfft(x, n=None, axis=-1, norm="backward", name=None):
    """DFT of a real x along `axis`, keeping the n // 2 + 1 non-negative frequencies.

    Examples:
        >>> import sampan as paddle
        >>> paddle.fft.rfft(paddle.to_tensor([1.0, 2.0, 3.0, 4.0])).numpy()
        array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """
    x = _as_input("rfft", x, real_only=True)
    s, axes = _one_axis("rfft", x, n, axis)
    return _r2c("rfft", x, s, axes, norm, True)


def irfft(x, n=None, axis=-1, norm="backward", name=None):
    """Inverse of rfft: a real signal of length n (default 2 * (m - 1)) from m
    non-negative-frequency bins along `axis`."""
    x = _as_input("irfft", x)
    s, axes = _one_axis("irfft", x, n, axis)
    return _c2r("irfft", x, s, axes, norm, False)


def hfft(x, n=None, axis=-1, norm="backward", name=None):
    """DFT of a signal with Hermitian symmetry given by its first half: a real result of
    length n (default 2 * (m - 1))."""
    x = _as_input("hfft", x)
    s, axes = _one_axis("hfft", x, n, axis)
    return _c2r("hfft", x, s, axes, norm, True)


def ihfft(x, n=None, axis=-1, norm="backward", name=None):
    """Inverse of hfft: the n // 2 + 1 first bins of the inverse DFT of a real x."""
    x = _as_input("ihfft", x, real_only=True)
    s, axes = _one_axis("ihfft", x, n, axis)
    return _r2c("ihfft", x, s, axes, norm, False)


# --- two-dimensional ---------------------------------------------------------------------

def fft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """Two-dimensional DFT over `axes` (default the last two); `s` crops/pads them."""
    x = _as_input("fft2", x)
    s, axes = _many_axes("fft2", x, s, axes, exactly=2)
    return _c2c("fft2", x, s, axes, norm, True)


def ifft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """Two-dimensional inverse DFT over `axes`."""
    x = _as_input("ifft2", x)
    s, axes = _many_axes("ifft2", x, s, axes, exactly=2)
    return _c2c("ifft2", x, s, axes, norm, False)


def rfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """Two-dimensional DFT of a real x; the last axis keeps n // 2 + 1 bins."""
    x = _as_input("rfft2", x, real_only=True)
    s, axes = _many_axes("rfft2", x, s, axes, exactly=2)
    return _r2c("rfft2", x, s, axes, norm, True)


def irfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """Inverse of rfft2: a real result; s[-1] (default 2 * (m - 1)) sets the last axis."""
    x = _as_input("irfft2", x)
    s, axes = _many_axes("irfft2", x, s, axes, exactly=2)
    return _c2r("irfft2", x, s, axes, norm, False)


def hfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """Two-dimensional hfft: a real result from a Hermitian half-spectrum."""
    x = _as_input("hfft2", x)
    s, axes = _many_axes("hfft2", x, s, axes, exactly=2)
    return _c2r("hfft2", x, s, axes, norm, True)


def ihfft2(x, s=None, axes=(-2, -1), norm="backward", name=None):
    """Two-dimensional inverse of hfft2 for a real x (one-sided last axis)."""
    x = _as_input("ihfft2", x, real_only=True)
    s, axes = _many_axes("ihfft2", x, s, axes, exactly=2)
    return _r2c("ihfft2", x, s, axes, norm, False)


# --- n-dimensional -----------------------------------------------------------------------

def fftn(x, s=None, axes=None, norm="backward", name=None):
    """N-dimensional DFT over `axes` (default: all, or the last len(s) when s is given).

    Examples:
        >>> import sampan as paddle
        >>> paddle.fft.fftn(paddle.ones([2, 2])).numpy().real
        array([[4., 0.],
               [0., 0.]], dtype=float32)
    """
    x = _as_input("fftn", x)
    s, axes = _many_axes("fftn", x, s, axes)
    return _c2c("fftn", x, s, axes, norm, True)


def ifftn(x, s=None, axes=None, norm="backward", name=None):
    """N-dimensional inverse DFT over `axes`."""
    x = _as_input("ifftn", x)
    s, axes = _many_axes("ifftn", x, s, axes)
    return _c2c("ifftn", x, s, axes, norm, False)


def rfftn(x, s=None, axes=None, norm="backward", name=None):
    """N-dimensional DFT of a real x; the last axis keeps n // 2 + 1 bins."""
    x = _as_input("rfftn", x, real_only=True)
    s, axes = _many_axes("rfftn", x, s, axes)
    return _r2c("rfftn", x, s, axes, norm, True)


def irfftn(x, s=None, axes=None, norm="backward", name=None):
    """Inverse of rfftn: a real result; s[-1] (default 2 * (m - 1)) sets the last axis."""
    x = _as_input("irfftn", x)
    s, axes = _many_axes("irfftn", x, s, axes)
    return _c2r("irfftn", x, s, axes, norm, False)


def hfftn(x, s=None, axes=None, norm="backward", name=None):
    """N-dimensional hfft: a real result from a Hermitian half-spectrum."""
    x = _as_input("hfftn", x)
    s, axes = _many_axes("hfftn", x, s, axes)
    return _c2r("hfftn", x, s, axes, norm, True)


def ihfftn(x, s=None, axes=None, norm="backward", name=None):
    """N-dimensional inverse of hfftn for a real x (one-sided last axis)."""
    x = _as_input("ihfftn", x, real_only=True)
    s, axes = _many_axes("ihfftn", x, s, axes)
    return _r2c("ihfftn", x, s, axes, norm, False)


# --- frequencies and shifts --------------------------------------------------------------

def _freq_dtype(api: str, dtype):
    dtype = _dt.convert_dtype(dtype or _dt.get_default_dtype())
    if dtype.kind != "f":
        raise TypeError(f"paddle.fft.{api}: dtype must be a floating point type, got "
                        f"{dtype.name}")
    return dtype.name


def fftfreq(n, d=1.0, dtype=None, name=None, *, device=None, requires_grad: bool = False):
    """Sample frequencies of an n-point DFT with sample spacing d: [0, 1, ..., -1] / (d n).

    Examples:
        >>> import sampan as paddle
        >>> paddle.fft.fftfreq(4, d=0.5).numpy()
        array([ 0. ,  0.5, -1. , -0.5], dtype=float32)
    """
    from .tensor.creation import arange, placed
    from .tensor.manipulation import concat
    n = _check_size("fftfreq", "n", n)
    dtype = _freq_dtype("fftfreq", dtype)
    pos = arange(0, (n - 1) // 2 + 1, dtype=dtype)
    neg = arange(-(n // 2), 0, dtype=dtype)
    return placed("fftfreq", concat([pos, neg]) * (1.0 / (n * d)), device, requires_grad)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, device=None, requires_grad: bool = False):
    """Sample frequencies of rfft: [0, 1, ..., n // 2] / (d n); device/requires_grad as the
    creation functions' (Paddle 3.x)."""
    from .tensor.creation import arange, placed
    n = _check_size("rfftfreq", "n", n)
    dtype = _freq_dtype("rfftfreq", dtype)
    out = arange(0, n // 2 + 1, dtype=dtype) * (1.0 / (n * d))
    return placed("rfftfreq", out, device, requires_grad)


def _shift(api: str, x, axes, sign: int):
    from .tensor.manipulation import roll
    ndim = len(x.shape)
    if axes is None:
        axes = list(range(ndim))
    elif isinstance(axes, numbers.Integral):
        axes = [axes]
    axes = [int(a) for a in axes]
    for a in axes:
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"paddle.fft.{api}: axis {a} is out of range for x of shape "
                             f"{list(x.shape)}")
    if not axes:
        return x
    shifts = [sign * (x.shape[a] // 2) for a in axes]
    return roll(x, shifts, axis=axes)


def fftshift(x, axes=None, name=None):
    """Move the zero-frequency term to the centre along `axes` (default all).

    Examples:
        >>> import sampan as paddle
        >>> paddle.fft.fftshift(paddle.fft.fftfreq(5)).numpy()
        array([-0.4, -0.2,  0. ,  0.2,  0.4], dtype=float32)
    """
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """Inverse of fftshift."""
    return _shift("ifftshift", x, axes, -1)


from .tensor.out_arg import FFT_NAMES as _OUT_NAMES, install as _install_out  # noqa: E402
_install_out(globals(), _OUT_NAMES, "paddle.fft.")  # Paddle 3.3.1's keyword-only `out=`

"""paddle.signal: frame, overlap_add (ops/fft.py) and the short-time Fourier transform pair
stft / istft composed from them and the fft operators. Imports `framework`, `ops`, `tensor`.
"""
from __future__ import annotations

import numbers

from .framework import dtype as _dt
from .framework.tensor import Tensor, is_tensor_or_variable
from .ops.dispatch import call
from .ops import fft as _fft_ops  # noqa: F401  (registers fft_*, frame, overlap_add)

__all__ = ["frame", "overlap_add", "stft", "istft"]


class SignalArgumentError(ValueError, AssertionError):
    """A bad stft/istft argument (Paddle asserts, so AssertionError is caught too)."""


def _positive_int(api: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"paddle.signal.{api}: unexpected {arg}: {value!r}. It should be a "
                         f"positive integer.")
    return int(value)


def _signal_axis(api: str, axis) -> int:
    if axis not in (0, -1):
        raise ValueError(f"paddle.signal.{api}: unexpected axis: {axis}. It should be 0 or -1.")
    return int(axis)


def frame(x, frame_length, hop_length, axis=-1, name=None):
    """Slice x into overlapping frames along axis 0 or -1.

    Args:
        x (Tensor): [..., seq_length] (axis=-1) or [seq_length, ...] (axis=0).
        frame_length (int): frame size, 0 < frame_length <= seq_length.
        hop_length (int): step between frame starts, > 0.
        axis (int): 0 or -1 (default).

    Returns:
        Tensor: [..., frame_length, num_frames] or [num_frames, frame_length, ...], where
        num_frames = 1 + (seq_length - frame_length) // hop_length.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.signal import frame
        >>> frame(paddle.arange(6), frame_length=3, hop_length=2).numpy()
        array([[0, 2],
               [1, 3],
               [2, 4]])
    """
    axis = _signal_axis("frame", axis)
    frame_length = _positive_int("frame", "frame_length", frame_length)
    hop_length = _positive_int("frame", "hop_length", hop_length)
    shape = list(x.shape)
    if shape and shape[axis] != -1 and frame_length > shape[axis]:
        raise ValueError(f"paddle.signal.frame: frame_length should be less equal than the "
                         f"sequence length, but got ({frame_length}) > ({shape[axis]}) for x "
                         f"of shape {shape}")
    return call("frame", x, frame_length=frame_length, hop_length=hop_length, axis=axis)


def overlap_add(x, hop_length, axis=-1, name=None):
    """Add overlapping frames back into a signal (the adjoint of frame).

    Args:
        x (Tensor): [..., frame_length, num_frames] (axis=-1) or [num_frames,
            frame_length, ...] (axis=0).
        hop_length (int): step between frame starts, > 0.
        axis (int): 0 or -1 (default).

    Returns:
        Tensor: [..., seq_length] or [seq_length, ...], seq_length = (num_frames - 1) *
        hop_length + frame_length.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.signal import overlap_add
        >>> overlap_add(paddle.ones([3, 2]), hop_length=1).numpy()
        array([1., 2., 2., 1.], dtype=float32)
    """
    axis = _signal_axis("overlap_add", axis)
    hop_length = _positive_int("overlap_add", "hop_length", hop_length)
    return call("overlap_add", x, hop_length=hop_length, axis=axis)


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise SignalArgumentError(msg)


def _window(api: str, window, win_length: int, n_fft: int, dtype: str):
    if window is None:
        window = call("full", shape=[win_length], fill_value=1.0, dtype=dtype)
    else:
        _check(is_tensor_or_variable(window),
               f"paddle.signal.{api}: window must be a Tensor, got {type(window).__name__}")
        _check(len(window.shape) == 1 and window.shape[0] == win_length,
               f"paddle.signal.{api}: expected a 1D window tensor of size equal to "
               f"win_length({win_length}), but got window with shape {list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = call("pad", window, pad=[left, n_fft - win_length - left], mode="constant",
                      value=0.0)
    return call("unsqueeze", window, axis=[1])  # [n_fft, 1]: broadcasts over frames


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, name=None):
    """Short-time Fourier transform: DFTs of windowed frames of x.

    Args:
        x (Tensor): [seq_length] or [batch, seq_length], real or complex.
        n_fft (int): frame (and DFT) size, 0 < n_fft <= seq_length.
        hop_length (int, optional): frame step. Default n_fft // 4.
        win_length (int, optional): window size <= n_fft, zero-padded on both sides to
            n_fft. Default n_fft.
        window (Tensor, optional): [win_length] window. Default all ones.
        center (bool): pad x by n_fft // 2 on both sides first. Default True.
        pad_mode (str): "reflect" (default) or "constant", used when center.
        normalized (bool): scale by 1 / sqrt(n_fft) ("ortho"). Default False.
        onesided (bool, optional): keep n_fft // 2 + 1 bins; must be False for complex x
            or window. Default: True for real input, False for complex.

    Returns:
        Tensor: complex, [(batch,) n_fft // 2 + 1 (or n_fft), num_frames].

    Examples:
        >>> import sampan as paddle
        >>> from sampan.signal import stft
        >>> stft(paddle.ones([16]), n_fft=8).shape
        paddle.Size([5, 9])
    """
    rank = len(x.shape)
    _check(rank in (1, 2), f"paddle.signal.stft: x should be a 1D or 2D tensor, but got "
                           f"rank of x is {rank}")
    if x.dtype.kind in "biu":
        x = call("cast", x, dtype="float32")
    if rank == 1:
        x = call("unsqueeze", x, axis=[0])
    _check(isinstance(n_fft, numbers.Integral) and not isinstance(n_fft, bool),
           f"paddle.signal.stft: n_fft must be an int, got {n_fft!r}")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    _check(hop_length > 0, f"paddle.signal.stft: hop_length should be > 0, but got "
                           f"{hop_length}.")
    seq = x.shape[-1]
    _check(seq == -1 or 0 < n_fft <= seq, f"paddle.signal.stft: n_fft should be in (0, "
                                          f"seq_length({seq})], but got {n_fft}.")
    _check(0 < win_length <= n_fft, f"paddle.signal.stft: win_length should be in (0, "
                                    f"n_fft({n_fft})], but got {win_length}.")
    real_dtype = _dt.real_of(x.dtype).name
    window = _window("stft", window, win_length, n_fft, real_dtype)
    if center:
        _check(pad_mode in ("constant", "reflect"), f"paddle.signal.stft: pad_mode should be "
                                                    f"\"reflect\" or \"constant\", but got "
                                                    f"\"{pad_mode}\".")
        half = n_fft // 2
        x = call("pad", x, pad=[0, 0, half, half], mode=pad_mode, value=0.0)
    frames = call("frame", x, frame_length=n_fft, hop_length=hop_length, axis=-1)
    frames = frames * window  # [batch, n_fft, num_frames]
    is_complex = frames.dtype.kind == "c"
    if onesided is None:
        onesided = not is_complex
    _check(not (is_complex and onesided), "paddle.signal.stft: onesided should be False when "
                                          "input or window is a complex Tensor.")
    norm = "ortho" if normalized else "backward"
    if is_complex:
        out = call("fft_c2c", frames, axes=[1], normalization=norm, forward=True)
    else:
        out = call("fft_r2c", frames, axes=[1], normalization=norm, forward=True,
                   onesided=bool(onesided))
    return call("squeeze", out, axis=[0]) if rank == 1 else out


def istft(x, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=True, length=None, return_complex=False, name=None):
    """Inverse short-time Fourier transform (least-squares overlap-add of inverse DFTs).

    Args:
        x (Tensor): complex [(batch,) fft_size, num_frames]; fft_size = n_fft // 2 + 1 when
            onesided, else n_fft.
        n_fft, hop_length, win_length, window, center, normalized: as in stft.
        onesided (bool): x holds the one-sided spectrum. Default True.
        length (int, optional): length of the result (trimmed from the centre padding).
        return_complex (bool): return a complex signal (needs onesided=False).

    Returns:
        Tensor: [(batch,) seq_length], real unless return_complex.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.signal import stft, istft
        >>> x = paddle.rand([32], dtype="float64")
        >>> bool(paddle.allclose(istft(stft(x, n_fft=8), n_fft=8), x))
        True
    """
    _check(x.dtype.kind == "c", f"paddle.signal.istft: x must be a complex64 or complex128 "
                                f"tensor, got {x.dtype.name}")
    rank = len(x.shape)
    _check(rank in (2, 3), f"paddle.signal.istft: x should be a 2D or 3D complex tensor, but "
                           f"got rank of x is {rank}")
    if rank == 2:
        x = call("unsqueeze", x, axis=[0])
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    _check(0 < hop_length <= win_length, f"paddle.signal.istft: hop_length should be in (0, "
                                         f"win_length({win_length})], but got {hop_length}.")
    _check(0 < win_length <= n_fft, f"paddle.signal.istft: win_length should be in (0, "
                                    f"n_fft({n_fft})], but got {win_length}.")
    fft_size, count = x.shape[-2], x.shape[-1]
    want = n_fft // 2 + 1 if onesided else n_fft
    _check(fft_size in (-1, want), f"paddle.signal.istft: fft_size should be equal to "
                                   f"{'n_fft // 2 + 1' if onesided else 'n_fft'}({want}) when "
                                   f"onesided is {bool(onesided)}, but got {fft_size}.")
    _check(count != 0, "paddle.signal.istft: x should not be an empty tensor.")
    real_dtype = _dt.real_of(x.dtype).name
    window = _window("istft", window, win_length, n_fft, real_dtype)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        _check(not onesided, "paddle.signal.istft: onesided should be False when the output "
                             "of istft is complex (return_complex=True).")
        out = call("fft_c2c", x, axes=[1], normalization=norm, forward=False)
    else:
        _check(window.dtype.kind != "c", "paddle.signal.istft: the window should not be "
                                         "complex when return_complex is False.")
        if not onesided:
            x = call("crop", x, shape=[x.shape[0], n_fft // 2 + 1, count], offsets=[0, 0, 0])
        out = call("fft_c2r", x, axes=[1], normalization=norm, forward=False,
                   last_dim_size=int(n_fft))
    out = call("overlap_add", out * window, hop_length=hop_length, axis=-1)  # [batch, seq]
    square = call("tile", window * window, repeat_times=[1, count])
    envelope = call("overlap_add", square, hop_length=hop_length, axis=-1)  # [seq]
    seq = out.shape[-1]
    start = n_fft // 2 if center else 0
    stop = (seq - n_fft // 2 if center else seq) if length is None else start + int(length)
    stop = min(stop, seq)
    if start or stop != seq:
        out = call("crop", out, shape=[out.shape[0], stop - start], offsets=[0, start])
        envelope = call("crop", envelope, shape=[stop - start], offsets=[start])
    if isinstance(envelope, Tensor) and envelope.numpy().size and \
            float(abs(envelope.numpy()).min()) < 1e-11:
        raise ValueError("paddle.signal.istft: abort istft because the Nonzero Overlap Add "
                         "(NOLA) condition failed: the summed squared window is ~0 at some "
                         "sample (see scipy.signal.check_NOLA)")
    out = out / envelope
    return call("squeeze", out, axis=[0]) if rank == 2 else out

"""paddle.signal: frame / overlap_add semantics, stft / istft against Paddle 3.3.1 numbers and a
NumPy reference, round trips, gradients and argument errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan import signal

SIN = np.sin(np.arange(12) * 0.7)
HANN6 = np.hanning(6)


def _stft_ref(x, n_fft, hop, window, center=True, pad_mode="reflect", onesided=True):
    if center:
        x = np.pad(x, n_fft // 2, mode=pad_mode)
    count = 1 + (len(x) - n_fft) // hop
    frames = np.stack([x[i * hop:i * hop + n_fft] * window for i in range(count)], -1)
    return np.fft.rfft(frames, axis=0) if onesided else np.fft.fft(frames, axis=0)


def test_frame_and_overlap_add_paddle_examples():
    np.testing.assert_array_equal(
        signal.frame(paddle.arange(8), 4, 2, axis=0).numpy(),
        [[0, 1, 2, 3], [2, 3, 4, 5], [4, 5, 6, 7]])
    assert signal.frame(paddle.zeros([2, 1, 8]), 4, 2).shape == [2, 1, 4, 3]
    assert signal.frame(paddle.zeros([8, 2, 1]), 4, 2, axis=0).shape == [3, 4, 2, 1]
    x1 = paddle.arange(16).reshape([2, 8])
    np.testing.assert_array_equal(signal.overlap_add(x1, hop_length=2, axis=0).numpy(),
                                  [0, 1, 10, 12, 14, 16, 18, 20, 14, 15])
    assert signal.overlap_add(paddle.zeros([2, 1, 8, 2]), 2).shape == [2, 1, 10]
    assert signal.overlap_add(paddle.zeros([2, 8, 1, 2]), 2, axis=0).shape == [10, 1, 2]


def test_frame_errors():
    x = paddle.zeros([6])
    with pytest.raises(ValueError, match="axis: 1"):
        signal.frame(x, 2, 1, axis=1)
    with pytest.raises(ValueError, match="frame_length"):
        signal.frame(x, 0, 1)
    with pytest.raises(ValueError, match="hop_length"):
        signal.frame(x, 2, 1.5)
    with pytest.raises(ValueError, match=r"\(7\) > \(6\)"):
        signal.frame(x, 7, 1)
    with pytest.raises(ValueError, match="overlap_add: x must have at least 2 dims"):
        signal.overlap_add(x, 1)


def test_stft_matches_paddle():
    x = paddle.to_tensor(SIN)
    y = signal.stft(x, n_fft=8, hop_length=3, win_length=6, window=paddle.to_tensor(HANN6))
    assert y.shape == [5, 5] and y.dtype == paddle.complex128
    # Paddle 3.3.1, first and last rows
    np.testing.assert_allclose(y.numpy()[0].real,
                               [1.14573662, 2.01043516, -1.32932757, -0.66822346, 1.72084887],
                               atol=1e-8)
    np.testing.assert_allclose(y.numpy()[1], [-0.56941337 - 0.59511391j,
                                              -1.49289558 - 0.77101231j,
                                              1.25271563 - 0.13139276j,
                                              0.22803836 + 0.90367855j,
                                              -1.23037427 - 0.85489234j], atol=1e-8)
    y2 = signal.stft(x, n_fft=5, hop_length=2, center=False, normalized=True, onesided=False)
    assert y2.shape == [5, 4]
    np.testing.assert_allclose(y2.numpy()[1], [-0.53352823 - 0.16365596j,
                                               0.44526502 - 0.91811386j,
                                               0.68488907 - 0.14844242j,
                                               -0.21244774 + 0.8676532j], atol=1e-8)
    y3 = signal.stft(x, n_fft=4, hop_length=1, pad_mode="constant")
    assert y3.shape == [3, 13]
    np.testing.assert_allclose(y3.numpy()[1, :3], [0.64421769j, -0.64421769 + 0.98544973j,
                                                    -0.98544973 + 0.21899168j], atol=1e-8)


def test_stft_matches_numpy_reference_batched_float32():
    x = np.random.default_rng(0).standard_normal((2, 20)).astype("float32")
    w = np.hanning(8).astype("float32")
    got = signal.stft(paddle.to_tensor(x), 8, 2, window=paddle.to_tensor(w))
    assert got.shape == [2, 5, 11] and got.dtype == paddle.complex64
    want = np.stack([_stft_ref(r, 8, 2, w) for r in x])
    np.testing.assert_allclose(got.numpy(), want, atol=1e-5)


def test_stft_complex_input_is_two_sided():
    x = SIN + 1j * SIN[::-1]
    got = signal.stft(paddle.to_tensor(x), 4, 2)
    assert got.shape == [4, 7]
    np.testing.assert_allclose(got.numpy(), _stft_ref(x, 4, 2, np.ones(4), onesided=False),
                               atol=1e-12)
    with pytest.raises(ValueError, match="onesided should be False"):
        signal.stft(paddle.to_tensor(x), 4, 2, onesided=True)


def test_istft_matches_paddle_and_round_trips():
    x = paddle.to_tensor(SIN)
    w = paddle.to_tensor(HANN6)
    y = signal.stft(x, n_fft=8, hop_length=3, win_length=6, window=w)
    z = signal.istft(y, n_fft=8, hop_length=3, win_length=6, window=w, length=12)
    np.testing.assert_allclose(z.numpy(), SIN, atol=1e-12)
    xs = np.random.default_rng(1).standard_normal((2, 20))
    for kw in (dict(n_fft=6, hop_length=2), dict(n_fft=8, hop_length=2, center=False),
               dict(n_fft=7, hop_length=2), dict(n_fft=6, hop_length=3, normalized=True)):
        back = signal.istft(signal.stft(paddle.to_tensor(xs), **kw), **kw).numpy()
        np.testing.assert_allclose(back, xs[:, :back.shape[1]], atol=1e-12, err_msg=str(kw))
    two = signal.stft(paddle.to_tensor(xs), 6, 2, onesided=False)
    back = signal.istft(two, 6, 2, onesided=False)
    np.testing.assert_allclose(back.numpy(), xs, atol=1e-12)
    back = signal.istft(two, 6, 2, onesided=False, return_complex=True)
    assert back.dtype == paddle.complex128
    np.testing.assert_allclose(back.numpy(), xs, atol=1e-12)


def test_istft_errors():
    y = signal.stft(paddle.to_tensor(SIN), n_fft=8, hop_length=2)
    with pytest.raises(ValueError, match="NOLA"):
        signal.istft(y, 8, 2, window=paddle.zeros([8], dtype="float64"))
    with pytest.raises(AssertionError, match=r"fft_size should be equal to n_fft // 2 \+ 1"):
        signal.istft(y, 10, 2)
    with pytest.raises(ValueError, match="hop_length should be in"):
        signal.istft(y, 8, 9)
    with pytest.raises(ValueError, match="onesided should be False"):
        signal.istft(y, 8, 2, return_complex=True)
    with pytest.raises(ValueError, match="must be a complex64 or complex128"):
        signal.istft(paddle.zeros([5, 3]), 8)
    with pytest.raises(ValueError, match="1D window tensor of size equal to win_length"):
        signal.istft(y, 8, 2, window=paddle.ones([4], dtype="float64"))


def test_stft_errors():
    x = paddle.to_tensor(SIN)
    with pytest.raises(ValueError, match=r"n_fft should be in \(0, seq_length\(12\)\]"):
        signal.stft(x, 13)
    with pytest.raises(ValueError, match=r"win_length should be in \(0, n_fft\(8\)\]"):
        signal.stft(x, 8, win_length=9)
    with pytest.raises(ValueError, match="hop_length should be > 0"):
        signal.stft(x, 8, hop_length=0)
    with pytest.raises(ValueError, match="pad_mode"):
        signal.stft(x, 8, pad_mode="circular")
    with pytest.raises(ValueError, match="1D or 2D"):
        signal.stft(paddle.zeros([2, 2, 8]), 4)


def test_stft_gradient_matches_paddle():
    x = paddle.to_tensor(np.linspace(-1, 1, 10))
    x.stop_gradient = False
    s = signal.stft(x, n_fft=4, hop_length=2)
    (paddle.real(s) ** 2 + 3 * paddle.imag(s)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [-14.22222222, -19.88888889, -14.22222222,
                                                -5.33333333, -1.77777778, 1.77777778,
                                                5.33333333, 18.11111111, 17.77777778,
                                                12.44444444], atol=1e-8)


def test_istft_gradient_finite_differences():
    rng = np.random.default_rng(3)
    spec = rng.standard_normal((3, 5)) + 1j * rng.standard_normal((3, 5))
    spec[0].imag = 0
    spec[-1].imag = 0
    cot = rng.standard_normal(8)

    def loss(re, im):
        return (signal.istft(paddle.complex(re, im), 4, 2) * paddle.to_tensor(cot)).sum()
    re, im = paddle.to_tensor(spec.real), paddle.to_tensor(spec.imag)
    re.stop_gradient = im.stop_gradient = False
    g_re, g_im = paddle.grad([loss(re, im)], [re, im])
    eps = 1e-6
    for g, part in ((g_re, 0), (g_im, 1)):
        want = np.zeros((3, 5))
        for idx in np.ndindex(3, 5):
            vals = []
            for sign in (1, -1):
                arrs = [spec.real.copy(), spec.imag.copy()]
                arrs[part][idx] += sign * eps
                vals.append(float(loss(paddle.to_tensor(arrs[0]),
                                       paddle.to_tensor(arrs[1])).numpy()))
            want[idx] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(g.numpy(), want, atol=1e-6)

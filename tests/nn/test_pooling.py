"""Pooling: composites (avg, adaptive avg, lp, max_unpool) vs NumPy loops and numbers
recorded from Paddle 3.3.1, gradients, layers, extra_repr and argument errors."""
import itertools

import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F

nn = paddle.nn
X25 = np.arange(1, 26, dtype="float32").reshape(1, 1, 5, 5)


def _t(a, grad=False):
    t = paddle.to_tensor(np.asarray(a))
    t.stop_gradient = not grad
    return t


def _ref_avg(x, k, s, p, ceil_mode, exclusive):
    """Loop reference of Paddle's average pooling (2-D, symmetric padding)."""
    n = x.shape[2:]
    out_len = [((m + 2 * p - k + (s - 1 if ceil_mode else 0)) // s) + 1 for m in n]
    out = np.zeros(x.shape[:2] + tuple(out_len))
    for oh, ow in itertools.product(*map(range, out_len)):
        h0, w0 = oh * s - p, ow * s - p
        h1, w1 = min(h0 + k, n[0] + p), min(w0 + k, n[1] + p)
        hs, ws = max(h0, 0), max(w0, 0)
        he, we = min(h1, n[0]), min(w1, n[1])
        total = x[:, :, hs:he, ws:we].sum((2, 3))
        div = (he - hs) * (we - ws) if exclusive else (h1 - h0) * (w1 - w0)
        out[:, :, oh, ow] = total / div
    return out


@pytest.mark.parametrize("k,s,p,ceil,excl", [(3, 2, 1, True, True), (3, 2, 1, True, False),
                                             (2, 2, 0, False, True), (3, 1, 1, False, False),
                                             (4, 3, 2, True, True)])
def test_avg_pool2d_matches_loop_reference(k, s, p, ceil, excl):
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 6))
    got = F.avg_pool2d(_t(x), k, s, p, ceil_mode=ceil, exclusive=excl).numpy()
    np.testing.assert_allclose(got, _ref_avg(x, k, s, p, ceil, excl), rtol=1e-12)


def test_pooling_numbers_recorded_from_paddle():
    x = _t(X25)
    np.testing.assert_allclose(
        F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True).numpy().ravel(),
        [4.0, 5.5, 7.0, 11.5, 13.0, 14.5, 19.0, 20.5, 22.0], rtol=1e-6)
    np.testing.assert_allclose(
        F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, exclusive=False).numpy().ravel(),
        [1.7777778, 3.6666667, 3.1111112, 7.6666665, 13.0, 9.666667, 8.444445, 13.666667,
         9.777778], rtol=1e-6)
    y = _t(np.arange(1, 31, dtype="float32").reshape(1, 1, 5, 6))
    np.testing.assert_allclose(F.adaptive_avg_pool2d(y, [3, 4]).numpy().ravel(),
                               [4.5, 5.5, 7.5, 8.5, 13.5, 14.5, 16.5, 17.5, 22.5, 23.5, 25.5,
                                26.5], rtol=1e-6)
    np.testing.assert_allclose(F.lp_pool2d(x, 2, 2, stride=2, ceil_mode=True).numpy().ravel(),
                               [9.486833, 13.038404, 11.18034, 28.460499, 32.403702, 25.0,
                                30.413813, 33.24154, 25.0], rtol=1e-6)
    out, mask = F.max_pool2d(x, 2, return_mask=True)
    unpooled = F.max_unpool2d(out, mask, 2, output_size=[5, 5]).numpy().ravel()
    want = np.zeros(25)
    want[[6, 8, 16, 18]] = [7, 9, 17, 19]
    np.testing.assert_array_equal(unpooled, want)
    # Paddle rescales with divisor_override: avg * prod(kernel) / divisor_override
    np.testing.assert_allclose(
        F.avg_pool2d(_t(np.arange(1, 17, dtype="float32").reshape(1, 1, 4, 4)), 2, stride=2,
                     padding=[1, 0, 0, 1], divisor_override=1).numpy().ravel(),
        [6.0, 14.0, 30.0, 38.0])


def test_max_pool_window_entirely_in_padding():
    out, mask = F.max_pool2d(_t(X25 - 30), 2, stride=2, padding=1, ceil_mode=True,
                             return_mask=True)
    assert out.shape == [1, 1, 4, 4]
    np.testing.assert_array_equal(mask.numpy()[0, 0, :, 3], [-1, -1, -1, -1])
    assert out.numpy()[0, 0, 3, 3] == np.finfo("float32").min
    np.testing.assert_array_equal(mask.numpy()[0, 0, :3, :3], [[0, 2, 4], [10, 12, 14],
                                                                 [20, 22, 24]])
    x = _t(X25 - 30, True)
    F.max_pool2d(x, 2, stride=2, padding=1, ceil_mode=True).sum().backward()
    want = np.zeros(25, "float32")
    want[[0, 2, 4, 10, 12, 14, 20, 22, 24]] = 1
    np.testing.assert_array_equal(x.grad.numpy().ravel(), want)


def test_max_pool_overlapping_windows_sum_gradients():
    x = _t(np.array([[[1.0, 9.0, 2.0, 3.0]]]), True)
    F.max_pool1d(x, 3, stride=1).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[0, 2, 0, 0]]])


def _num_grad(fn, x0, eps=1e-6):
    out = np.zeros_like(x0)
    for idx in np.ndindex(*x0.shape):
        hi, lo = x0.copy(), x0.copy()
        hi[idx] += eps
        lo[idx] -= eps
        out[idx] = (fn(hi) - fn(lo)) / (2 * eps)
    return out


@pytest.mark.parametrize("name,call", [
    ("avg", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True)),
    ("avg-nhwc", lambda x: F.avg_pool2d(x, 2, 1, "SAME", data_format="NHWC")),
    ("avg-override", lambda x: F.avg_pool2d(x, 2, divisor_override=3)),
    ("avg1d", lambda x: F.avg_pool1d(x.reshape([1, 5, 5]), 3, 2, 1, exclusive=False)),
    ("adaptive-avg", lambda x: F.adaptive_avg_pool2d(x, [2, 3])),
    ("adaptive-avg-global", lambda x: F.adaptive_avg_pool2d(x, 1)),
    ("adaptive-avg3d", lambda x: F.adaptive_avg_pool3d(x.reshape([1, 1, 1, 5, 5]), [1, 3, 2])),
    ("lp", lambda x: F.lp_pool2d(x, 3, 2, stride=2, ceil_mode=True)),
    ("lp1d", lambda x: F.lp_pool1d(x.reshape([1, 5, 5]), 2, 2)),
    ("unpool", lambda x: F.max_unpool2d(x[:, :, :2, :2], paddle.to_tensor(
        np.array([[[[0, 3], [12, 15]]]], "int32")), 2)),
])
def test_composite_gradients(name, call):
    rng = np.random.default_rng(5)
    x0 = rng.uniform(0.5, 1.5, (1, 1, 5, 5))
    cot = None

    def f(arr):
        nonlocal cot
        out = call(_t(arr))
        if cot is None:
            cot = rng.standard_normal(out.shape)
        return float((out.numpy() * cot).sum())
    f(x0)
    x = _t(x0, True)
    (call(x) * _t(cot)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _num_grad(f, x0), rtol=1e-5, atol=1e-7)


def test_adaptive_avg_channel_last_and_none():
    x = np.random.default_rng(6).standard_normal((2, 7, 6, 3))
    got = F.adaptive_avg_pool2d(_t(x), [3, None], data_format="NHWC").numpy()
    want = np.stack([x[:, s:e].mean(1) for s, e in [(0, 3), (2, 5), (4, 7)]], axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_lp_pool_inf_is_max_pool():
    x = _t(X25)
    np.testing.assert_array_equal(F.lp_pool2d(x, float("inf"), 2).numpy(),
                                  F.max_pool2d(x, 2).numpy())


def test_layers_and_repr():
    x = paddle.rand([2, 3, 8, 8])
    layers = [nn.MaxPool2D(2), nn.AvgPool2D(2), nn.LPPool2D(2, 1), nn.AdaptiveMaxPool2D(3,
              return_mask=True), nn.MaxUnPool2D(2), nn.MaxPool1D(3, 2, 1), nn.AvgPool1D(2),
              nn.AdaptiveAvgPool1D(2), nn.LPPool1D(3, 2), nn.AdaptiveAvgPool2D(1)]
    assert [repr(m) for m in layers] == [
        "MaxPool2D(kernel_size=2, stride=None, padding=0)",
        "AvgPool2D(kernel_size=2, stride=None, padding=0)",
        "LPPool2D(norm_type=2.0, kernel_size=1, stride=1, padding=0)",
        "AdaptiveMaxPool2D(output_size=3, return_mask=True)",
        "MaxUnPool2D(output_size=None)",
        "MaxPool1D(kernel_size=3, stride=2, padding=1)",
        "AvgPool1D(kernel_size=2, stride=None, padding=0)",
        "AdaptiveAvgPool1D(output_size=2)",
        "LPPool1D(norm_type=3.0, kernel_size=2, stride=None, padding=0)",
        "AdaptiveAvgPool2D(output_size=1)"]
    out, mask = nn.MaxPool2D(2, return_mask=True)(x)
    assert out.shape == [2, 3, 4, 4] and mask.dtype == paddle.int32
    assert nn.MaxUnPool2D(2)(out, mask).shape == [2, 3, 8, 8]
    assert nn.AdaptiveAvgPool2D(1)(x).shape == [2, 3, 1, 1]
    assert nn.AvgPool3D(2)(paddle.rand([1, 2, 4, 4, 4])).shape == [1, 2, 2, 2, 2]
    assert nn.MaxPool3D(2, data_format="NDHWC")(paddle.rand([1, 4, 4, 4, 2])).shape == [
        1, 2, 2, 2, 2]
    assert nn.AdaptiveMaxPool1D(2)(paddle.rand([1, 2, 5])).shape == [1, 2, 2]
    assert nn.AdaptiveAvgPool3D([1, 2, 2])(paddle.rand([1, 2, 3, 4, 4])).shape == [
        1, 2, 1, 2, 2]


def test_pooling_errors():
    x = paddle.ones([1, 2, 4, 4])
    with pytest.raises(ValueError, match="max_pool2d: return_mask=True needs data_format"):
        F.max_pool2d(x, 2, return_mask=True, data_format="NHWC")
    with pytest.raises(ValueError, match="max_pool2d: x must be a 4-D tensor"):
        F.max_pool2d(paddle.ones([2, 4, 4]), 2)
    with pytest.raises(ValueError, match="avg_pool2d: kernel_size must be >= 1"):
        F.avg_pool2d(x, 0)
    with pytest.raises(ValueError, match="avg_pool2d: kernel_size .* larger than the padded"):
        F.avg_pool2d(x, 5)
    with pytest.raises(ValueError, match="max_pool2d: kernel_size .* larger than the padded"):
        F.max_pool2d(x, 5)
    with pytest.raises(ValueError, match="adaptive_avg_pool2d: output_size must be an int or"):
        F.adaptive_avg_pool2d(x, [1, 2, 3])
    with pytest.raises(ValueError, match="max_unpool2d: data_format must be 'NCHW'"):
        F.max_unpool2d(x, paddle.zeros([1, 2, 4, 4], dtype="int32"), 2, data_format="NHWC")
    with pytest.raises(TypeError, match="max_unpool2d: indices must be an integer tensor"):
        F.max_unpool2d(x, x, 2)
    # indices of a 5x5 input do not fit the default 4x4 output (Paddle: ValueError in 3-D)
    pooled, mask = F.max_pool2d(paddle.rand([1, 1, 5, 5]), 2, return_mask=True)
    with pytest.raises(ValueError, match=r"max_unpool2d: indices must index the output of "
                                         r"spatial size \[4, 4\] \(i.e. be in \[0, 16\)\)"):
        F.max_unpool2d(pooled, mask, 2)
    with pytest.raises(ValueError, match="lp_pool2d: norm_type must be positive"):
        F.lp_pool2d(x, 0, 2)
    with pytest.raises(ValueError, match="max_pool2d: ceil_mode must be False"):
        F.max_pool2d(x, 2, padding="VALID", ceil_mode=True)   # Paddle 3.3.1's rule
    assert F.max_pool2d(x, 2, padding="SAME", ceil_mode=True).shape == \
        F.max_pool2d(x, 2, padding="SAME").shape
    with pytest.raises(TypeError, match="max_pool2d: x must be a floating point tensor"):
        F.max_pool2d(paddle.ones([1, 2, 4, 4], dtype="int64"), 2)

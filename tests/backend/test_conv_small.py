"""The batch-1 convolution kernel (backend/conv_small.py) against a direct float64 loop:
shared-padding-column flat layout (stride 1), window copies (strided), pointwise, scratch
buffers reused across calls, shapes and threads, and the cases it must leave to conv_array."""
import threading

import numpy as np
import pytest

from sampan.backend import conv as C
from sampan.backend import conv_small as S


def _direct(x, w, stride, pads, dilation):
    """Cross-correlation by definition: zero-pad, then sum over channels and kernel taps."""
    pt, pb, pl, pr = pads
    xp = np.pad(x.astype(np.float64), [(0, 0), (0, 0), (pt, pb), (pl, pr)])
    o, c, kh, kw = w.shape
    ho = (xp.shape[2] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    wo = (xp.shape[3] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((x.shape[0], o, ho, wo))
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dilation[0], j * dilation[1]
            win = xp[:, :, r0:r0 + (ho - 1) * stride[0] + 1:stride[0],
                     c0:c0 + (wo - 1) * stride[1] + 1:stride[1]]
            out += np.einsum("nchw,oc->nohw", win, w[:, :, i, j].astype(np.float64))
    return out


CASES = [  # x shape, w shape, stride, pads [top, bottom, left, right], dilation
    ((1, 16, 32, 32), (16, 16, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1]),   # ResNet 3x3
    ((1, 3, 32, 32), (16, 3, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1]),     # the stem
    ((1, 16, 32, 32), (32, 16, 3, 3), [2, 2], [1, 1, 1, 1], [1, 1]),   # strided 3x3
    ((1, 16, 32, 32), (32, 16, 1, 1), [2, 2], [0, 0, 0, 0], [1, 1]),   # strided 1x1
    ((1, 8, 7, 9), (5, 8, 1, 1), [1, 1], [0, 0, 0, 0], [1, 1]),        # pointwise
    ((1, 4, 9, 7), (3, 4, 3, 5), [1, 1], [0, 2, 3, 0], [1, 1]),        # left pad > right
    ((1, 4, 9, 7), (3, 4, 3, 5), [1, 1], [2, 0, 0, 4], [1, 1]),        # right pad only
    ((1, 5, 8, 8), (2, 5, 3, 3), [1, 1], [0, 0, 0, 0], [1, 1]),        # no padding
    ((1, 5, 8, 8), (2, 5, 3, 3), [1, 1], [3, 3, 4, 4], [1, 1]),        # pads > kernel - 1
    ((1, 6, 10, 11), (4, 6, 3, 3), [1, 1], [2, 2, 2, 2], [2, 2]),      # dilated
    ((1, 6, 10, 11), (4, 6, 3, 2), [1, 1], [1, 0, 2, 1], [2, 3]),      # dilated, asymmetric
    ((1, 6, 11, 10), (4, 6, 3, 3), [2, 3], [1, 2, 0, 1], [1, 2]),      # strided, dilated
    ((1, 2, 1, 1), (3, 2, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1]),        # 1x1 input
]


@pytest.mark.parametrize("xs, ws, stride, pads, dilation", CASES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_matches_direct_convolution(xs, ws, stride, pads, dilation, dtype):
    rng = np.random.default_rng(0)
    w = rng.standard_normal(ws).astype(dtype)
    tol = 1e-12 if dtype == "float64" else 2e-5
    for _ in range(3):  # scratch reuse: the border must stay zero, new data must be read
        x = rng.standard_normal(xs).astype(dtype)
        out = S.small_conv2d(x, w, stride, pads, dilation)
        ref = _direct(x, w, stride, pads, dilation)
        assert out is not None and out.dtype == dtype and out.shape == ref.shape
        np.testing.assert_allclose(out, ref, rtol=tol, atol=tol * 10)


def test_result_is_fresh_and_input_untouched():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1, 4, 6, 6))
    w = rng.standard_normal((3, 4, 3, 3))
    keep = x.copy()
    a = S.small_conv2d(x, w, [1, 1], [1, 1, 1, 1], [1, 1])
    b = S.small_conv2d(x * 2, w, [1, 1], [1, 1, 1, 1], [1, 1])
    np.testing.assert_array_equal(x, keep)
    assert not np.shares_memory(a, b)
    np.testing.assert_allclose(b, 2 * a, rtol=1e-12, atol=1e-12)


def test_non_contiguous_input():
    rng = np.random.default_rng(2)
    base = rng.standard_normal((1, 9, 12, 14))
    x = base[:, ::2, 1:11, ::-1]    # strided channels, cropped rows, reversed columns
    w = rng.standard_normal((2, 5, 3, 3))
    np.testing.assert_allclose(S.small_conv2d(x, w, [1, 1], [1, 1, 1, 1], [1, 1]),
                               _direct(x, w, [1, 1], [1, 1, 1, 1], [1, 1]), atol=1e-12)


@pytest.mark.parametrize("args", [
    ((2, 4, 6, 6), "float32", [1, 1, 1, 1]),    # batch 2
    ((1, 4, 6, 6), "float16", [1, 1, 1, 1]),    # not float32/float64
    ((1, 4, 6, 6), "float32", [-1, 0, 1, 1]),   # a cropping pad
])
def test_declines_other_cases(args):
    shape, dtype, pads = args
    x = np.ones(shape, dtype)
    w = np.ones((2, 4, 3, 3), dtype)
    assert S.small_conv2d(x, w, [1, 1], pads, [1, 1]) is None


def test_declines_large_columns(monkeypatch):
    monkeypatch.setattr(S, "_COLS_BYTES", 1000)
    x = np.ones((1, 4, 8, 8), "float32")
    w = np.ones((2, 4, 3, 3), "float32")
    assert S.small_conv2d(x, w, [1, 1], [1, 1, 1, 1], [1, 1]) is None
    assert S.small_conv2d(x, w, [2, 2], [1, 1, 1, 1], [1, 1]) is None
    # conv_array then takes its general kernels and gives the same numbers
    np.testing.assert_allclose(C.conv_array(np, x, w, [1, 1], [1, 1, 1, 1], [1, 1], 1),
                               _direct(x, w, [1, 1], [1, 1, 1, 1], [1, 1]), atol=1e-4)


def test_scratch_is_bounded_and_rebuilt(monkeypatch):
    monkeypatch.setattr(S, "_SCRATCH_BYTES", 20000)
    rng = np.random.default_rng(3)
    for size in (6, 9, 12, 6, 30, 9):   # the cache is dropped and refilled along the way
        x = rng.standard_normal((1, 3, size, size))
        w = rng.standard_normal((2, 3, 3, 3))
        for stride in ([1, 1], [2, 2]):
            np.testing.assert_allclose(S.small_conv2d(x, w, stride, [1, 1, 1, 1], [1, 1]),
                                       _direct(x, w, stride, [1, 1, 1, 1], [1, 1]),
                                       atol=1e-12)
        assert S._LOCAL.nbytes <= 20000 or len(S._LOCAL.bufs) <= 4


def test_threads_do_not_share_scratch():
    rng = np.random.default_rng(4)
    w = rng.standard_normal((8, 6, 3, 3)).astype("float32")
    xs = [rng.standard_normal((1, 6, 16, 16)).astype("float32") for _ in range(4)]
    refs = [_direct(x, w, [1, 1], [1, 1, 1, 1], [1, 1]) for x in xs]
    errors = []

    def work(i):
        for _ in range(200):
            out = S.small_conv2d(xs[i], w, [1, 1], [1, 1, 1, 1], [1, 1])
            if not np.allclose(out, refs[i], atol=1e-4):
                errors.append(i)
                return
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_conv_array_uses_it_at_batch_one(monkeypatch):
    calls = []
    real = C.small_conv2d
    monkeypatch.setattr(C, "small_conv2d", lambda *a: calls.append(1) or real(*a))
    x = np.ones((1, 4, 6, 6), "float32")
    w = np.ones((2, 4, 3, 3), "float32")
    C.conv_array(np, x, w, [1, 1], [1, 1, 1, 1], [1, 1], 1)
    C.conv_array(np, np.ones((2, 4, 6, 6), "float32"), w, [1, 1], [1, 1, 1, 1], [1, 1], 1)
    C.conv_array(np, np.ones((1, 4, 6, 6), "float32"), np.ones((4, 1, 3, 3), "float32"),
                 [1, 1], [1, 1, 1, 1], [1, 1], 4)
    assert calls == [1]


def test_dtypes_never_share_a_buffer():
    rng = np.random.default_rng(5)
    for stride in ([1, 1], [2, 2]):
        for dtype in ("float32", "float64", "float32"):   # same geometry, new dtype
            x = rng.uniform(0.5, 1.5, (1, 2, 7, 7)).astype(dtype)
            w = rng.standard_normal((3, 2, 3, 3)).astype(dtype)
            out = S.small_conv2d(x, w, stride, [1, 1, 1, 1], [1, 1])
            tol = 1e-13 if dtype == "float64" else 1e-5
            np.testing.assert_allclose(out, _direct(x, w, stride, [1, 1, 1, 1], [1, 1]),
                                       rtol=tol, atol=tol)


def test_kernels_of_equal_size_and_other_shapes_never_share_columns():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2, 9, 9))
    for ks in ((3, 3), (1, 9), (9, 1), (3, 3)):   # kh * kw equal, column shapes differ
        w = rng.standard_normal((2, 2) + ks)
        pads = [ks[0] // 2] * 2 + [ks[1] // 2] * 2
        for stride in ([1, 1], [2, 2]):
            np.testing.assert_allclose(S.small_conv2d(x, w, stride, pads, [1, 1]),
                                       _direct(x, w, stride, pads, [1, 1]), atol=1e-12)


def test_equal_column_sizes_of_other_geometries():
    rng = np.random.default_rng(7)
    # 3x3 over 9x9 and 1x9 over 7x9 (no padding) both compute 2 x 9 rows of 63 positions
    for xs, ks in (((1, 2, 9, 9), (3, 3)), ((1, 2, 7, 9), (1, 9)), ((1, 2, 9, 9), (3, 3))):
        x = rng.standard_normal(xs)
        w = rng.standard_normal((2, 2) + ks)
        np.testing.assert_allclose(S.small_conv2d(x, w, [1, 1], [0, 0, 0, 0], [1, 1]),
                                   _direct(x, w, [1, 1], [0, 0, 0, 0], [1, 1]), atol=1e-12)


def test_plans_are_bounded(monkeypatch):
    monkeypatch.setattr(S, "_MAX_ENTRIES", 8)
    rng = np.random.default_rng(8)
    w = rng.standard_normal((2, 3, 1, 1))
    for size in range(1, 30):   # pointwise plans hold no buffer: only the count bounds them
        x = rng.standard_normal((1, 3, size, 2))
        np.testing.assert_allclose(S.small_conv2d(x, w, [1, 1], [0, 0, 0, 0], [1, 1]),
                                   _direct(x, w, [1, 1], [0, 0, 0, 0], [1, 1]), atol=1e-12)
        assert len(S._LOCAL.bufs) <= 8

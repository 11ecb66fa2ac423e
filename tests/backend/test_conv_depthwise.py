"""Depthwise stride-1 kernels (backend/conv_depthwise.py, chosen by backend/conv.py) equal the
im2col reference for any rank, dilation and cropping pads, and give bitwise-equal results on
1 or 2 kernel threads."""
import numpy as np
import pytest

from sampan.backend import conv as C
from sampan.backend import threads
from sampan.backend.window import im2col_array

CASES = [  # x shape, kernel, pads, dilation
    ((3, 5, 9, 8), (3, 3), [1, 1, 1, 1], [1, 1]),
    ((2, 4, 9, 8), (3, 2), [2, 0, 1, -1], [2, 1]),   # dilation, negative (cropping) pad
    ((2, 6, 11), (5,), [2, 2], [1]),                   # 1-d
    ((2, 3, 5, 6, 4), (3, 3, 2), [1, 1, 0, 1, 1, 0], [1, 1, 1]),  # 3-d
]


def _refs(x, w, g, kernel, pads, dilation):
    nd = len(kernel)
    cols = im2col_array(np, x, kernel, [1] * nd, pads, dilation)  # (N, C, *K, *out)
    n, c = x.shape[:2]
    cols = cols.reshape(n, c, int(np.prod(kernel)), -1)
    y = np.einsum("nckp,ck->ncp", cols, w.reshape(c, -1))
    gw = np.einsum("nckp,ncp->ck", cols, g.reshape(n, c, -1))
    return y, gw.reshape((c, 1) + tuple(kernel))


@pytest.mark.parametrize("xs, kernel, pads, dilation", CASES)
def test_depthwise_matches_im2col(xs, kernel, pads, dilation):
    rng = np.random.default_rng(0)
    c, nd = xs[1], len(kernel)
    x = rng.standard_normal(xs)
    w = rng.standard_normal((c, 1) + kernel)
    y = C.conv_array(np, x, w, [1] * nd, pads, dilation, c)
    g = rng.standard_normal(y.shape)
    y_ref, gw_ref = _refs(x, w, g, kernel, pads, dilation)
    np.testing.assert_allclose(y.reshape(y_ref.shape), y_ref, rtol=1e-12, atol=1e-12)
    gw = C.weight_corr_array(np, x, g, kernel, [1] * nd, pads, dilation, c)
    assert gw.shape == w.shape
    np.testing.assert_allclose(gw, gw_ref, rtol=1e-12, atol=1e-12)
    # the depthwise kernels themselves (not a fallback) computed these
    chunks = [(0, xs[0])]
    np.testing.assert_array_equal(
        C.depthwise_shift_conv(np, x, w, pads, dilation, chunks), y)
    np.testing.assert_allclose(
        C.depthwise_shift_weight(np, x, g, kernel, pads, dilation, chunks), gw, rtol=1e-12)


def test_depthwise_threads_bitwise_equal(monkeypatch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 8, 12, 12)).astype("float32")
    w = rng.standard_normal((8, 1, 3, 3)).astype("float32")
    g = rng.standard_normal((6, 8, 12, 12)).astype("float32")
    monkeypatch.setattr(C, "_PAR_FLOPS", 0)
    monkeypatch.setattr(C, "_DEPTHWISE_CHUNK_BYTES", 1)  # one sample per chunk
    outs = []
    for n in (1, 2):
        prev = threads.set_num_workers(n)
        try:
            outs.append((C.conv_array(np, x, w, [1, 1], [1] * 4, [1, 1], 8),
                         C.weight_corr_array(np, x, g, (3, 3), [1, 1], [1] * 4, [1, 1], 8)))
        finally:
            threads.set_num_workers(prev)
    for a, b in zip(*outs):
        assert a.dtype == np.float32
        np.testing.assert_array_equal(a, b)
    y_ref, gw_ref = _refs(x.astype("float64"), w.astype("float64"), g.astype("float64"),
                          (3, 3), [1] * 4, [1, 1])
    np.testing.assert_allclose(outs[0][0].reshape(y_ref.shape), y_ref, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(outs[0][1], gw_ref, rtol=1e-4, atol=1e-3)

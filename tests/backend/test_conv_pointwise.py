"""Pointwise (1x1) convolution kernels: forward, input gradient and weight gradient equal a
direct sum over the strided input positions, for any rank, stride, cropping pads, output
sizes larger than the strided grid, batch chunks on threads; other shapes skip the path."""
import numpy as np
import pytest

from sampan.backend import conv as C
from sampan.backend import threads

CASES = [  # x shape, out channels, stride, pads
    ((2, 5, 7, 6), 3, [1, 1], [0, 0, 0, 0]),
    ((2, 5, 7, 6), 4, [2, 2], [0, 0, 0, 0]),      # odd size, stride 2
    ((3, 4, 9, 8), 2, [3, 2], [0, -2, 0, -1]),    # trailing rows cropped (fit_pads)
    ((2, 3, 11), 4, [2], [0, 0]),                 # 1-d
    ((1, 2, 5, 4, 6), 3, [1, 2, 2], [0, 0, 0, 0, 0, -1]),  # 3-d
]


def _direct(x, w, stride, pads):
    """out[n, o, q] = sum_c w[o, c] x[n, c, q * stride] (positions inside the cropped x)."""
    spatial = x.shape[2:]
    out_len = [(m + pb + pa - 1) // s + 1 for m, s, pb, pa in
               zip(spatial, stride, pads[0::2], pads[1::2])]
    idx = np.ix_(*[np.arange(o) * s for o, s in zip(out_len, stride)])
    xs = x[(slice(None), slice(None)) + idx]
    return np.einsum("oc,nc...->no...", w.reshape(w.shape[:2]), xs)


@pytest.mark.parametrize("xs, o, stride, pads", CASES)
def test_pointwise_matches_direct_sum(xs, o, stride, pads):
    rng = np.random.default_rng(0)
    nd = len(xs) - 2
    x = rng.standard_normal(xs)
    w = rng.standard_normal((o, xs[1]) + (1,) * nd)
    dil = [1] * nd
    assert C._pointwise((1,) * nd, pads, 1)
    y = C.conv_array(np, x, w, stride, pads, dil, 1)
    ref = _direct(x, w, stride, pads)
    assert y.shape == ref.shape and y.flags.c_contiguous
    np.testing.assert_allclose(y, ref, rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(y.shape)
    # adjoint identities: <conv(x), g> = <x, conv_T(g)> = <w, corr(x, g)>
    gx = C.conv_transpose_array(np, g, w, list(xs[2:]), stride, pads, dil, 1)
    gw = C.weight_corr_array(np, x, g, (1,) * nd, stride, pads, dil, 1)
    assert gx.shape == x.shape and gw.shape == w.shape
    inner = float((ref * g).sum())
    np.testing.assert_allclose(float((x * gx).sum()), inner, rtol=1e-10)
    np.testing.assert_allclose(float((w * gw).sum()), inner, rtol=1e-10)
    # the input gradient is zero off the strided grid
    mask = np.ones(x.shape, bool)
    mask[(slice(None), slice(None)) + np.ix_(*[np.arange(m) * s for m, s in
                                               zip(y.shape[2:], stride)])] = False
    assert not gx[mask].any()


def test_pointwise_transpose_with_larger_output_and_float32_threads(monkeypatch):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 8, 5, 5)).astype("float32")
    w = rng.standard_normal((8, 3, 1, 1)).astype("float32")
    # conv2d_transpose 1x1, stride 2, output_padding 1: size 10 > (5 - 1) * 2 + 1
    y = C.conv_transpose_array(np, x, w, [10, 10], [2, 2], [0, 0, 0, 0], [1, 1], 1)
    ref = np.zeros((6, 3, 10, 10), "float32")
    ref[:, :, ::2, ::2] = np.einsum("co,nchw->nohw", w[:, :, 0, 0], x)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)
    monkeypatch.setattr(C, "_PAR_FLOPS", 0)
    monkeypatch.setattr(C, "_COPY_CHUNK_BYTES", 1)  # one sample per chunk
    outs = []
    for n in (1, 2):
        prev = threads.set_num_workers(n)
        try:
            outs.append((C.conv_transpose_array(np, x, w, [10, 10], [2, 2], [0] * 4, [1, 1], 1),
                         C.conv_array(np, ref, w, [2, 2], [0] * 4, [1, 1], 1),
                         C.weight_corr_array(np, ref, x, [1, 1], [2, 2], [0, -1, 0, -1],
                                             [1, 1], 1)))
        finally:
            threads.set_num_workers(prev)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(outs[0][0], ref, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kernel, pads, groups", [
    ((1, 1), [1, 1, 0, 0], 1),     # before-padding reads zeros: general path
    ((1, 1), [0, 1, 0, 0], 1),     # after-padding adds zero rows
    ((1, 1), [0, 0, 0, 0], 2),     # grouped
    ((1, 3), [0, 0, 0, 0], 1),
])
def test_pointwise_path_not_taken(kernel, pads, groups):
    assert not C._pointwise(kernel, pads, groups)

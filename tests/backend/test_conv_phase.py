"""Strided transposed convolutions as one stride-1 convolution per output phase
(backend/conv.py phase_transpose_array) equal matmul + col2im, for any rank, stride, kernel
smaller than the stride (phases no tap reaches), padding and output size."""
import numpy as np
import pytest

from sampan.backend import conv as C

CASES = [  # x (dy) shape, w shape (cin, og, *K), size, stride, pads
    ((4, 16, 8, 8), (16, 7, 3, 3), [16, 16], [2, 2], [1, 1, 1, 1]),
    ((4, 16, 8, 8), (16, 7, 3, 3), [15, 15], [2, 2], [1, 1, 1, 1]),  # odd: trailing cropped
    ((4, 16, 5, 6), (16, 7, 4, 3), [12, 14], [2, 3], [0, 1, 2, 0]),
    ((4, 16, 4, 4), (16, 8, 2, 2), [12, 11], [3, 3], [0, 0, 0, 0]),  # phases with no tap
    ((4, 16, 7), (16, 7, 5), [20], [3], [2, 1]),                     # 1-d
    ((4, 16, 3, 4, 3), (16, 8, 3, 3, 2), [6, 8, 6], [2, 2, 2], [1, 0, 1, 1, 0, 0]),  # 3-d
]


@pytest.mark.parametrize("xs, ws, size, stride, pads", CASES)
def test_phase_transpose_matches_col2im(monkeypatch, xs, ws, size, stride, pads):
    rng = np.random.default_rng(0)
    calls = []
    phase = C.phase_transpose_array
    monkeypatch.setattr(C, "phase_transpose_array", lambda *a: calls.append(1) or phase(*a))
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    dil = [1] * len(size)
    ref = C._matmul_col2im(np, x, w, size, stride, pads, dil, 1)
    got = C.phase_transpose_array(np, x, w, size, stride, pads)
    assert got.shape == ref.shape == (xs[0], ws[1], *size)
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
    # the public entry point takes this path for these shapes (batch >= 4, og >= cin / 2.5)
    np.testing.assert_allclose(C.conv_transpose_array(np, x, w, size, stride, pads, dil, 1),
                               ref, rtol=1e-12, atol=1e-12)
    assert len(calls) == 2


def test_phase_path_skipped_for_batch_1_and_thin_outputs(monkeypatch):
    monkeypatch.setattr(C, "phase_transpose_array", None)  # would fail if called
    rng = np.random.default_rng(3)
    for xs, ws in (((1, 16, 8, 8), (16, 16, 3, 3)), ((4, 32, 8, 8), (32, 4, 3, 3))):
        x, w = rng.standard_normal(xs), rng.standard_normal(ws)
        got = C.conv_transpose_array(np, x, w, [16, 16], [2, 2], [1] * 4, [1, 1], 1)
        np.testing.assert_allclose(
            got, C._matmul_col2im(np, x, w, [16, 16], [2, 2], [1] * 4, [1, 1], 1), rtol=1e-12)


def test_phase_plan_taps_and_pads():
    # kernel 3, stride 2, pad 1: phase 0 uses tap 1, phase 1 taps 2 and 0 (reversed)
    taps, pads = C._phase_plan(8, 16, 3, 2, 1, 0)
    assert list(range(3)[taps]) == [1] and pads == [0, 0]
    taps, pads = C._phase_plan(8, 16, 3, 2, 1, 1)
    assert list(range(3)[taps]) == [2, 0] and pads == [0, 1]
    assert C._phase_plan(4, 12, 2, 3, 0, 2) is None  # kernel 2 < stride 3: no tap

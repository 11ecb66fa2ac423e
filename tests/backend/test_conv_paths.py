"""The stride-1 convolution kernel's three GEMM layouts agree with the im2col reference:
all offsets stacked into one GEMM (small work), one GEMM per offset (batch chunks), and
batch chunks on worker threads (bitwise equal to one thread)."""
import numpy as np
import pytest

from sampan.backend import conv as C
from sampan.backend import threads

CASES = [  # x shape, w shape, pads, dilation
    ((1, 16, 9, 7), (8, 16, 3, 3), [1, 1, 1, 1], [1, 1]),      # 'shift'
    ((2, 16, 6, 5), (4, 16, 3, 2), [0, 2, 1, -1], [2, 1]),     # negative pad, dilation
    ((1, 8, 10, 10), (4, 8, 3, 3), [1, 1, 1, 1], [1, 1]),      # 'stack'
    ((2, 12, 7, 9), (3, 12, 3, 5), [2, 2, 1, 0], [1, 2]),      # 'stack', dilated
    ((1, 20, 11), (3, 20, 4), [2, 1], [1]),                    # 1-d
    ((1, 16, 5, 6, 4), (2, 16, 3, 3, 2), [1, 1, 0, 1, 1, 0], [1, 1, 1]),  # 3-d
]


def _ref(x, w, pads, dilation):
    return C._im2col_conv(np, x, w, [1] * len(dilation), pads, dilation, 1)


@pytest.mark.parametrize("xs, ws, pads, dilation", CASES)
def test_stacked_and_per_offset_match_im2col(monkeypatch, xs, ws, pads, dilation):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    assert C.shift_mode(xs[1], ws[2:], [1] * len(dilation), 1) != "im2col"
    ref = _ref(x, w, pads, dilation)
    stacked = C.conv_array(np, x, w, [1] * len(dilation), pads, dilation, 1)
    monkeypatch.setattr(C, "_CHUNK_BYTES", 0)  # one sample per chunk, one GEMM per offset
    per_offset = C.conv_array(np, x, w, [1] * len(dilation), pads, dilation, 1)
    assert stacked.shape == ref.shape == per_offset.shape
    np.testing.assert_allclose(stacked, ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(per_offset, ref, rtol=1e-12, atol=1e-12)


def test_stacked_path_only_for_small_work():
    x = np.zeros((1, 16, 8, 8), "float32")
    plan = C._ShiftPlan(np, x, [1, 1, 1, 1], (3, 3), (1, 1), "shift")
    assert plan.stacked_bytes(1, 4) == 9 * 16 * 8 * 10 * 4
    assert plan.stacked_bytes(64, 4) > C._CHUNK_BYTES


def test_split_batch_bitwise_equal_across_thread_counts():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 16, 24, 24)).astype("float32")
    w = rng.standard_normal((32, 16, 3, 3)).astype("float32")
    outs = []
    for n in (1, 2):
        prev = threads.set_num_workers(n)
        try:
            outs.append(C.shift_conv_array(np, x, w, [1, 1, 1, 1], (1, 1), "shift", True))
        finally:
            threads.set_num_workers(prev)
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_allclose(outs[0], _ref(x, w, [1, 1, 1, 1], [1, 1]), rtol=1e-4,
                               atol=1e-4)

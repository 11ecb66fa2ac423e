"""The GPU-shaped convolution kernels (backend/cupy_conv.py) equal backend/conv.py's CPU
kernels, run with NumPy as xp (whole batch and batch chunks), and serve the fake device's
convolution ops (so the op tests run them without a GPU)."""
import numpy as np
import pytest

import sampan as paddle
from sampan.backend import conv as C
from sampan.backend import cupy_conv as G
from sampan.backend import fake
from sampan.backend.fake import FakePlace
from tests.backend.device_check import check_entry
from tests.ops.op_db import ENTRIES

CASES = [  # x shape, w shape, stride, pads, dilation, groups
    ((2, 6, 9, 7), (4, 3, 3, 3), [1, 2], [1, 1, 0, 2], [1, 2], 2),     # groups, stride
    ((3, 4, 8), (8, 1, 3), [2], [1, 1], [1], 4),                          # 1-d depthwise x2
    ((1, 16, 9, 7), (8, 16, 3, 3), [1, 1], [1, 1, 1, 1], [1, 1], 1),     # stride 1
    ((2, 16, 6, 5), (4, 16, 3, 2), [1, 1], [0, 2, 1, -1], [2, 1], 1),    # negative pad
    ((2, 3, 5, 6, 4), (2, 3, 3, 3, 2), [2, 1, 1], [1, 1, 0, 1, 1, 0], [1, 1, 1], 1),  # 3-d
    ((2, 4, 7, 7), (4, 1, 3, 3), [2, 2], [1, 1, 1, 1], [1, 1], 4),       # depthwise, stride
    ((3, 5, 4, 4), (6, 5, 1, 1), [1, 1], [0, 0, 0, 0], [1, 1], 1),       # 1x1
]


def _three(mod, x, w, gg, stride, pads, dilation, groups):
    """(conv, weight gradient, transposed conv) by module `mod` (same signatures)."""
    args = (stride, pads, dilation, groups)
    return (mod.conv_array(np, x, w, *args),
            mod.weight_corr_array(np, x, gg, w.shape[2:], *args),
            mod.conv_transpose_array(np, gg, w, list(x.shape[2:]), *args))


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("xs, ws, stride, pads, dilation, groups", CASES)
def test_gpu_kernels_equal_cpu_kernels(monkeypatch, chunked, xs, ws, stride, pads, dilation,
                                       groups):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    out = C.conv_array(np, x, w, stride, pads, dilation, groups)
    gg = rng.standard_normal(out.shape)
    want = _three(C, x, w, gg, stride, pads, dilation, groups)
    if chunked:  # one sample per chunk
        monkeypatch.setattr(G, "COLS_BYTES", 1)
    got = _three(G, x, w, gg, stride, pads, dilation, groups)
    for name, g, r in zip(("conv", "weight grad", "transpose"), got, want):
        assert g.shape == r.shape, name
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-10, err_msg=name)


def test_transpose_output_padding_and_empty():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((2, 3, 4, 4)), rng.standard_normal((3, 2, 3, 3))
    args = ([5 + 4, 10], [2, 2], [1, 1, 1, 0], [1, 1], 1)  # sizes beyond the natural extent
    np.testing.assert_allclose(G.conv_transpose_array(np, x, w, *args),
                               C.conv_transpose_array(np, x, w, *args), atol=1e-12)
    empty = G.conv_array(np, np.zeros((0, 3, 4, 4)), np.zeros((2, 3, 3, 3)), [1, 1],
                         [0, 0, 0, 0], [1, 1], 1)
    assert empty.shape == (0, 2, 2, 2)


def test_chunks_cover_the_batch(monkeypatch):
    monkeypatch.setattr(G, "COLS_BYTES", 100)
    assert G._chunks(5, 40) == [(0, 2), (2, 4), (4, 5)]
    assert G._chunks(3, 1000) == [(0, 1), (1, 2), (2, 3)]


def test_fake_device_runs_the_gpu_kernels(monkeypatch):
    calls = []
    kernels = fake.conv_kernels
    spy = G.SimpleNamespace(**{name: (lambda f, n: lambda *a: calls.append(n) or f(*a))(
        getattr(kernels, name), name) for name in vars(kernels)})
    monkeypatch.setattr(fake, "conv_kernels", spy)
    rng = np.random.default_rng(2)
    x = paddle.to_tensor(rng.standard_normal((2, 3, 6, 6)), place=FakePlace(0),
                         stop_gradient=False)
    w = paddle.to_tensor(rng.standard_normal((4, 3, 3, 3)), place=FakePlace(0),
                         stop_gradient=False)
    y = paddle.nn.functional.conv2d(x, w, padding=1, stride=2)
    y.sum().backward()
    assert {"conv_array", "weight_corr_array", "conv_transpose_array"} <= set(calls)
    assert isinstance(x.grad._data, fake.FakeArray) and isinstance(w.grad._data,
                                                                    fake.FakeArray)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if "conv" in e.name],
                         ids=lambda e: e.name)
def test_conv_ops_on_fake_device_with_cpu_kernels(monkeypatch, entry):
    """backend/conv.py's own kernels stay xp-generic (the fake device without GPU kernels)."""
    monkeypatch.setattr(fake, "conv_kernels", None)
    assert check_entry(entry, FakePlace(0)) > 0

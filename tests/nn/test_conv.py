"""Convolution layers and functional forms: Paddle defaults, extra_repr, padding modes,
argument errors, double grad, and numbers recorded from Paddle 3.3.1."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F
from tests.ops import op_db  # noqa: F401  (gathers the db modules before we import one)
from tests.ops.db.nn_conv import ref_conv, ref_conv_transpose
from tests.static_util import static_guard

nn = paddle.nn


def _t(a, grad=False):
    t = paddle.to_tensor(np.asarray(a))
    t.stop_gradient = not grad
    return t


def test_conv2d_layer_shapes_init_and_repr():
    paddle.seed(3)
    conv = nn.Conv2D(16, 32, 3, padding=1)
    assert conv.weight.shape == [32, 16, 3, 3] and conv.bias.shape == [32]
    # Paddle's default: Normal(0, sqrt(2 / (in_channels * kh * kw))), zero bias
    assert abs(float(conv.weight.numpy().std()) - (2 / 144) ** 0.5) < 0.01
    assert np.all(conv.bias.numpy() == 0)
    assert repr(conv) == "Conv2D(16, 32, kernel_size=[3, 3], padding=1, data_format=NCHW)"
    assert conv(paddle.ones([2, 16, 5, 5])).shape == [2, 32, 5, 5]


def test_extra_repr_matches_paddle():
    layers = [nn.Conv2D(8, 4, 3, stride=2, groups=4, bias_attr=False),
              nn.Conv1D(2, 4, 3, dilation=2, data_format="NLC"),
              nn.Conv3DTranspose(2, 4, 3, output_padding=1, stride=2),
              nn.Conv2DTranspose(4, 2, 2, stride=2),
              nn.Unfold(1), nn.Fold([1, 1], 1)]
    assert [repr(m) for m in layers] == [
        "Conv2D(8, 4, kernel_size=[3, 3], stride=[2, 2], groups=4, data_format=NCHW)",
        "Conv1D(2, 4, kernel_size=[3], dilation=[2], data_format=NLC)",
        "Conv3DTranspose(2, 4, kernel_size=[3, 3, 3], stride=[2, 2, 2], output_padding=1, "
        "data_format=NCDHW)",
        "Conv2DTranspose(4, 2, kernel_size=[2, 2], stride=[2, 2], data_format=NCHW)",
        "Unfold(kernel_size=1, dilation=1, padding=0, stride=1)",
        "Fold(kernel_size=1, dilation=1, padding=0, stride=1)"]
    assert layers[0].bias is None


def test_transposed_layer_weight_shape_and_output_size():
    up = nn.Conv2DTranspose(4, 6, 3, stride=2, padding=1, groups=2)
    assert up.weight.shape == [4, 3, 3, 3]
    x = paddle.ones([1, 4, 3, 3])
    assert up(x).shape == [1, 6, 5, 5]
    assert up(x, output_size=[6, 6]).shape == [1, 6, 6, 6]


@pytest.mark.parametrize("mode,np_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                          ("circular", "wrap")])
def test_padding_mode(mode, np_mode):
    conv = nn.Conv2D(2, 3, 3, padding=1, padding_mode=mode)
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 5))
    got = conv(_t(x.astype("float32"))).numpy()
    padded = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], mode=np_mode)
    want = ref_conv(padded, conv.weight.numpy().astype("float64"),
                    conv.bias.numpy().astype("float64"))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_padding_mode_channel_last():
    conv = nn.Conv1D(2, 3, 3, padding=2, padding_mode="circular", data_format="NLC")
    x = np.random.default_rng(1).standard_normal((2, 5, 2)).astype("float32")
    padded = np.pad(x, [(0, 0), (2, 2), (0, 0)], mode="wrap")
    want = ref_conv(padded, conv.weight.numpy(), conv.bias.numpy(), data_format="NLC")
    np.testing.assert_allclose(conv(_t(x)).numpy(), want, rtol=1e-5, atol=1e-5)


def test_conv_double_grad_matches_finite_differences():
    rng = np.random.default_rng(2)
    x0, w0 = rng.standard_normal((1, 2, 4, 4)), rng.standard_normal((2, 2, 2, 2))

    def grad_norm(w_arr):
        x, w = _t(x0, True), _t(w_arr, True)
        y = F.conv2d(x, w, stride=2, padding=1)
        (gx,) = paddle.grad([(y * y).sum()], [x], create_graph=True)
        return (gx * gx).sum()
    x, w = _t(x0, True), _t(w0, True)
    y = F.conv2d(x, w, stride=2, padding=1)
    (gx,) = paddle.grad([(y * y).sum()], [x], create_graph=True)
    (gw,) = paddle.grad([(gx * gx).sum()], [w])
    eps = 1e-6
    num = np.zeros_like(w0)
    for idx in np.ndindex(*w0.shape):
        hi, lo = w0.copy(), w0.copy()
        hi[idx] += eps
        lo[idx] -= eps
        num[idx] = (float(grad_norm(hi)) - float(grad_norm(lo))) / (2 * eps)
    np.testing.assert_allclose(gw.numpy(), num, rtol=1e-5, atol=1e-6)


def test_conv_transpose_is_adjoint_of_conv():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 4, 7, 6))
    w = rng.standard_normal((6, 2, 3, 2))
    kw = dict(stride=[2, 1], padding=[1, 0, 2, 1], dilation=[1, 2], groups=2)
    y = F.conv2d(_t(x), _t(w), **kw).numpy()
    g = rng.standard_normal(y.shape)
    back = F.conv2d_transpose(_t(g), _t(w), output_size=[7, 6], **kw).numpy()
    np.testing.assert_allclose((y * g).sum(), (x * back).sum(), rtol=1e-10)
    np.testing.assert_allclose(back, ref_conv_transpose(g, w, output_size=[7, 6], **kw),
                               rtol=1e-10, atol=1e-12)


def test_float32_stays_float32():
    x = paddle.ones([1, 2, 4, 4])
    w = paddle.ones([3, 2, 3, 3])
    assert F.conv2d(x, w).dtype == paddle.float32
    assert F.conv2d_transpose(x, paddle.ones([2, 3, 3, 3])).dtype == paddle.float32


def test_unfold_fold_roundtrip_counts_overlaps():
    x = paddle.ones([1, 1, 4, 4])
    cols = F.unfold(x, 2, strides=1)
    assert cols.shape == [1, 4, 9]
    counts = F.fold(cols, [4, 4], 2).numpy()[0, 0]
    np.testing.assert_array_equal(counts, [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2],
                                           [1, 2, 2, 1]])


def test_conv_errors():
    x = paddle.ones([1, 3, 5, 5])
    with pytest.raises(ValueError, match=r"conv2d: x has 3 channels .*expects 4"):
        F.conv2d(x, paddle.ones([2, 2, 3, 3]), groups=2)
    with pytest.raises(ValueError, match="conv2d: data_format must be one of"):
        F.conv2d(x, paddle.ones([2, 3, 3, 3]), data_format="NCL")
    with pytest.raises(ValueError, match="conv2d: padding must be 'SAME', 'VALID'"):
        F.conv2d(x, paddle.ones([2, 3, 3, 3]), padding="FULL")
    with pytest.raises(ValueError, match="batch and channel dims must be"):
        F.conv2d(x, paddle.ones([2, 3, 3, 3]), padding=[[1, 1], [0, 0], [1, 1], [1, 1]])
    with pytest.raises(ValueError, match="conv2d: .*smaller than the dilated kernel"):
        F.conv2d(x, paddle.ones([2, 3, 7, 7]))
    with pytest.raises(ValueError, match="conv2d: x must be a 4-D tensor"):
        F.conv2d(paddle.ones([3, 5, 5]), paddle.ones([2, 3, 3, 3]))
    with pytest.raises(TypeError, match="conv2d: weight has dtype float64"):
        F.conv2d(x, paddle.ones([2, 3, 3, 3], dtype="float64"))
    with pytest.raises(ValueError, match="conv2d: stride must be >= 1"):
        F.conv2d(x, paddle.ones([2, 3, 3, 3]), stride=0)
    with pytest.raises(ValueError, match="conv2d_transpose: output_size .* out of range"):
        F.conv2d_transpose(x, paddle.ones([3, 2, 3, 3]), stride=2, output_size=[20, 20])
    with pytest.raises(ValueError, match="output_padding .* must be smaller than stride"):
        F.conv2d_transpose(x, paddle.ones([3, 2, 3, 3]), output_padding=1)
    with pytest.raises(ValueError, match="fold: x.shape\\[2\\] \\(5\\) must equal"):
        F.fold(paddle.ones([1, 4, 5]), [3, 3], 2)
    with pytest.raises(ValueError, match="unfold: x must be a 4-D tensor"):
        F.unfold(paddle.ones([1, 4, 5]), 2)


def test_layer_errors():
    with pytest.raises(ValueError, match="Conv2D: in_channels \\(3\\) must be divisible"):
        nn.Conv2D(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="Conv2D: padding_mode must be one of"):
        nn.Conv2D(3, 4, 3, padding_mode="mirror")
    with pytest.raises(TypeError, match="padding must be an int when padding_mode"):
        nn.Conv2D(3, 4, 3, padding=[1, 1], padding_mode="reflect")
    with pytest.raises(ValueError, match="Conv1D: data_format must be one of"):
        nn.Conv1D(3, 4, 3, data_format="NCHW")
    with pytest.raises(ValueError, match="Conv2D: out_channels must be a positive int"):
        nn.Conv2D(3, 0, 3)


def test_state_dict_roundtrip_between_layers():
    a, b = nn.Conv2D(2, 3, 3), nn.Conv2D(2, 3, 3)
    b.set_state_dict(a.state_dict())
    x = paddle.rand([1, 2, 5, 5])
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())


def test_static_program_with_unknown_batch_matches_eager():
    from sampan import static
    from sampan.utils import unique_name
    rng = np.random.default_rng(7)
    xv = rng.standard_normal((2, 2, 6, 6))
    w1v, w2v = rng.standard_normal((4, 2, 3, 3)), rng.standard_normal((4, 2, 2, 2))

    def model(x, w1, w2):
        h = F.max_pool2d(F.conv2d(x, w1, padding=1), 2)
        h = F.conv2d_transpose(F.avg_pool2d(h, 2, padding=1), w2, stride=2)
        return (F.adaptive_avg_pool2d(h, [3, 2]) ** 2).mean()
    main, startup = static.Program(), static.Program()
    with unique_name.guard(), static_guard(main, startup):
        x = static.data("x", [-1, 2, 6, 6], "float64")
        w1 = static.create_parameter([4, 2, 3, 3], "float64", name="w1")
        w2 = static.create_parameter([4, 2, 2, 2], "float64", name="w2")
        loss = model(x, w1, w2)
        grads = [g for _, g in static.append_backward(loss)]
    scope = static.Scope()
    scope.set("w1", w1v)
    scope.set("w2", w2v)
    got = static.Executor().run(main, feed={"x": xv}, fetch_list=[loss] + grads, scope=scope)
    w1, w2 = _t(w1v, True), _t(w2v, True)
    model(_t(xv), w1, w2).backward()
    np.testing.assert_allclose(got[1], w1.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[2], w2.grad.numpy(), rtol=1e-10, atol=1e-12)


# --- batch chunks on worker threads (backend/conv.py + backend/threads.py) ----------------

_THREAD_CASES = [  # (x shape, weight shape, conv kwargs): shift, stack, im2col, grouped, 1-D/3-D
    ((6, 16, 9, 8), (8, 16, 3, 3), dict(padding=1)),
    ((6, 4, 9, 8), (8, 4, 3, 7), dict(padding=[1, 3])),
    ((6, 8, 9, 8), (6, 8, 3, 3), dict(stride=2, padding=1)),
    ((6, 8, 9, 8), (6, 4, 3, 3), dict(groups=2, padding=1, dilation=2)),
    ((5, 16, 12), (4, 16, 3), dict(padding=1)),
    ((5, 2, 4, 5, 4), (3, 2, 2, 3, 2), dict(stride=[1, 2, 1])),
]


def _conv_grads(fn, xs, ws, kw, transpose):
    rng = np.random.default_rng(7)
    x = _t(rng.standard_normal(xs).astype("float32"), grad=True)
    w_shape = (ws[1] * kw.get("groups", 1), ws[0] // kw.get("groups", 1)) + ws[2:] \
        if transpose else ws
    w = _t(rng.standard_normal(w_shape).astype("float32"), grad=True)
    out = fn(x, w, **kw)
    (out * _t(rng.standard_normal(out.shape).astype("float32"))).sum().backward()
    return out.numpy(), x.grad.numpy(), w.grad.numpy()


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("xs,ws,kw", _THREAD_CASES)
def test_threaded_kernels_bitwise_equal_unthreaded(monkeypatch, xs, ws, kw, transpose):
    from sampan.backend import threads
    from sampan.backend import conv as nn_conv
    monkeypatch.setattr(nn_conv, "_PAR_FLOPS", 0)  # split every convolution of the batch
    monkeypatch.setattr(nn_conv, "_CHUNK_BYTES", 1)  # one sample per shift chunk
    nd = len(xs) - 2
    fn = getattr(F, f"conv{nd}d" + ("_transpose" if transpose else ""))
    prev = threads.num_workers()
    results = []
    try:
        for workers in (1, 2, 3):
            threads.set_num_workers(workers)
            results.append(_conv_grads(fn, xs, ws, kw, transpose))
    finally:
        threads.set_num_workers(prev)
    for other in results[1:]:
        for a, b in zip(results[0], other):
            assert a.dtype == np.float32 and np.array_equal(a, b)
    # and the chunked result is the convolution (vs the unsplit kernels, to float32 rounding)
    monkeypatch.setattr(nn_conv, "_PAR_FLOPS", 1 << 62)
    for a, b in zip(results[0], _conv_grads(fn, xs, ws, kw, transpose)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_run_parts_order_nesting_errors_and_blas_restore():
    from sampan.backend import threads
    prev = threads.set_num_workers(2)
    try:
        before = threads.blas_num_threads()
        seen = []

        def part(i):
            seen.append(threads.blas_num_threads())
            inner = threads.run_parts(lambda j: (i, j, threads.in_parallel_part()), range(2))
            return i * 10, inner
        res = threads.run_parts(part, range(5))
        assert [r[0] for r in res] == [0, 10, 20, 30, 40]
        assert res[3][1] == [(3, 0, True), (3, 1, True)]  # nested calls run in place
        if before is not None:
            assert set(seen) == {1} and threads.blas_num_threads() == before
        with pytest.raises(ZeroDivisionError):
            threads.run_parts(lambda i: 1 // (i - 3), range(6))
        assert threads.blas_num_threads() == before and not threads.in_parallel_part()
        assert threads.run_parts(lambda i: i, range(3), parallel=False) == [0, 1, 2]
        with pytest.raises(ValueError, match="positive int"):
            threads.set_num_workers(0)
    finally:
        threads.set_num_workers(prev)


def test_blas_threads_nests_and_restores():
    from sampan.backend import threads
    before = threads.blas_num_threads()
    if before is None:
        pytest.skip("no OpenBLAS thread control in this NumPy build")
    with threads.blas_threads(1):
        assert threads.blas_num_threads() == 1
        with threads.blas_threads(3):  # the latest active guard is in force
            assert threads.blas_num_threads() == 3
        assert threads.blas_num_threads() == 1
    assert threads.blas_num_threads() == before
    # overlapping, not nested (as on two Python threads): the remaining guard stays in force
    a, b = threads.blas_threads(1), threads.blas_threads(2)
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert threads.blas_num_threads() == 2
    b.__exit__(None, None, None)
    assert threads.blas_num_threads() == before

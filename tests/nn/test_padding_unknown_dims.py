"""'SAME' padding is an op attr resolved against the run-time shape: a static Program whose
input has unknown (-1) spatial dims computes the eager numbers and gradients (issue #8).

Before the fix the functional layer fell back to (k - 1) // 2 pads for an unknown dim, so a
stride-2 'SAME' convolution or pooling over an even-sized input gave other numbers in static
mode than eagerly.
"""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F

SIZES = [(7, 9), (8, 10)]  # odd and even spatial sizes: SAME pads differ between them
RNG = np.random.default_rng(8)
W = RNG.standard_normal((4, 3, 3, 3)).astype("float32")
B = RNG.standard_normal(4).astype("float32")

CASES = {
    "conv2d-s2": lambda x, w, b: F.conv2d(x, w, b, stride=2, padding="SAME"),
    "conv2d-s2-dilated": lambda x, w, b: F.conv2d(x, w, None, stride=2, padding="same",
                                                  dilation=2),
    "conv2d-nhwc-s2": lambda x, w, b: F.conv2d(
        x.transpose([0, 2, 3, 1]), w, b, stride=2, padding="SAME", data_format="NHWC"),
    "conv2d-valid-s2": lambda x, w, b: F.conv2d(x, w, b, stride=2, padding="VALID"),
    "conv2d-explicit": lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=[1, 0, 2, 1]),
    "max_pool2d-s2": lambda x, w, b: F.max_pool2d(x, 3, stride=2, padding="SAME"),
    "max_pool2d-k2": lambda x, w, b: F.max_pool2d(x, 2, padding="SAME"),
    "avg_pool2d-s2": lambda x, w, b: F.avg_pool2d(x, 3, stride=2, padding="SAME"),
    "avg_pool2d-s2-inclusive": lambda x, w, b: F.avg_pool2d(x, 3, stride=2, padding="SAME",
                                                            exclusive=False),
    "avg_pool2d-pad1-override": lambda x, w, b: F.avg_pool2d(x, 3, stride=2, padding=1,
                                                             divisor_override=4),
    "lp_pool2d-s2": lambda x, w, b: F.lp_pool2d(x * x + 0.5, 2.0, 3, stride=2,
                                                padding="SAME"),
}


@pytest.fixture
def static_mode():
    paddle.enable_static()
    try:
        yield
    finally:
        paddle.disable_static()


def _static_run(fn, feeds, takes_weight):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3, -1, -1], "float32")
        x.stop_gradient = False
        w = paddle.static.data("w", list(W.shape), "float32")
        w.stop_gradient = False
        b = paddle.static.data("b", list(B.shape), "float32")
        y = fn(x, w, b)
        c = paddle.static.data("c", [-1] * len(y.shape), "float32")
        loss = (y * c).sum()
        grads = paddle.static.gradients([loss], [x, w] if takes_weight else [x])
    exe = paddle.static.Executor()
    exe.run(startup)
    fetched = [exe.run(main, feed=feed, fetch_list=[y] + grads) for feed in feeds]
    return main, fetched


def _eager_run(fn, xv, cv, takes_weight):
    x = paddle.to_tensor(xv, stop_gradient=False)
    w = paddle.to_tensor(W, stop_gradient=False)
    y = fn(x, w, paddle.to_tensor(B))
    (y * paddle.to_tensor(cv)).sum().backward()
    return [y.numpy(), x.grad.numpy()] + ([w.grad.numpy()] if takes_weight else [])


@pytest.mark.parametrize("case", sorted(CASES))
def test_unknown_spatial_dims_match_eager(case, static_mode):
    fn = CASES[case]
    takes_weight = case.startswith("conv")
    paddle.disable_static()
    inputs, expected = [], []
    for h, w in SIZES:
        xv = RNG.standard_normal((2, 3, h, w)).astype("float32")
        y = fn(paddle.to_tensor(xv), paddle.to_tensor(W), paddle.to_tensor(B))
        cv = RNG.standard_normal(y.shape).astype("float32")
        inputs.append({"x": xv, "w": W, "b": B, "c": cv})
        expected.append(_eager_run(fn, xv, cv, takes_weight))
    paddle.enable_static()
    _, fetched = _static_run(fn, inputs, takes_weight)
    for want, got in zip(expected, fetched):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_same_stays_an_attr_in_the_program(static_mode):
    main, _ = _static_run(CASES["conv2d-s2"], [], True)
    convs = [op for op in main.global_block().ops if op.type == "conv2d"]
    assert [op.attrs["padding_algorithm"] for op in convs] == ["SAME"]
    main, _ = _static_run(CASES["max_pool2d-s2"], [], False)
    pools = [op for op in main.global_block().ops if op.type == "max_pool2d"]
    assert [op.attrs["padding_algorithm"] for op in pools] == ["SAME"]


def test_same_output_shape_is_unknown_when_input_is(static_mode):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3, -1, 8], "float32")
        y = F.conv2d(x, paddle.static.data("w", [4, 3, 3, 3], "float32"), stride=2,
                     padding="SAME")
        z = F.max_pool2d(x, 3, stride=2, padding="SAME")
    assert list(y.shape) == [-1, 4, -1, 4]
    assert list(z.shape) == [-1, 3, -1, 4]


def test_conv_transpose_same_unknown_dims_forward(static_mode):
    wt = RNG.standard_normal((3, 2, 3, 3)).astype("float32")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3, -1, -1], "float32")
        y = F.conv2d_transpose(x, paddle.static.data("w", list(wt.shape), "float32"),
                               stride=2, padding="SAME")
    exe = paddle.static.Executor()
    for h, w in SIZES:
        xv = RNG.standard_normal((1, 3, h, w)).astype("float32")
        got = exe.run(main, feed={"x": xv, "w": wt}, fetch_list=[y])[0]
        paddle.disable_static()
        want = F.conv2d_transpose(paddle.to_tensor(xv), paddle.to_tensor(wt), stride=2,
                                  padding="SAME").numpy()
        paddle.enable_static()
        np.testing.assert_array_equal(got, want)


def test_ceil_mode_avg_pool_unknown_dims_is_a_clear_error(static_mode):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3, -1, -1], "float32")
        with pytest.raises(ValueError, match="avg_pool2d: ceil_mode=True needs the spatial"):
            F.avg_pool2d(x, 2, ceil_mode=True)


def test_bad_padding_algorithm_names_the_op():
    from sampan.ops.dispatch import call
    x = paddle.ones([1, 1, 4, 4])
    with pytest.raises(ValueError, match="conv2d: padding_algorithm must be one of"):
        call("conv2d", x, paddle.ones([1, 1, 2, 2]), None, padding_algorithm="FULL")
    with pytest.raises(ValueError, match="max_pool2d: padding_algorithm must be one of"):
        call("max_pool2d", x, kernel_size=[2, 2], stride=[2, 2], padding_algorithm="same")


def test_conv_transpose_same_gradient_with_unknown_dims_is_a_clear_error(static_mode):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3, -1, -1], "float32")
        x.stop_gradient = False
        y = F.conv2d_transpose(x, paddle.static.data("w", [3, 2, 3, 3], "float32"),
                               stride=2, padding="SAME")
        with pytest.raises(ValueError, match="conv2d_transpose: the gradient of "
                                             "padding='SAME' needs the input's spatial size"):
            paddle.static.gradients([y.sum()], [x])

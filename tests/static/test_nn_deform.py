"""paddle.static.nn.deform_conv2d: parameters, outputs against Paddle 3.3.1 (old-IR static
Program, CPU), gradients against the eager composite, errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.vision import ops as V
from tests.static_util import static_guard

# Paddle 3.3.1, FLAGS_enable_pir_api=0, static.nn.deform_conv2d on the inputs of _inputs():
# v2 (mask), stride 2, padding 1, groups 2, deformable_groups 2, weight/bias assigned
PD_OUT_SUM, PD_OUT_SQ = -7.053869247436523, 13.54641056060791
PD_OUT0 = [0.1311938762664795, 0.10633081197738647, -0.5092158913612366, -0.4078541100025177,
           -0.24371205270290375, 0.35370582342147827]          # out[0, :, 0, 0]
PD_OUT1 = [0.4584243595600128, 0.3509388864040375, 0.6422750949859619]  # out[1, 5, 2, :]
# v1 (mask None), padding 1, no bias, weight w[:3] repeated twice along the channels
PD_V1_SUM = -35.77073669433594
PD_V1_ROW = [-0.6562609672546387, -0.008089736104011536, -0.052431270480155945,
             0.12023482471704483, -0.41090866923332214]         # out[0, 2, 4, :]


def _inputs():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 4, 5, 5)).astype("float32")
    off = rng.uniform(-1.5, 1.5, (2, 36, 3, 3)).astype("float32")
    mask = rng.uniform(0, 1, (2, 18, 3, 3)).astype("float32")
    w = rng.uniform(-0.5, 0.5, (6, 2, 3, 3)).astype("float32")
    b = rng.uniform(-0.5, 0.5, (6,)).astype("float32")
    off2 = rng.uniform(-1, 1, (2, 18, 5, 5)).astype("float32")
    return x, off, mask, w, b, off2


def _assign(value):
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(value))


def test_v2_matches_paddle_and_creates_named_parameters():
    x, off, mask, w, b, _ = _inputs()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        xs = paddle.static.data("x", [None, 4, 5, 5], "float32")
        os_ = paddle.static.data("offset", [None, 36, 3, 3], "float32")
        ms = paddle.static.data("mask", [None, 18, 3, 3], "float32")
        out = paddle.static.nn.deform_conv2d(
            xs, os_, ms, num_filters=6, filter_size=3, stride=2, padding=1, groups=2,
            deformable_groups=2, weight_attr=_assign(w), bias_attr=_assign(b))
    params = {p.name: list(p.shape) for p in main.all_parameters()}
    assert len(params) == 2 and list(out.shape) == [-1, 6, 3, 3]
    wname = next(n for n in params if n.endswith(".w_0"))
    assert wname.startswith("deformable_conv_") and params[wname] == [6, 2, 3, 3]
    exe = paddle.static.Executor()
    exe.run(startup)
    o, = exe.run(main, feed={"x": x, "offset": off, "mask": mask}, fetch_list=[out])
    np.testing.assert_allclose(o.sum(), PD_OUT_SUM, rtol=1e-5)
    np.testing.assert_allclose((o * o).sum(), PD_OUT_SQ, rtol=1e-5)
    np.testing.assert_allclose(o[0, :, 0, 0], PD_OUT0, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(o[1, 5, 2, :], PD_OUT1, rtol=1e-5, atol=1e-6)


def test_v1_without_mask_or_bias_matches_paddle():
    x, _, _, w, _, off2 = _inputs()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        xs = paddle.static.data("x", [None, 4, 5, 5], "float32")
        os_ = paddle.static.data("offset", [None, 18, 5, 5], "float32")
        out = paddle.static.nn.deform_conv2d(
            xs, os_, None, num_filters=3, filter_size=3, padding=1,
            weight_attr=_assign(w[:3].repeat(2, axis=1)), bias_attr=False)
    assert len(main.all_parameters()) == 1
    exe = paddle.static.Executor()
    exe.run(startup)
    o, = exe.run(main, feed={"x": x, "offset": off2}, fetch_list=[out])
    np.testing.assert_allclose(o.sum(), PD_V1_SUM, rtol=1e-5)
    np.testing.assert_allclose(o[0, 2, 4, :], PD_V1_ROW, rtol=1e-5, atol=1e-6)


def test_static_gradients_equal_eager_composite():
    x, off, mask, w, b, _ = _inputs()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        xs = paddle.static.data("x", [None, 4, 5, 5], "float32")
        os_ = paddle.static.data("offset", [None, 36, 3, 3], "float32")
        ms = paddle.static.data("mask", [None, 18, 3, 3], "float32")
        for v in (xs, os_, ms):
            v.stop_gradient = False
        out = paddle.static.nn.deform_conv2d(
            xs, os_, ms, num_filters=6, filter_size=3, stride=2, padding=1, groups=2,
            deformable_groups=2, weight_attr=_assign(w), bias_attr=_assign(b))
        loss = (out * out).sum()
        grads = paddle.static.gradients([loss], [xs, os_, ms])
    exe = paddle.static.Executor()
    exe.run(startup)
    got = exe.run(main, feed={"x": x, "offset": off, "mask": mask}, fetch_list=grads)
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in (x, off, mask)]
    e = V.deform_conv2d(ts[0], ts[1], paddle.to_tensor(w), paddle.to_tensor(b), stride=2,
                        padding=1, deformable_groups=2, groups=2, mask=ts[2])
    (e * e).sum().backward()
    for g, t in zip(got, ts):
        assert np.abs(t.grad.numpy()).max() > 0
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_default_initializers():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        xs = paddle.static.data("x", [None, 8, 6, 6], "float32")
        os_ = paddle.static.data("offset", [None, 18, 6, 6], "float32")
        paddle.static.nn.deform_conv2d(xs, os_, None, num_filters=64, filter_size=3,
                                       padding=1)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor().run(startup)
        vals = {p.name: np.asarray(scope.find_var(p.name).get_tensor())
                for p in main.all_parameters()}
    w = next(v for n, v in vals.items() if n.endswith(".w_0"))
    bias = next(v for n, v in vals.items() if n.endswith(".b_0"))
    assert abs(w.std() - np.sqrt(2.0 / (9 * 8))) < 0.02  # Normal(0, sqrt(2 / (kh kw C)))
    assert not bias.any()


def test_errors():
    with pytest.raises(Exception, match="static graph mode"):
        paddle.static.nn.deform_conv2d(paddle.ones([1, 2, 4, 4]), paddle.zeros([1, 18, 2, 2]),
                                       None, 2, 3)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        xs = paddle.static.data("x", [None, 4, 5, 5], "float32")
        os_ = paddle.static.data("offset", [None, 18, 3, 3], "float32")
        with pytest.raises(ValueError, match="deform_conv2d: num_filters"):
            paddle.static.nn.deform_conv2d(xs, os_, None, 0, 3)
        with pytest.raises(ValueError, match="divisible by groups"):
            paddle.static.nn.deform_conv2d(xs, os_, None, 6, 3, groups=3)
        with pytest.raises(ValueError, match=r"offset must have shape \[-1, 18, 5, 5\]"):
            paddle.static.nn.deform_conv2d(xs, os_, None, 6, 3, padding=1)
        xi = paddle.static.data("xi", [None, 4, 5, 5], "int32")
        with pytest.raises(TypeError, match="x must be float32 or float64, got int32"):
            paddle.static.nn.deform_conv2d(xi, os_, None, 6, 3)


def test_put_along_axis_takes_indices_longer_than_arr_on_axis():
    """The scatter-add behind take_along_axis's gradient with an unknown batch (Paddle 3.3.1
    gives [[2, 2, 1], [5, 0, 0]])."""
    idx = paddle.to_tensor([[0, 1, 2, 0, 1], [0, 0, 0, 0, 0]])
    out = paddle.put_along_axis(paddle.zeros([2, 3]), idx, paddle.ones([2, 5]), axis=1,
                                reduce="add")
    np.testing.assert_array_equal(out.numpy(), [[2, 2, 1], [5, 0, 0]])

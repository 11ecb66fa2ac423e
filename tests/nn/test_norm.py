"""Normalization functions and layers: running-stat updates vs NumPy, use_global_stats rules,
compute == decompose of the fused OpDefs, layer defaults, state_dict keys (Paddle's), reprs,
train vs eval. OpDef forward/gradients are covered by tests/ops/db/nn_norm.py."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn as nn
import sampan.nn.functional as F
from sampan.ops import REGISTRY
from sampan.ops.dispatch import dispatch
from tests.gradcheck import numeric_grad


def _t(a, grad=False):
    t = paddle.to_tensor(np.asarray(a))
    t.stop_gradient = not grad
    return t


def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _bn_ref(x, mean, var, w, b, eps=1e-5):
    shape = [1, -1] + [1] * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(
        shape) + b.reshape(shape)


def _check_grad(fn, x, atol=1e-6):
    w = np.cos(np.arange(x.size * 4))[:fn(_t(x)).numpy().size].reshape(fn(_t(x)).shape)
    t = _t(x, grad=True)
    (g,) = paddle.grad([(fn(t) * _t(w)).sum()], [t])
    want = numeric_grad(lambda a: float((fn(_t(a)).numpy() * w).sum()), x)
    np.testing.assert_allclose(g.numpy(), want, atol=atol, rtol=1e-5)


# --- functional batch_norm ---------------------------------------------------------------

def test_batch_norm_training_updates_running_stats_like_paddle():
    x = _x((4, 3, 5))
    w, b = _x(3, 1), _x(3, 2)
    rm, rv = _t(np.full(3, 0.5)), _t(np.full(3, 2.0))
    out = F.batch_norm(_t(x), rm, rv, _t(w), _t(b), training=True, momentum=0.8)
    mean, var = x.mean((0, 2)), x.var((0, 2))  # biased batch variance, as Paddle
    np.testing.assert_allclose(out.numpy(), _bn_ref(x, mean, var, w, b), rtol=1e-10)
    np.testing.assert_allclose(rm.numpy(), 0.8 * 0.5 + 0.2 * mean, rtol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.8 * 2.0 + 0.2 * var, rtol=1e-12)
    assert rm.stop_gradient and rv.stop_gradient


@pytest.mark.parametrize("training,use_global,batch_stats", [
    (True, None, True), (True, True, False), (False, False, True), (False, None, False)])
def test_batch_norm_use_global_stats_rule(training, use_global, batch_stats):
    # Paddle: use_global_stats None means `not training`; batch statistics are used (and the
    # running ones updated) exactly when use_global_stats is False
    x = _x((6, 2))
    rm, rv = _t(np.zeros(2)), _t(np.ones(2))
    out = F.batch_norm(_t(x), rm, rv, training=training, use_global_stats=use_global)
    if batch_stats:
        np.testing.assert_allclose(out.numpy().mean(0), 0.0, atol=1e-12)
        assert rm.numpy().any()
    else:
        np.testing.assert_allclose(out.numpy(), x / np.sqrt(1 + 1e-5), rtol=1e-12)
        assert not rm.numpy().any()


def test_batch_norm_channels_last_and_errors():
    x = _x((2, 3, 3, 4))
    rm, rv = _t(np.zeros(4)), _t(np.ones(4))
    out = F.batch_norm(_t(x), rm, rv, training=True, data_format="NHWC")
    want = (x - x.mean((0, 1, 2))) / np.sqrt(x.var((0, 1, 2)) + 1e-5)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9)
    with pytest.raises(ValueError, match=r"batch_norm: running_mean must have shape \[3\]"):
        F.batch_norm(_t(x), rm, rv, training=True)
    with pytest.raises(ValueError, match="batch_norm: data_format must be one of"):
        F.batch_norm(_t(x), rm, rv, data_format="CHWN")
    with pytest.raises(ValueError, match="batch_norm: x must be at least 2-D"):
        F.batch_norm(_t(np.ones(4)), rm, rv)


def test_batch_norm_grad_flows_after_running_stats_update():
    x = _t(_x((4, 3)), grad=True)
    w = _t(np.ones(3), grad=True)
    rm, rv = _t(np.zeros(3)), _t(np.ones(3))
    y = F.batch_norm(x, rm, rv, w, training=True)
    (y * _t(_x((4, 3), 5))).sum().backward()  # running stats were rebound: no version error
    assert x.grad is not None and w.grad is not None


@pytest.mark.parametrize("use_global", [False, True])
def test_batch_norm_compute_equals_decompose(use_global):
    x, rm, rv = _t(_x((3, 2, 4))), _t(_x(2, 1)), _t(np.abs(_x(2, 2)) + 0.5)
    w, b = _t(_x(2, 3)), _t(_x(2, 4))
    attrs = {"momentum": 0.7, "epsilon": 1e-3, "data_format": "NCL",
             "use_global_stats": use_global}
    op = REGISTRY["batch_norm"]
    got = dispatch(op, (x, rm, rv, w, b), attrs)
    want = op.decompose(x, rm, rv, w, b, **attrs)
    for g, v in zip(got, want):
        np.testing.assert_allclose(g.numpy(), v.numpy(), rtol=1e-10, atol=1e-12)


def test_layer_norm_compute_equals_decompose_and_functional():
    x, w, b = _t(_x((2, 3, 4))), _t(_x(12, 1)), _t(_x(12, 2))
    op = REGISTRY["layer_norm"]
    got = dispatch(op, (x, w, b), {"begin_norm_axis": 1, "epsilon": 1e-5})
    want = op.decompose(x, w, b, begin_norm_axis=1, epsilon=1e-5)
    for g, v in zip(got, want):
        np.testing.assert_allclose(g.numpy(), v.numpy(), rtol=1e-10, atol=1e-12)
    a = x.numpy()
    ref = (a - a.mean((1, 2), keepdims=True)) / np.sqrt(a.var((1, 2), keepdims=True) + 1e-5)
    out = F.layer_norm(x, [3, 4], w, b)
    np.testing.assert_allclose(out.numpy(), ref * w.numpy().reshape(3, 4) +
                               b.numpy().reshape(3, 4), rtol=1e-10)
    with pytest.raises(ValueError, match=r"layer_norm: normalized_shape \[3\] must match"):
        F.layer_norm(x, 3)
    with pytest.raises(ValueError, match="layer_norm: weight .* must have 12 elements"):
        F.layer_norm(x, [3, 4], _t(np.ones(4)))


def test_layer_norm_double_grad_of_weight_path():
    # the create_graph path recomputes the statistics from x: check d2/dx2 numerically
    w = _t(_x(4, 3))
    v = _x((3, 4), 4)

    def first_grad(arr):
        t = _t(arr, grad=True)
        (g,) = paddle.grad([(F.layer_norm(t, 4, w) ** 2).sum()], [t], create_graph=True)
        return g
    x = _x((3, 4), 1)
    t = _t(x, grad=True)
    (g,) = paddle.grad([(F.layer_norm(t, 4, w) ** 2).sum()], [t], create_graph=True)
    (gg,) = paddle.grad([(g * _t(v)).sum()], [t])
    want = numeric_grad(lambda a: float((first_grad(a).numpy() * v).sum()), x)
    np.testing.assert_allclose(gg.numpy(), want, atol=1e-5, rtol=1e-4)


# --- other functional norms --------------------------------------------------------------

def test_group_norm_and_instance_norm_match_numpy():
    x = _x((2, 4, 3, 2))
    w, b = _x(4, 1), _x(4, 2)
    g = x.reshape(2, 2, -1)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5))
    ref = ref.reshape(x.shape) * w.reshape(1, 4, 1, 1) + b.reshape(1, 4, 1, 1)
    np.testing.assert_allclose(F.group_norm(_t(x), 2, weight=_t(w), bias=_t(b)).numpy(), ref,
                               rtol=1e-9)
    got = F.group_norm(_t(x.transpose(0, 2, 3, 1)), 2, weight=_t(w), bias=_t(b),
                       data_format="NHWC")
    np.testing.assert_allclose(got.numpy(), ref.transpose(0, 2, 3, 1), rtol=1e-9)
    with pytest.raises(ValueError, match="group_norm: num_groups must be a positive int "
                                         "dividing the number of channels 4"):
        F.group_norm(_t(x), 3)
    ref = (x - x.mean((2, 3), keepdims=True)) / np.sqrt(x.var((2, 3), keepdims=True) + 1e-5)
    ref = ref * w.reshape(1, 4, 1, 1) + b.reshape(1, 4, 1, 1)
    np.testing.assert_allclose(F.instance_norm(_t(x), weight=_t(w), bias=_t(b)).numpy(), ref,
                               rtol=1e-9)
    _check_grad(lambda t: F.group_norm(t, 2, weight=_t(w)), _x((1, 4, 2), 3))


def _lrn_ref(x, size, alpha, beta, k):
    c = x.shape[1]
    out = np.empty_like(x)
    for i in range(c):
        lo, hi = max(0, i - size // 2), min(c, i + (size - 1) // 2 + 1)
        div = (k + alpha / size * (x[:, lo:hi] ** 2).sum(1)) ** beta
        out[:, i] = x[:, i] / div
    return out


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_local_response_norm_matches_numpy(size):
    x = _x((2, 4, 3))
    got = F.local_response_norm(_t(x), size, alpha=0.5, beta=0.75, k=1.5)
    np.testing.assert_allclose(got.numpy(), _lrn_ref(x, size, 0.5, 0.75, 1.5), rtol=1e-10)
    got = F.local_response_norm(_t(x.transpose(0, 2, 1)), size, 0.5, 0.75, 1.5,
                                data_format="NLC")
    np.testing.assert_allclose(got.numpy(), _lrn_ref(x, size, 0.5, 0.75, 1.5).transpose(0, 2, 1),
                               rtol=1e-10)


def test_local_response_norm_grad_and_errors():
    _check_grad(lambda t: F.local_response_norm(t, 3, alpha=0.3), _x((1, 4, 2)))
    with pytest.raises(ValueError, match="local_response_norm: x must be at least 3-D"):
        F.local_response_norm(_t(np.ones((2, 3))), 3)
    with pytest.raises(ValueError, match="local_response_norm: data_format"):
        F.local_response_norm(_t(np.ones((2, 3, 1))), 3, data_format="NC")


def test_normalize_matches_numpy_and_zero_rows():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(F.normalize(_t(x)).numpy(), [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(F.normalize(_t(x), p=1, axis=1).numpy(),
                               [[3 / 7, 4 / 7], [0.0, 0.0]])
    np.testing.assert_allclose(F.normalize(_t(np.array([3.0, 4.0])), axis=0).numpy(),
                               [0.6, 0.8])
    t = _t(x, grad=True)
    F.normalize(t).sum().backward()
    assert np.isfinite(t.grad.numpy()).all()
    _check_grad(lambda a: F.normalize(a, p=3, axis=0), _x((3, 2)))


# --- batch norm layers -------------------------------------------------------------------

def test_batchnorm2d_state_dict_params_and_repr():
    bn = nn.BatchNorm2D(3)
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    assert len(bn.parameters()) == 4  # running stats are non-trainable Parameters
    assert bn._mean.stop_gradient and bn._variance.stop_gradient
    assert not bn.weight.stop_gradient
    np.testing.assert_array_equal(bn.weight.numpy(), 1.0)
    np.testing.assert_array_equal(bn._variance.numpy(), 1.0)
    assert not bn.bias.numpy().any() and not bn._mean.numpy().any()
    assert repr(bn) == "BatchNorm2D(num_features=3, momentum=0.9, epsilon=1e-05)"
    assert repr(nn.BatchNorm1D(2)) == ("BatchNorm1D(num_features=2, momentum=0.9, "
                                       "epsilon=1e-05, data_format=NCL)")
    named = nn.BatchNorm2D(2, name="bn")
    assert named._mean.name == "bn_mean" and named._variance.name == "bn_variance"
    assert list(nn.BatchNorm2D(2, weight_attr=False, bias_attr=False).state_dict()) == [
        "_mean", "_variance"]


def test_batchnorm2d_train_then_eval():
    bn = nn.BatchNorm2D(2, momentum=0.5)
    x = _x((3, 2, 2, 2)).astype("float32")
    out = bn(_t(x)).numpy()
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    np.testing.assert_allclose(out, _bn_ref(x, mean, var, np.ones(2), np.zeros(2)),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn._mean.numpy(), 0.5 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn._variance.numpy(), 0.5 + 0.5 * var, rtol=1e-5)
    bn.eval()
    before = bn._mean.numpy().copy()
    out = bn(_t(x)).numpy()
    np.testing.assert_allclose(out, _bn_ref(x, before, bn._variance.numpy(), np.ones(2),
                                            np.zeros(2)), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(bn._mean.numpy(), before)


def test_batchnorm_layers_check_rank_and_format():
    with pytest.raises(ValueError, match=r"BatchNorm2D: expected 4D input \(got 3D input\)"):
        nn.BatchNorm2D(2)(_t(np.ones((2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="BatchNorm1D: expected 2D or 3D input"):
        nn.BatchNorm1D(2)(_t(np.ones((2, 2, 2, 2), np.float32)))
    with pytest.raises(ValueError, match="BatchNorm3D: data_format must be one of"):
        nn.BatchNorm3D(2, data_format="NCHW")
    with pytest.raises(ValueError, match="BatchNorm2D: num_features must be a positive int"):
        nn.BatchNorm2D(0)
    assert nn.BatchNorm1D(3)(_t(np.ones((4, 3), np.float32))).shape == [4, 3]
    assert nn.BatchNorm3D(3)(_t(np.ones((2, 3, 1, 1, 2), np.float32))).shape == [2, 3, 1, 1, 2]


def test_fluid_batchnorm_act_is_test_and_statistics():
    bn = nn.BatchNorm(3, act="relu")
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    x = _x((4, 3, 2)).astype("float32")
    out = bn(_t(x)).numpy()
    assert (out >= 0).all() and (out == 0).any()
    assert bn._mean.numpy().any()  # training by default: running stats move
    frozen = nn.BatchNorm(3, is_test=True)
    assert not frozen.training
    np.testing.assert_allclose(frozen(_t(x)).numpy(), x / np.sqrt(1 + 1e-5), rtol=1e-5)
    stats = nn.BatchNorm(3, is_test=True, trainable_statistics=True)
    np.testing.assert_allclose(stats(_t(x)).numpy().mean((0, 2)), 0.0, atol=1e-5)
    named = nn.BatchNorm(3, moving_mean_name="mm", moving_variance_name="mv")
    assert named._mean.name == "mm" and named._variance.name == "mv"
    nhwc = nn.BatchNorm(3, data_layout="NHWC")
    assert nhwc(_t(x.transpose(0, 2, 1).copy())).shape == [4, 2, 3]
    with pytest.raises(ValueError, match="BatchNorm: unknown activation"):
        nn.BatchNorm(3, act="nope")


def test_sync_batchnorm_and_convert():
    sync = nn.SyncBatchNorm(3)
    assert repr(sync) == "SyncBatchNorm(num_features=3, momentum=0.9, epsilon=1e-05)"
    assert list(sync.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    model = nn.Sequential(nn.Conv2D(2, 3, 1) if hasattr(nn, "Conv2D") else nn.Identity(),
                          nn.BatchNorm2D(3))
    bn = model[1]
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(converted[1], nn.SyncBatchNorm)
    assert converted[1].weight is bn.weight and converted[1]._mean is bn._mean
    x = _x((2, 3, 2, 2)).astype("float32")
    np.testing.assert_allclose(nn.SyncBatchNorm(3)(_t(x)).numpy(),
                               nn.BatchNorm2D(3)(_t(x)).numpy())


# --- other layers ------------------------------------------------------------------------

def test_layernorm_layer():
    ln = nn.LayerNorm([3, 4])
    assert repr(ln) == "LayerNorm(normalized_shape=[3, 4], epsilon=1e-05)"
    assert list(ln.state_dict()) == ["weight", "bias"] and ln.weight.shape == [12]
    np.testing.assert_array_equal(ln.weight.numpy(), 1.0)
    x = _x((2, 3, 4)).astype("float32")
    ref = (x - x.mean((1, 2), keepdims=True)) / np.sqrt(x.var((1, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln(_t(x)).numpy(), ref, rtol=1e-4, atol=1e-5)
    assert nn.LayerNorm(4, bias_attr=False).bias is None
    assert list(nn.LayerNorm(4, elementwise_affine=False).state_dict()) == []
    assert nn.LayerNorm(4)(_t(x)).shape == [2, 3, 4]


def test_groupnorm_instancenorm_lrn_layers():
    gn = nn.GroupNorm(2, 4)
    assert repr(gn) == "GroupNorm(num_groups=2, num_channels=4, epsilon=1e-05)"
    assert list(gn.state_dict()) == ["weight", "bias"]
    with pytest.raises(ValueError, match=r"GroupNorm: num_channels \(4\) must be divisible"):
        nn.GroupNorm(3, 4)
    assert gn(_t(np.ones((2, 4, 3), np.float32))).shape == [2, 4, 3]
    for cls, shape in ((nn.InstanceNorm1D, (2, 3, 4)), (nn.InstanceNorm2D, (2, 3, 2, 2)),
                       (nn.InstanceNorm3D, (2, 3, 2, 1, 2))):
        layer = cls(3)
        assert list(layer.state_dict()) == ["scale", "bias"]
        assert repr(layer) == f"{cls.__name__}(num_features=3, epsilon=1e-05)"
        x = _x(shape).astype("float32")
        axes = tuple(range(2, len(shape)))
        ref = (x - x.mean(axes, keepdims=True)) / np.sqrt(x.var(axes, keepdims=True) + 1e-5)
        np.testing.assert_allclose(layer(_t(x)).numpy(), ref, rtol=1e-4, atol=1e-5)
        with pytest.raises(ValueError, match=f"{cls.__name__}: expected"):
            layer(_t(np.ones((2, 3), np.float32)))
    assert list(nn.InstanceNorm2D(3, weight_attr=False, bias_attr=False).state_dict()) == []
    with pytest.raises(ValueError, match="InstanceNorm2D: weight_attr and bias_attr must be "
                                         "False together"):
        nn.InstanceNorm2D(3, weight_attr=False)
    lrn = nn.LocalResponseNorm(3)
    assert repr(lrn) == "LocalResponseNorm(size=3, alpha=0.0001, beta=0.75, k=1.0)"
    assert lrn(_t(np.ones((1, 4, 2), np.float32))).shape == [1, 4, 2]


def test_spectral_norm_matches_power_iteration():
    paddle.seed(0)
    sn = nn.SpectralNorm([4, 3], dim=1, power_iters=3)
    assert list(sn.state_dict()) == ["weight_u", "weight_v"]
    assert sn.weight_u.shape == [3] and sn.weight_v.shape == [4]
    assert sn.weight_u.stop_gradient and sn.weight_v.stop_gradient
    u0, v0 = sn.weight_u.numpy().copy(), sn.weight_v.numpy().copy()
    w = _x((4, 3)).astype("float32")
    out = sn(_t(w)).numpy()
    mat, u, v = w.T, u0, v0
    for _ in range(3):
        v = mat.T @ u
        v = v / (np.linalg.norm(v) + 1e-12)
        u = mat @ v
        u = u / (np.linalg.norm(u) + 1e-12)
    np.testing.assert_allclose(out, w / (u @ mat @ v), rtol=1e-5)
    np.testing.assert_array_equal(sn.weight_u.numpy(), u0)  # not updated (as Paddle eager)
    assert repr(sn) == "SpectralNorm()"
    with pytest.raises(ValueError, match="SpectralNorm: input shape"):
        sn(_t(np.ones((3, 4), np.float32)))


def test_spectral_norm_grad_treats_singular_vectors_as_constants():
    paddle.seed(1)
    sn = nn.SpectralNorm([2, 3], power_iters=2, dtype="float64")
    w = _x((2, 3))
    u, v = sn.weight_u.numpy(), sn.weight_v.numpy()
    for _ in range(2):
        v = w.T @ u
        v /= np.linalg.norm(v) + 1e-12
        u = w @ v
        u /= np.linalg.norm(u) + 1e-12
    t = _t(w, grad=True)
    sn(t).sum().backward()
    sigma = u @ w @ v
    want = 1 / sigma - w.sum() / sigma ** 2 * np.outer(u, v)
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-8)

"""Activation functions and layers: composites vs NumPy, OpDef compute == decompose, in-place
variants, random activations, errors, layer reprs/defaults. (OpDef-backed forward and
gradients are covered by tests/ops/db/nn_activation.py.)"""
import numpy as np
import pytest
from scipy import special

import sampan as paddle
import sampan.nn as nn
import sampan.nn.functional as F
from sampan.ops import REGISTRY
from sampan.backend import numpy_ as xp
from sampan.ops import nn_activation
from tests.gradcheck import numeric_grad


def _x(seed=0, shape=(3, 4), lo=0.1, hi=3.0):
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)




def _check_grad(fn, x, **kwargs):
    """Gradient of sum(fn(x) * w) through the tape vs central differences (float64)."""
    w = np.cos(np.arange(np.asarray(fn(paddle.to_tensor(x), **kwargs).numpy()).size))

    def loss(arr):
        out = fn(paddle.to_tensor(arr), **kwargs).numpy().reshape(-1)
        return float((out * w).sum())
    t = paddle.to_tensor(x)
    t.stop_gradient = False
    out = fn(t, **kwargs)
    (out * paddle.to_tensor(w.reshape(out.shape))).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), numeric_grad(loss, x), rtol=1e-5, atol=1e-6)


def _sp(x):
    return np.logaddexp(0, x)


COMPOSITES = [
    ("relu6", {}, lambda x: np.clip(x, 0, 6)),
    ("selu", {}, lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772
                                                          * np.expm1(x))),
    ("celu", {"alpha": 1.5}, lambda x: np.maximum(x, 0) + np.minimum(0, 1.5 * np.expm1(x / 1.5))),
    ("swish", {}, lambda x: x * special.expit(x)),
    ("mish", {}, lambda x: x * np.tanh(_sp(x))),
    ("hardsigmoid", {}, lambda x: np.clip(x * 0.1666667 + 0.5, 0, 1)),
    ("hardsigmoid", {"slope": 0.2, "offset": 0.3}, lambda x: np.clip(x * 0.2 + 0.3, 0, 1)),
    ("hardswish", {}, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ("hardtanh", {"min": -0.5, "max": 2.0}, lambda x: np.clip(x, -0.5, 2.0)),
    ("tanhshrink", {}, lambda x: x - np.tanh(x)),
    ("softsign", {}, lambda x: x / (1 + np.abs(x))),
    ("softshrink", {"threshold": 0.4}, lambda x: np.where(x > 0.4, x - 0.4,
                                                          np.where(x < -0.4, x + 0.4, 0))),
    ("hardshrink", {"threshold": 0.4}, lambda x: np.where(np.abs(x) > 0.4, x, 0)),
    ("log_sigmoid", {}, lambda x: -_sp(-x)),
    ("thresholded_relu", {"threshold": 0.5, "value": 0.1}, lambda x: np.where(x > 0.5, x, 0.1)),
    ("sigmoid", {}, special.expit),
    ("tanh", {}, np.tanh),
]


@pytest.mark.parametrize("name,kwargs,ref", COMPOSITES, ids=[c[0] + str(i) for i, c in
                                                            enumerate(COMPOSITES)])
def test_composite_forward_and_grad(name, kwargs, ref):
    fn = getattr(F, name)
    x = _x()
    np.testing.assert_allclose(fn(paddle.to_tensor(x), **kwargs).numpy(), ref(x), rtol=1e-7,
                               atol=1e-12)
    out32 = fn(paddle.to_tensor(x.astype("float32")), **kwargs)
    assert out32.dtype == paddle.float32
    _check_grad(fn, x, **kwargs)


def test_kink_points_avoided_thresholds_match_paddle():
    # values on the thresholds: Paddle's strict inequalities
    x = paddle.to_tensor([-0.5, 0.5, 1.0, 0.0])
    assert F.hardshrink(x).tolist() == [0.0, 0.0, 1.0, 0.0]
    assert F.thresholded_relu(x).tolist() == [0.0, 0.0, 0.0, 0.0]
    assert F.softshrink(x).tolist() == [0.0, 0.0, 0.5, 0.0]


@pytest.mark.parametrize("op_name", ["relu", "leaky_relu", "elu", "gelu", "silu", "softplus",
                                     "softmax", "log_softmax"])
def test_compute_equals_decompose(op_name):
    op = REGISTRY[op_name]
    assert op.decompose is not None
    x = _x(1, (2, 3, 4))
    attr_sets = {"gelu": [{}, {"approximate": True}], "softplus": [{}, {"beta": 2.0,
                                                                        "threshold": 3.0}],
                 "softmax": [{}, {"axis": 0}, {"axis": 1}],
                 "log_softmax": [{}, {"axis": 0}], "elu": [{}, {"alpha": 0.3}],
                 "leaky_relu": [{}, {"negative_slope": 0.3}]}.get(op_name, [{}])
    for attrs in attr_sets:
        want = op.compute(xp, x, **attrs)
        got = op.decompose(paddle.to_tensor(x), **attrs).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=str(attrs))


def test_decompose_functions_are_sampan_only():
    # decompositions live in the op module and call registered ops only
    assert all(getattr(REGISTRY[n], "decompose", None) for n in
               ("relu", "softmax", "log_softmax"))
    assert "numpy" not in nn_activation.__dict__


def test_softmax_stable_and_dtype_arg():
    x = paddle.to_tensor([[1000.0, 1001.0, 1002.0]])
    out = F.softmax(x)
    assert np.isfinite(out.numpy()).all()
    np.testing.assert_allclose(out.numpy().sum(), 1.0, rtol=1e-6)
    ls = F.log_softmax(x)
    np.testing.assert_allclose(ls.numpy(), special.log_softmax([[0.0, 1.0, 2.0]], axis=-1),
                               rtol=1e-5)
    assert F.softmax(x, dtype="float64").dtype == paddle.float64
    assert F.log_softmax(x, dtype=paddle.float64).dtype == paddle.float64
    with pytest.raises(TypeError, match="softmax: dtype"):
        F.softmax(x, dtype="int32")


def test_softmax_errors():
    with pytest.raises(IndexError, match="softmax: axis 2 is out of range"):
        F.softmax(paddle.ones([2, 3]), axis=2)
    with pytest.raises(TypeError, match="axis must be an int"):
        F.log_softmax(paddle.ones([2, 3]), axis=1.5)
    with pytest.raises(TypeError, match="relu: x must be a floating point"):
        F.relu(paddle.to_tensor([1, 2]))
    with pytest.raises(TypeError, match="gelu: approximate"):
        F.gelu(paddle.ones([2]), approximate="fast")


def test_gelu_string_approximate():
    x = paddle.to_tensor(_x())
    np.testing.assert_array_equal(F.gelu(x, approximate="tanh").numpy(),
                                  F.gelu(x, approximate=True).numpy())
    np.testing.assert_array_equal(F.gelu(x, approximate="none").numpy(), F.gelu(x).numpy())


@pytest.mark.parametrize("name,kwargs", [("relu_", {}), ("elu_", {"alpha": 0.5}),
                                         ("leaky_relu_", {"negative_slope": 0.2}),
                                         ("hardtanh_", {"min": -0.3}), ("softmax_", {"axis": 0}),
                                         ("thresholded_relu_", {"threshold": 0.2}),
                                         ("tanh_", {})])
def test_inplace_variants(name, kwargs):
    x = _x()
    want = getattr(F, name[:-1])(paddle.to_tensor(x), **kwargs).numpy()
    t = paddle.to_tensor(x)
    out = getattr(F, name)(t, **kwargs)
    assert out is t
    np.testing.assert_allclose(t.numpy(), want)


def test_silu_inplace_flag():
    x = _x()
    t = paddle.to_tensor(x)
    out = F.silu(t, inplace=True)
    assert out is t
    np.testing.assert_allclose(t.numpy(), x * special.expit(x))


def test_inplace_refuses_leaf_requiring_grad():
    t = paddle.to_tensor([1.0, -1.0])
    t.stop_gradient = False
    with pytest.raises(ValueError, match="relu_"):
        F.relu_(t)


def test_prelu_modes_and_grad():
    x = _x(2, (2, 3, 2))
    w = np.array([0.1, 0.2, 0.3])
    out = F.prelu(paddle.to_tensor(x), paddle.to_tensor(w)).numpy()
    np.testing.assert_allclose(out, np.where(x > 0, x, w[None, :, None] * x))
    out = F.prelu(paddle.to_tensor(x.transpose(0, 2, 1)), paddle.to_tensor(w),
                  data_format="NLC").numpy()
    np.testing.assert_allclose(out, np.where(x > 0, x, w[None, :, None] * x).transpose(0, 2, 1))
    single = F.prelu(paddle.to_tensor(x), paddle.to_tensor([0.25])).numpy()
    np.testing.assert_allclose(single, np.where(x > 0, x, 0.25 * x))
    xt, wt = paddle.to_tensor(x), paddle.to_tensor(w)
    xt.stop_gradient = wt.stop_gradient = False
    (F.prelu(xt, wt) * 2.0).sum().backward()
    np.testing.assert_allclose(wt.grad.numpy(), 2 * np.where(x > 0, 0, x).sum(axis=(0, 2)))
    np.testing.assert_allclose(xt.grad.numpy(), 2 * np.where(x > 0, 1, w[None, :, None]))


def test_prelu_errors():
    x = paddle.ones([2, 3, 4])
    with pytest.raises(ValueError, match="prelu: weight has 2 values but x .* has 3 channels"):
        F.prelu(x, paddle.to_tensor([0.1, 0.2]))
    with pytest.raises(ValueError, match="prelu: data_format"):
        F.prelu(x, paddle.to_tensor([0.1]), data_format="CHW")
    with pytest.raises(TypeError, match="prelu: weight must be a Tensor"):
        F.prelu(x, 0.1)


def test_rrelu_training_and_eval():
    x = paddle.to_tensor(-np.ones((200,)))
    paddle.seed(3)
    a = F.rrelu(x, 0.1, 0.3).numpy()
    assert np.all((a <= -0.1) & (a >= -0.3)) and np.unique(a).size > 100
    paddle.seed(3)
    np.testing.assert_array_equal(F.rrelu(x, 0.1, 0.3).numpy(), a)
    np.testing.assert_allclose(F.rrelu(x, 0.1, 0.3, training=False).numpy(), -0.2)
    pos = paddle.to_tensor([0.5, 2.0])
    np.testing.assert_array_equal(F.rrelu(pos).numpy(), [0.5, 2.0])
    with pytest.raises(ValueError, match="rrelu: lower must be <= upper"):
        F.rrelu(x, 0.5, 0.2)
    with pytest.raises(ValueError, match="rrelu: upper must be in"):
        F.rrelu(x, 0.5, 1.5)


def test_gumbel_softmax():
    paddle.seed(0)
    x = paddle.to_tensor(np.log(np.array([[0.1, 0.2, 0.7]] * 500)))
    soft = F.gumbel_softmax(x, temperature=0.5)
    np.testing.assert_allclose(soft.numpy().sum(-1), 1.0, rtol=1e-6)
    hard = F.gumbel_softmax(x, hard=True)
    h = hard.numpy()
    assert set(np.unique(h)) <= {0.0, 1.0} and np.all(h.sum(-1) == 1)
    freq = h.mean(0)
    assert abs(freq[2] - 0.7) < 0.08 and abs(freq[0] - 0.1) < 0.05
    t = paddle.to_tensor([[0.1, 0.5, 0.2]])
    t.stop_gradient = False
    (F.gumbel_softmax(t, hard=True) * paddle.to_tensor([[1.0, 2.0, 3.0]])).sum().backward()
    assert t.grad is not None and np.abs(t.grad.numpy()).sum() > 0
    with pytest.raises(ValueError, match="gumbel_softmax: temperature"):
        F.gumbel_softmax(x, temperature=0.0)


def test_maxout_and_glu():
    x = _x(4, (2, 6, 2, 3))
    out = F.maxout(paddle.to_tensor(x), groups=3).numpy()
    np.testing.assert_allclose(out, x.reshape(2, 2, 3, 2, 3).max(axis=2))
    xl = x.transpose(0, 2, 3, 1)
    out = F.maxout(paddle.to_tensor(xl), groups=2, axis=-1).numpy()
    np.testing.assert_allclose(out, xl.reshape(2, 2, 3, 3, 2).max(axis=-1))
    _check_grad(F.maxout, x, groups=3)
    with pytest.raises(ValueError, match="maxout: the channel count 6 .* divisible by groups 4"):
        F.maxout(paddle.to_tensor(x), groups=4)
    y = _x(5, (2, 4))
    np.testing.assert_allclose(F.glu(paddle.to_tensor(y)).numpy(),
                               y[:, :2] * special.expit(y[:, 2:]))
    np.testing.assert_allclose(F.glu(paddle.to_tensor(y), axis=0).numpy(),
                               y[:1] * special.expit(y[1:]))
    _check_grad(F.glu, y)
    with pytest.raises(ValueError, match="glu: the size of x"):
        F.glu(paddle.ones([2, 3]))


def test_parameter_errors():
    x = paddle.ones([2])
    with pytest.raises(ValueError, match="selu: scale must be greater than 1.0"):
        F.selu(x, scale=0.5)
    with pytest.raises(ZeroDivisionError, match="celu: alpha cannot be 0"):
        F.celu(x, alpha=0.0)
    with pytest.raises(ValueError, match="softshrink: threshold"):
        F.softshrink(x, threshold=-1.0)
    with pytest.raises(TypeError, match="leaky_relu: negative_slope must be a float"):
        F.leaky_relu(x, negative_slope="a")


# --- layers ------------------------------------------------------------------------------------

LAYER_REPRS = [
    (nn.ReLU(), "ReLU()"), (nn.ReLU6(), "ReLU6()"),
    (nn.LeakyReLU(), "LeakyReLU(negative_slope=0.01)"),
    (nn.PReLU(), "PReLU(num_parameters=1, data_format=NCHW, init=0.25, dtype=float32)"),
    (nn.RReLU(), "RReLU(lower=0.125, upper=0.3333333333333333, training=True, dtype=float32)"),
    (nn.ELU(), "ELU(alpha=1.0)"), (nn.SELU(), "SELU(scale=1.0507009873554805, "
                                              "alpha=1.6732632423543772)"),
    (nn.CELU(), "CELU(alpha=1.0)"), (nn.GELU(), "GELU(approximate=False)"),
    (nn.GELU(True), "GELU(approximate=True)"), (nn.Silu(), "Silu(inplace=False)"),
    (nn.Swish(), "Swish()"), (nn.Mish(), "Mish()"), (nn.Sigmoid(), "Sigmoid()"),
    (nn.Hardsigmoid(), "Hardsigmoid()"), (nn.Hardswish(), "Hardswish()"),
    (nn.Hardtanh(), "Hardtanh(min=-1.0, max=1.0)"), (nn.Tanh(), "Tanh()"),
    (nn.Tanhshrink(), "Tanhshrink()"), (nn.Softplus(), "Softplus(beta=1, threshold=20)"),
    (nn.Softsign(), "Softsign()"), (nn.Softshrink(), "Softshrink(threshold=0.5)"),
    (nn.Hardshrink(), "Hardshrink(threshold=0.5)"), (nn.LogSigmoid(), "LogSigmoid()"),
    (nn.Softmax(), "Softmax(axis=-1)"), (nn.LogSoftmax(), "LogSoftmax(axis=-1)"),
    (nn.Softmax2D(), "Softmax2D()"), (nn.Maxout(2), "Maxout(groups=2, axis=1)"),
    (nn.ThresholdedReLU(), "ThresholdedReLU(threshold=1.0, value=0.0)"),
    (nn.GLU(), "GLU(axis=-1)"), (nn.Sigmoid(name="s"), "Sigmoid(name=s)"),
    (nn.Softmax(name="x"), "Softmax(axis=-1, name=x)"),
]


@pytest.mark.parametrize("layer,text", LAYER_REPRS, ids=[t for _, t in LAYER_REPRS])
def test_layer_repr(layer, text):
    assert repr(layer) == text


LAYER_VS_FUNCTIONAL = [
    (nn.ReLU(), F.relu, {}), (nn.ReLU6(), F.relu6, {}),
    (nn.LeakyReLU(0.3), F.leaky_relu, {"negative_slope": 0.3}),
    (nn.ELU(0.5), F.elu, {"alpha": 0.5}), (nn.SELU(), F.selu, {}),
    (nn.CELU(2.0), F.celu, {"alpha": 2.0}), (nn.GELU(True), F.gelu, {"approximate": True}),
    (nn.Silu(), F.silu, {}), (nn.Swish(), F.swish, {}), (nn.Mish(), F.mish, {}),
    (nn.Sigmoid(), F.sigmoid, {}), (nn.Hardsigmoid(), F.hardsigmoid, {}),
    (nn.Hardswish(), F.hardswish, {}), (nn.Hardtanh(-2.0, 0.5), F.hardtanh,
                                        {"min": -2.0, "max": 0.5}),
    (nn.Tanh(), F.tanh, {}), (nn.Tanhshrink(), F.tanhshrink, {}),
    (nn.Softplus(2, 5), F.softplus, {"beta": 2, "threshold": 5}),
    (nn.Softsign(), F.softsign, {}), (nn.Softshrink(0.2), F.softshrink, {"threshold": 0.2}),
    (nn.Hardshrink(0.2), F.hardshrink, {"threshold": 0.2}), (nn.LogSigmoid(), F.log_sigmoid, {}),
    (nn.Softmax(1), F.softmax, {"axis": 1}), (nn.LogSoftmax(0), F.log_softmax, {"axis": 0}),
    (nn.Maxout(2), F.maxout, {"groups": 2}),
    (nn.ThresholdedReLU(0.3, 0.1), F.thresholded_relu, {"threshold": 0.3, "value": 0.1}),
    (nn.GLU(1), F.glu, {"axis": 1}),
]


@pytest.mark.parametrize("layer,fn,kwargs", LAYER_VS_FUNCTIONAL,
                         ids=[type(t[0]).__name__ for t in LAYER_VS_FUNCTIONAL])
def test_layer_matches_functional(layer, fn, kwargs):
    x = paddle.to_tensor(_x(6, (2, 4, 3, 2)).astype("float32"))
    np.testing.assert_array_equal(layer(x).numpy(), fn(x, **kwargs).numpy())


def test_prelu_layer_parameter():
    layer = nn.PReLU(3, init=0.1, data_format="NHWC")
    assert list(layer.state_dict().keys()) == ["_weight"]
    assert layer._weight.shape == [3] and not layer._weight.stop_gradient
    np.testing.assert_allclose(layer._weight.numpy(), 0.1)
    x = paddle.to_tensor(-np.ones((1, 2, 2, 3), "float32"))
    np.testing.assert_allclose(layer(x).numpy(), -0.1, rtol=1e-6)
    attr = paddle.ParamAttr(initializer=nn.initializer.Constant(0.5))
    np.testing.assert_allclose(nn.PReLU(weight_attr=attr)._weight.numpy(), 0.5)
    assert nn.PReLU(2)._weight.dtype == paddle.float32
    with pytest.raises(ValueError, match="PReLU: num_parameters"):
        nn.PReLU(0)
    with pytest.raises(ValueError, match="PReLU: data_format"):
        nn.PReLU(data_format="XYZ")


def test_rrelu_layer_train_eval():
    layer = nn.RReLU(0.1, 0.3)
    x = paddle.to_tensor(-np.ones((50,), "float32"))
    assert np.unique(layer(x).numpy()).size > 10
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), -0.2, rtol=1e-6)
    assert "training=False" in repr(layer)
    with pytest.raises(ValueError, match="RReLU: need 0 <= lower <= upper <= 1"):
        nn.RReLU(0.5, 0.1)


def test_softmax2d_layer():
    x = _x(7, (2, 3, 2, 2))
    out = nn.Softmax2D()(paddle.to_tensor(x)).numpy()
    np.testing.assert_allclose(out, special.softmax(x, axis=1))
    out3 = nn.Softmax2D()(paddle.to_tensor(x[0])).numpy()
    np.testing.assert_allclose(out3, special.softmax(x[0], axis=0))
    with pytest.raises(ValueError, match="Softmax2D: x must be 3-D or 4-D"):
        nn.Softmax2D()(paddle.ones([2, 3]))


def test_layer_argument_errors():
    with pytest.raises(TypeError, match="LeakyReLU: negative_slope must be a float"):
        nn.LeakyReLU("0.1")
    with pytest.raises(ValueError, match="Maxout: groups must be a positive int"):
        nn.Maxout(0)
    with pytest.raises(TypeError, match="Softmax: axis must be an int"):
        nn.Softmax(axis=None)
    with pytest.raises(TypeError, match="GELU: approximate"):
        nn.GELU("fast")


def test_layers_have_no_parameters_except_prelu():
    assert nn.ReLU().parameters() == [] and len(nn.PReLU().parameters()) == 1


def test_paddle3_aliases_and_swiglu():
    import inspect
    assert nn.SiLU is nn.Silu and F.logsigmoid is F.log_sigmoid
    x = paddle.to_tensor([[1.0, 2.0, 3.0, 4.0]])
    # values recorded with Paddle 3.3.1
    np.testing.assert_allclose(F.swiglu(x).numpy(), [[2.1931758, 7.046376]], rtol=1e-6)
    np.testing.assert_allclose(F.swiglu(x, x).numpy(), [[0.7310586, 3.523188, 8.573168,
                                                          15.71222]], rtol=1e-6)
    with pytest.raises(ValueError, match="swiglu: .*last dim of x must be even"):
        F.swiglu(paddle.to_tensor([1.0, 2.0, 3.0]))
    assert list(inspect.signature(F.elu_).parameters) == ["x", "alpha", "name"]


@pytest.mark.parametrize("name", ["relu6", "selu", "celu", "hardsigmoid", "hardswish", "hardtanh",
                                  "tanhshrink", "softsign", "softshrink", "hardshrink",
                                  "log_sigmoid", "thresholded_relu", "glu", "swish", "mish",
                                  "swiglu", "prelu", "rrelu", "maxout", "relu", "gelu",
                                  "leaky_relu", "elu", "silu", "softplus", "softmax"])
def test_integer_input_refused_naming_api(name):
    # Paddle registers no integer kernels for these (RuntimeError there; TypeError here)
    x = paddle.to_tensor(np.ones((1, 2, 2, 2), "int64"))
    args = {"prelu": (paddle.to_tensor([0.25]),), "maxout": (2,)}.get(name, ())
    with pytest.raises(TypeError, match=f"^{name}: x must be a floating point tensor"):
        getattr(F, name)(x, *args)

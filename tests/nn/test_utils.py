"""paddle.nn.utils: weight_norm, spectral_norm, parameters_to_vector, vector_to_parameters."""
import numpy as np
import pytest

import sampan as paddle
from sampan.framework.tensor import Parameter
from sampan.nn import utils as U


class _Dense(paddle.nn.Layer):
    """A Linear-like layer (weight [in, out]) that does not depend on nn.Linear."""

    def __init__(self, shape=(3, 5), dtype="float64"):
        super().__init__(dtype=dtype)
        self.weight = self.create_parameter(list(shape), dtype=dtype)
        self.bias = self.create_parameter([shape[-1]], dtype=dtype, is_bias=True)

    def forward(self, x):
        w = paddle.reshape(self.weight, [x.shape[-1], -1])
        return paddle.matmul(x, w) + paddle.sum(self.bias)


def _rng_weight(layer, shape, seed=0):
    value = np.random.default_rng(seed).standard_normal(shape)
    layer.weight.set_value(value)
    return value


# ------------------------------------------------------------------ weight_norm
@pytest.mark.parametrize("shape,dim,g_shape", [((3, 5), 0, [3]), ((3, 5), 1, [5]),
                                               ((3, 5), None, []), ((4, 2, 3), 1, [2]),
                                               ((4, 2, 3), -1, []), ((4, 2, 3), -2, [2])])
def test_weight_norm_reparameterizes(shape, dim, g_shape):
    layer = _Dense(shape)
    w = _rng_weight(layer, shape)
    assert U.weight_norm(layer, dim=dim) is layer
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight_v", "weight_g"]
    assert list(layer.state_dict()) == ["bias", "weight_v", "weight_g"]
    assert layer.weight_g.shape == g_shape and layer.weight_v.shape == list(shape)
    np.testing.assert_allclose(layer.weight.numpy(), w, rtol=1e-10)
    np.testing.assert_array_equal(layer.weight_v.numpy(), w)
    if dim in (None, -1):
        np.testing.assert_allclose(float(layer.weight_g), np.sqrt((w ** 2).sum()), rtol=1e-12)
    else:
        axes = tuple(a for a in range(len(shape)) if a != dim % len(shape))
        np.testing.assert_allclose(layer.weight_g.numpy(), np.sqrt((w ** 2).sum(axes)),
                                   rtol=1e-12)


def test_weight_norm_hook_recomputes_and_gradients_reach_g_and_v():
    layer = _Dense((3, 4))
    U.weight_norm(layer, dim=0)
    with paddle.no_grad():
        layer.weight_g.set_value(np.array([1.0, 2.0, 3.0]))
    x = paddle.ones([2, 3], dtype="float64")
    out = layer(x)
    v = layer.weight_v.numpy()
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)
    np.testing.assert_allclose(layer.weight.numpy(), unit * np.array([[1.0], [2.0], [3.0]]),
                               rtol=1e-12)
    out.sum().backward()
    # d sum(x @ w) / d g_i = 2 * sum_j unit_ij (x is ones with 2 rows)
    np.testing.assert_allclose(layer.weight_g.grad.numpy(), 2 * unit.sum(1), rtol=1e-10)
    assert layer.weight_v.grad.shape == [3, 4]


def test_remove_weight_norm_restores_a_parameter():
    layer = _Dense((3, 5))
    w = _rng_weight(layer, (3, 5))
    U.weight_norm(layer)
    U.remove_weight_norm(layer)
    assert list(layer.state_dict()) == ["bias", "weight"]
    assert isinstance(layer.weight, Parameter)
    assert not layer.weight.stop_gradient
    np.testing.assert_allclose(layer.weight.numpy(), w, rtol=1e-10)
    assert len(layer._forward_pre_hooks) == 0
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in _Dense"):
        U.remove_weight_norm(layer)


def test_weight_norm_errors():
    layer = _Dense((3, 5))
    U.weight_norm(layer)
    with pytest.raises(RuntimeError, match="two weight_norm hooks on the same parameter"):
        U.weight_norm(layer)
    with pytest.raises(ValueError, match="has no parameter 'kernel'"):
        U.weight_norm(_Dense(), name="kernel")
    with pytest.raises(ValueError, match=r"dim must be in \[-2, 2\)"):
        U.weight_norm(_Dense(), dim=2)


# ------------------------------------------------------------------ spectral_norm
def test_spectral_norm_converges_to_unit_sigma():
    paddle.seed(0)
    layer = _Dense((6, 4))
    w = _rng_weight(layer, (6, 4), seed=1)
    assert U.spectral_norm(layer, dim=0, n_power_iterations=2) is layer
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight_orig"]
    assert list(layer.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert layer.weight_u.shape == [6] and layer.weight_v.shape == [4]
    x = paddle.ones([1, 6], dtype="float64")
    for _ in range(30):
        layer(x)
    sigma = np.linalg.svd(w, compute_uv=False)[0]
    np.testing.assert_allclose(layer.weight.numpy(), w / sigma, rtol=1e-8)
    layer(x).sum().backward()
    assert layer.weight_orig.grad.shape == [6, 4]


def test_spectral_norm_eval_does_not_iterate_and_dim_1():
    paddle.seed(1)
    layer = _Dense((3, 5))
    U.spectral_norm(layer, dim=1)
    assert layer.weight_u.shape == [5] and layer.weight_v.shape == [3]
    u0 = layer.weight_u.numpy().copy()
    layer.eval()
    layer(paddle.ones([1, 3], dtype="float64"))
    np.testing.assert_array_equal(layer.weight_u.numpy(), u0)
    layer.train()
    layer(paddle.ones([1, 3], dtype="float64"))
    assert not np.array_equal(layer.weight_u.numpy(), u0)
    np.testing.assert_allclose(np.linalg.norm(layer.weight_u.numpy()), 1.0, rtol=1e-12)


def test_spectral_norm_default_dim_for_linear():
    if not hasattr(paddle.nn, "Linear"):
        pytest.skip("paddle.nn.Linear is not available yet")
    layer = U.spectral_norm(paddle.nn.Linear(3, 4))
    assert layer.weight_u.shape == [4] and layer.weight_v.shape == [3]


def test_spectral_norm_errors():
    with pytest.raises(ValueError, match="n_power_iterations to be a positive int"):
        U.spectral_norm(_Dense(), n_power_iterations=0)
    layer = U.spectral_norm(_Dense())
    with pytest.raises(RuntimeError, match="two spectral_norm hooks"):
        U.spectral_norm(layer)
    with pytest.raises(ValueError, match=r"dim must be in \[0, 2\)"):
        U.spectral_norm(_Dense(), dim=3)


# ------------------------------------------------------------------ vector <-> parameters
def test_parameters_to_vector_and_back():
    layer = _Dense((2, 3))
    _rng_weight(layer, (2, 3))
    vec = U.parameters_to_vector(layer.parameters())
    expected = np.concatenate([layer.weight.numpy().ravel(), layer.bias.numpy()])
    np.testing.assert_array_equal(vec.numpy(), expected)
    assert vec.shape == [9] and vec.stop_gradient is False and vec.grad is None
    weight = layer.weight
    U.vector_to_parameters(paddle.arange(10, dtype="float64"), layer.parameters())
    assert layer.weight is weight and layer.weight.shape == [2, 3]
    assert layer.weight.numpy().ravel().tolist() == [0, 1, 2, 3, 4, 5]
    assert layer.bias.tolist() == [6, 7, 8] and not layer.bias.stop_gradient


def test_parameters_to_vector_does_not_backprop_into_parameters():
    layer = _Dense((2, 3))
    vec = U.parameters_to_vector(layer.parameters())
    (vec * 2).sum().backward()
    assert layer.weight.grad is None
    np.testing.assert_array_equal(vec.grad.numpy(), np.full(9, 2.0))


def test_vector_parameter_errors():
    layer = _Dense((2, 3))
    with pytest.raises(ValueError, match=r"total_elements of vec \(3\) should be equal to or "
                                         r"larger than .* \(9\)"):
        U.vector_to_parameters(paddle.ones([3]), layer.parameters())
    with pytest.raises(ValueError, match="vec must be 1-D"):
        U.vector_to_parameters(paddle.ones([3, 3]), layer.parameters())
    with pytest.raises(TypeError, match=r"parameters\[0\] must be a Tensor"):
        U.parameters_to_vector([1.0])
    with pytest.raises(ValueError, match="must not be empty"):
        U.parameters_to_vector([])


def test_public_names():
    assert set(U.__all__) == {"weight_norm", "remove_weight_norm", "spectral_norm",
                              "parameters_to_vector", "vector_to_parameters",
                              "clip_grad_norm_", "clip_grad_value_"}

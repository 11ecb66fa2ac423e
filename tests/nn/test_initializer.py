"""paddle.nn.initializer: in-place fills, Paddle's fan rules and formulas, errors."""
import math

import numpy as np
import pytest

import sampan as paddle
from sampan.framework.tensor import Parameter
from sampan.nn import initializer as I


def _p(shape, dtype="float32"):
    return Parameter(np.zeros(shape, dtype=np.dtype(dtype)))


@pytest.mark.parametrize("init", [I.Constant(1.0), I.Normal(), I.Uniform(), I.XavierUniform(),
                                  I.XavierNormal(), I.KaimingNormal(), I.KaimingUniform(),
                                  I.TruncatedNormal(), I.Orthogonal(),
                                  I.Assign(np.ones((3, 4)))])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_fills_in_place_keeping_identity_dtype_and_grad_state(init, dtype):
    p = _p([3, 4], dtype)
    data_before = p._data
    out = init(p)
    assert out is p and p.dtype.name == dtype and p.shape == [3, 4]
    assert p._data is not data_before and p.stop_gradient is False and p.grad is None
    assert np.isfinite(p.numpy().astype(np.float64)).all()
    assert p._node is None


def test_bfloat16_and_plain_tensor():
    p = paddle.zeros([2, 3], dtype="bfloat16")
    I.XavierUniform()(p)
    assert p.dtype == paddle.bfloat16 and float(p.astype("float32").abs().sum()) > 0
    t = paddle.zeros([4])
    assert I.Constant(2.5)(t) is t and t.tolist() == [2.5] * 4


def test_constant_keeps_integer_dtype():
    p = paddle.zeros([2], dtype="int64")
    I.Constant(3)(p)
    assert p.dtype == paddle.int64 and p.tolist() == [3, 3]


def test_seed_reproducible():
    paddle.seed(7)
    a = I.XavierNormal()(_p([4, 5])).numpy()
    paddle.seed(7)
    b = I.XavierNormal()(_p([4, 5])).numpy()
    c = I.XavierNormal()(_p([4, 5])).numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(b, c)


def test_legacy_fixed_seed_ignores_global_generator():
    a = I.NormalInitializer(loc=1.0, scale=2.0, seed=11)(_p([5])).numpy()
    paddle.seed(123)
    b = I.NormalInitializer(loc=1.0, scale=2.0, seed=11)(_p([5])).numpy()
    np.testing.assert_array_equal(a, b)


def test_normal_and_uniform_statistics():
    paddle.seed(0)
    p = I.Normal(mean=2.0, std=0.5)(_p([20000]))
    assert abs(float(p.mean()) - 2.0) < 0.02 and abs(float(p.std()) - 0.5) < 0.02
    p = I.Uniform(low=-0.5, high=3.0)(_p([20000])).numpy()
    assert p.min() >= -0.5 and p.max() < 3.0 and abs(p.mean() - 1.25) < 0.05


def _truncnorm_moments(alpha, beta, mean=0.0, std=1.0):
    pdf = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    mass = cdf(beta) - cdf(alpha)
    shift = (pdf(alpha) - pdf(beta)) / mass
    var = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / mass - shift ** 2
    return mean + std * shift, std * math.sqrt(var)


def test_truncated_normal_bounds_and_spread():
    paddle.seed(0)
    p = I.TruncatedNormal(mean=1.0, std=2.0, a=0.0, b=3.0)(_p([20000], "float64")).numpy()
    assert p.min() >= 0.0 and p.max() <= 3.0
    # N(1, 2^2) truncated to [0, 3] (alpha=-0.5, beta=1): mean and std from the closed form.
    mean, std = _truncnorm_moments(-0.5, 1.0, 1.0, 2.0)
    assert abs(p.mean() - mean) < 0.02 and abs(p.std() - std) < 0.02
    q = I.TruncatedNormal()(_p([20000])).numpy()
    assert q.min() >= -2 and q.max() <= 2
    assert abs(q.std() - _truncnorm_moments(-2, 2)[1]) < 0.02


@pytest.mark.parametrize("shape,fans", [([], (1, 1)), ([7], (7, 7)), ([30, 50], (30, 50)),
                                        ([8, 3, 5, 5], (75, 200)), ([6, 4, 3], (12, 18))])
def test_compute_fans_paddle_rule(shape, fans):
    assert I.XavierUniform()._compute_fans(_p(shape)) == fans


def test_xavier_formulas():
    paddle.seed(1)
    w = I.XavierUniform()(_p([100, 300])).numpy()
    limit = math.sqrt(6.0 / 400)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    w = I.XavierUniform(fan_in=10, fan_out=14, gain=2.0)(_p([100, 300])).numpy()
    assert np.abs(w).max() <= 2 * math.sqrt(6.0 / 24) and np.abs(w).max() > 1.9 * math.sqrt(0.25)
    w = I.XavierNormal()(_p([64, 16, 3, 3])).numpy()
    assert abs(w.std() - math.sqrt(2.0 / (16 * 9 + 64 * 9))) < 0.003


def test_kaiming_formulas():
    paddle.seed(2)
    w = I.KaimingNormal()(_p([32, 16, 3, 3])).numpy()  # fan_in = 144, gain sqrt(2)
    assert abs(w.std() - math.sqrt(2.0) / 12) < 0.004
    w = I.KaimingUniform()(_p([200, 300])).numpy()
    limit = math.sqrt(2.0) * math.sqrt(3.0 / 200)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    w = I.KaimingUniform(fan_in=8, nonlinearity="leaky_relu", negative_slope=0.2)(
        _p([200, 300])).numpy()
    limit = math.sqrt(2.0 / 1.04) * math.sqrt(3.0 / 8)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    w = I.KaimingNormal(mode="fan_out")(_p([40, 400])).numpy()  # fan = 400
    assert abs(w.std() - math.sqrt(2.0 / 400)) < 0.002


def test_empty_parameters_are_fine():
    for init in (I.XavierUniform(), I.KaimingNormal(), I.Orthogonal(), I.Normal()):
        p = init(_p([0, 3]))
        assert p.shape == [0, 3]


def test_orthogonal():
    paddle.seed(3)
    w = I.Orthogonal()(_p([3, 5], "float64")).numpy()
    np.testing.assert_allclose(w @ w.T, np.eye(3), atol=1e-12)
    w = I.Orthogonal(gain=2.0)(_p([6, 2, 2], "float64")).numpy().reshape(6, 4)
    np.testing.assert_allclose(w.T @ w, 4 * np.eye(4), atol=1e-12)
    w = I.Orthogonal()(_p([4, 4])).numpy()
    np.testing.assert_allclose(w @ w.T, np.eye(4), atol=1e-5)


def test_dirac_matches_paddle():
    w = I.Dirac(groups=2)(_p([4, 2, 3])).numpy()
    expected = np.zeros((4, 2, 3), np.float32)
    for o, i in ((0, 0), (1, 1), (2, 0), (3, 1)):
        expected[o, i, 1] = 1
    np.testing.assert_array_equal(w, expected)
    w = I.Dirac()(_p([2, 3, 3, 3])).numpy()
    assert w.sum() == 2 and w[0, 0, 1, 1] == 1 and w[1, 1, 1, 1] == 1


def test_bilinear_matches_paddle():
    w = I.Bilinear()(_p([1, 1, 4, 4])).numpy()
    expected = [[0.0625, 0.28125, 0.375, 0.15625], [0.1875, 0.65625, 0.75, 0.21875],
                [0.1875, 0.46875, 0.375, 0.09375], [0.0625, 0.09375, 0.0, -0.03125]]
    np.testing.assert_array_equal(w[0, 0], np.array(expected, np.float32))


def test_assign_sources():
    assert I.Assign([1, 2])(_p([2])).tolist() == [1.0, 2.0]
    assert I.Assign(np.array([[1.5]]))(_p([1, 1], "float64")).tolist() == [[1.5]]
    assert I.Assign(paddle.to_tensor([3.0, 4.0]))(_p([2])).tolist() == [3.0, 4.0]
    with pytest.raises(ValueError, match=r"Assign: the shape of value \[3\] does not match "
                                         r"the parameter's shape \[2\]"):
        I.Assign([1, 2, 3])(_p([2]))
    with pytest.raises(TypeError, match="Assign: value must be"):
        I.Assign("abc")


def test_uniform_legacy_diag():
    w = I.UniformInitializer(low=0.0, high=0.5, diag_num=2, diag_step=3, diag_val=9.0)(
        _p([3, 3])).numpy().reshape(-1)
    assert w[0] == 9.0 and w[4] == 9.0 and (np.delete(w, [0, 4]) < 0.5).all()


def test_calculate_gain():
    assert I.calculate_gain("tanh") == 5.0 / 3
    assert I.calculate_gain("conv2d") == 1
    assert I.calculate_gain("relu") == math.sqrt(2.0)
    assert I.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2))
    assert I.calculate_gain("leaky_relu", param=1.0) == 1.0
    assert I.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="nonlinearity function 'swish' is not supported"):
        I.calculate_gain("swish")
    with pytest.raises(TypeError, match="param must be"):
        I.calculate_gain("leaky_relu", "0.1")


def test_set_global_initializer_is_used_by_create_parameter():
    try:
        I.set_global_initializer(I.Constant(3.0), I.Constant(-1.0))
        assert isinstance(I._global_weight_initializer(), I.Constant)
        w = paddle.create_parameter([2], "float32")
        b = paddle.create_parameter([2], "float32", is_bias=True)
        assert w.tolist() == [3.0, 3.0] and b.tolist() == [-1.0, -1.0]
        attr = paddle.ParamAttr(initializer=I.Constant(5.0))
        assert paddle.create_parameter([1], "float32", attr=attr).tolist() == [5.0]
    finally:
        I.set_global_initializer(None)
    assert I._global_weight_initializer() is None and I._global_bias_initializer() is None
    with pytest.raises(TypeError, match="weight_init must be an Initializer or None"):
        I.set_global_initializer("xavier")


def test_public_names_and_legacy_aliases():
    assert paddle.nn.initializer.XavierUniform is I.XavierUniform
    for name in ("Bilinear", "Constant", "KaimingUniform", "KaimingNormal", "XavierNormal",
                 "XavierUniform", "Assign", "Normal", "TruncatedNormal", "Uniform",
                 "Orthogonal", "Dirac", "set_global_initializer", "calculate_gain"):
        assert name in I.__all__
    assert issubclass(I.Constant, I.ConstantInitializer)
    assert issubclass(I.KaimingNormal, I.MSRAInitializer)
    assert issubclass(I.XavierNormal, I.XavierInitializer)
    assert issubclass(I.Assign, I.NumpyArrayInitializer)
    assert all(issubclass(c, I.Initializer) for c in (I.Orthogonal, I.Dirac, I.Bilinear))


def test_errors():
    with pytest.raises(ValueError, match="Orthogonal: only a Tensor with 2 or more dimensions"):
        I.Orthogonal()(_p([3]))
    with pytest.raises(ValueError, match="Dirac: only a Tensor with 3/4/5 dimensions"):
        I.Dirac()(_p([3, 3]))
    with pytest.raises(ValueError, match=r"Dirac: dim 0 of the Tensor \(3\) must be divisible"):
        I.Dirac(groups=2)(_p([3, 3, 3]))
    with pytest.raises(ValueError, match="groups must be a positive integer"):
        I.Dirac(groups=0)
    with pytest.raises(ValueError, match="Bilinear: the length of shape must be 4"):
        I.Bilinear()(_p([3, 3]))
    with pytest.raises(ValueError, match=r"shape\[2\] must be equal to shape\[3\]"):
        I.Bilinear()(_p([1, 1, 3, 4]))
    with pytest.raises(ValueError, match="mode should be 'fan_in' or 'fan_out'"):
        I.KaimingNormal(mode="avg")
    with pytest.raises(ValueError, match="fan_in is set"):
        I.KaimingUniform(fan_in=3, mode="fan_out")
    with pytest.raises(ValueError, match="nonlinearity function 'bogus'"):
        I.KaimingUniform(nonlinearity="bogus")
    with pytest.raises(TypeError, match="XavierUniform: param must have a floating point"):
        I.XavierUniform()(paddle.zeros([2, 2], dtype="int32"))
    with pytest.raises(TypeError, match="Normal: param must be a Tensor"):
        I.Normal()(np.zeros(3))
    with pytest.raises(ValueError, match="TruncatedNormal: a must be less than b"):
        I.TruncatedNormal(a=1.0, b=-1.0)
    with pytest.raises(ValueError, match="Uniform: high must be >= low"):
        I.Uniform(low=1.0, high=0.0)
    with pytest.raises(TypeError, match="Constant: value must be a number"):
        I.Constant("1")

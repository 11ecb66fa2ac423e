"""Random functions: determinism under paddle.seed, rng state, statistics, dtypes, errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.ops import REGISTRY

N = 10000

_DRAWS = {
    "rand": lambda: paddle.rand([5]),
    "randn": lambda: paddle.randn([5]),
    "standard_normal": lambda: paddle.standard_normal([5]),
    "uniform": lambda: paddle.uniform([5]),
    "normal": lambda: paddle.normal(1.0, 2.0, [5]),
    "normal-tensor": lambda: paddle.normal(paddle.zeros([5]), paddle.ones([5])),
    "randint": lambda: paddle.randint(0, 100, [5]),
    "randint_like": lambda: paddle.randint_like(paddle.zeros([5]), 0, 100),
    "randperm": lambda: paddle.randperm(20),
    "bernoulli": lambda: paddle.bernoulli(paddle.full([20], 0.5)),
    "poisson": lambda: paddle.poisson(paddle.full([20], 3.0)),
    "multinomial": lambda: paddle.multinomial(paddle.ones([20]), 5),
    "uniform_": lambda: paddle.zeros([5]).uniform_(),
    "normal_": lambda: paddle.zeros([5]).normal_(),
    "exponential_": lambda: paddle.zeros([5]).exponential_(),
    "cauchy_": lambda: paddle.zeros([5]).cauchy_(),
    "geometric_": lambda: paddle.zeros([5]).geometric_(0.3),
}


@pytest.mark.parametrize("name", sorted(_DRAWS))
def test_same_seed_same_numbers(name):
    draw = _DRAWS[name]
    paddle.seed(11)
    first, second = draw().numpy(), draw().numpy()
    paddle.seed(11)
    np.testing.assert_array_equal(draw().numpy(), first)
    np.testing.assert_array_equal(draw().numpy(), second)
    assert not np.array_equal(first, second)  # the stream moves on
    paddle.seed(12)
    assert not np.array_equal(draw().numpy(), first)


def test_rng_state_restores_the_stream():
    paddle.seed(5)
    paddle.rand([3])
    state = paddle.get_rng_state()
    a = paddle.randn([4]).numpy()
    b = paddle.randint(0, 1000, [4]).numpy()
    paddle.rand([7])
    paddle.set_rng_state(state)
    np.testing.assert_array_equal(paddle.randn([4]).numpy(), a)
    np.testing.assert_array_equal(paddle.randint(0, 1000, [4]).numpy(), b)


def test_seed_rejects_non_int():
    with pytest.raises(TypeError, match="seed: seed must be an int"):
        paddle.seed(1.5)


def test_uniform_explicit_seed_ignores_global_stream():
    paddle.seed(1)
    a = paddle.uniform([4], seed=42).numpy()
    paddle.seed(2)
    paddle.rand([3])
    np.testing.assert_array_equal(paddle.uniform([4], seed=42).numpy(), a)


def test_random_ops_are_marked_random():
    for name in ("uniform", "normal", "randint", "randperm", "bernoulli", "poisson",
                 "multinomial", "exponential", "cauchy", "geometric"):
        assert REGISTRY[name].random and "seed" in REGISTRY[name].attrs


# --- statistics -------------------------------------------------------------------------------

def test_rand_and_uniform_statistics():
    paddle.seed(0)
    x = paddle.rand([N]).numpy()
    assert x.dtype == np.float32 and x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 0.02 and abs(x.std() - np.sqrt(1 / 12)) < 0.02
    y = paddle.uniform([N], "float64", min=-3.0, max=5.0).numpy()
    assert y.dtype == np.float64 and y.min() >= -3 and y.max() < 5
    assert abs(y.mean() - 1.0) < 0.15


def test_normal_statistics():
    paddle.seed(0)
    z = paddle.randn([N]).numpy()
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1) < 0.05
    w = paddle.normal(2.0, 3.0, [N]).numpy()
    assert w.dtype == np.float32
    assert abs(w.mean() - 2.0) < 0.15 and abs(w.std() - 3.0) < 0.15
    mean = paddle.to_tensor(np.array([-5.0, 5.0]))
    v = paddle.normal(mean, 0.5 * paddle.ones([N, 2], "float64")).numpy()
    assert v.shape == (N, 2) and v.dtype == np.float64
    np.testing.assert_allclose(v.mean(0), [-5, 5], atol=0.05)
    np.testing.assert_allclose(v.std(0), [0.5, 0.5], atol=0.05)


def test_normal_tensor_args_are_differentiable():
    mean = paddle.to_tensor([0.0, 1.0], stop_gradient=False)
    std = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    paddle.seed(4)
    out = paddle.normal(mean, std)
    out.sum().backward()
    np.testing.assert_allclose(mean.grad.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(std.grad.numpy(), (out.numpy() - mean.numpy()) / std.numpy(),
                               rtol=1e-5)


def test_randint_and_randperm():
    paddle.seed(0)
    r = paddle.randint(-3, 4, [N]).numpy()
    assert r.dtype == np.int64 and r.min() == -3 and r.max() == 3
    assert abs(r.mean()) < 0.1
    assert paddle.randint(5, shape=[3]).numpy().max() < 5  # high None: [0, low)
    assert paddle.randint(0, 5, [2], dtype="int32").dtype == paddle.int32
    like = paddle.randint_like(paddle.zeros([2, 3], "float64"), 10)
    assert like.dtype == paddle.float64 and like.shape == [2, 3]
    assert np.all(like.numpy() == np.round(like.numpy()))
    p = paddle.randperm(50).numpy()
    assert p.dtype == np.int64 and sorted(p.tolist()) == list(range(50))
    assert paddle.randperm(4, "float32").dtype == paddle.float32


def test_bernoulli_poisson_exponential_statistics():
    paddle.seed(0)
    b = paddle.bernoulli(paddle.full([N, 3], 0.3)).numpy()
    assert b.dtype == np.float32 and set(np.unique(b)) <= {0.0, 1.0}
    assert abs(b.mean() - 0.3) < 0.02
    edge = paddle.bernoulli(paddle.to_tensor([0.0, 1.0])).numpy()
    assert edge.tolist() == [0.0, 1.0]
    pois = paddle.poisson(paddle.full([N], 4.0, "float64")).numpy()
    assert pois.dtype == np.float64 and pois.min() >= 0
    assert abs(pois.mean() - 4) < 0.1 and abs(pois.var() - 4) < 0.3
    e = paddle.zeros([N]).exponential_(lam=2.0).numpy()
    assert e.min() >= 0 and abs(e.mean() - 0.5) < 0.03


def test_cauchy_and_geometric_statistics():
    paddle.seed(0)
    c = paddle.zeros([N], "float64").cauchy_(loc=2.0, scale=0.5).numpy()
    assert abs(np.median(c) - 2.0) < 0.05
    assert abs(np.percentile(c, 75) - np.percentile(c, 25) - 1.0) < 0.1  # IQR = 2 * scale
    g = paddle.zeros([N]).geometric_(0.25).numpy()
    assert g.min() >= 0
    k = np.ceil(g)  # ceil of the relaxation ~ Geometric(0.25) on {1, 2, ...}: mean 1 / p
    assert abs(k.mean() - 4.0) < 0.15
    with pytest.raises(ValueError, match="geometric_: probs must be in \\(0, 1\\)"):
        paddle.zeros([2]).geometric_(1.5)
    with pytest.raises(ValueError, match="cauchy_: scale must be positive"):
        paddle.zeros([2]).cauchy_(scale=0)


def test_cuda_rng_state_aliases():
    paddle.seed(9)
    state = paddle.get_cuda_rng_state()
    a = paddle.rand([3]).numpy()
    paddle.set_cuda_rng_state(state)
    np.testing.assert_array_equal(paddle.rand([3]).numpy(), a)


def test_multinomial():
    paddle.seed(0)
    w = paddle.to_tensor([1.0, 0.0, 3.0])
    s = paddle.multinomial(w, N, replacement=True).numpy()
    assert s.dtype == np.int64 and s.shape == (N,)
    assert (s != 1).all()
    assert abs((s == 2).mean() - 0.75) < 0.02
    rows = paddle.multinomial(paddle.ones([4, 6]), 6).numpy()
    assert rows.shape == (4, 6)
    for row in rows:
        assert sorted(row.tolist()) == list(range(6))  # without replacement: no repeats


def test_default_dtype_is_followed():
    old = paddle.get_default_dtype()
    paddle.set_default_dtype("float64")
    try:
        assert paddle.rand([2]).dtype == paddle.float64
        assert paddle.randn([2]).dtype == paddle.float64
        assert paddle.uniform([2]).dtype == paddle.float64
    finally:
        paddle.set_default_dtype(old)


# --- errors and in-place ---------------------------------------------------------------------

def test_errors():
    with pytest.raises(ValueError, match="randint: high must be greater than low"):
        paddle.randint(3, 3, [2])
    with pytest.raises(TypeError, match="rand: dtype must be a floating point type"):
        paddle.rand([2], dtype="int64")
    with pytest.raises(TypeError, match="randint: dtype must be int32 or int64"):
        paddle.randint(0, 3, [2], dtype="float32")
    with pytest.raises(ValueError, match="uniform: max must be >= min"):
        paddle.uniform([2], min=1.0, max=0.0)
    with pytest.raises(ValueError, match="normal: shape must be given"):
        paddle.normal(0.0, 1.0)
    with pytest.raises(TypeError, match="bernoulli: x must be a floating point tensor"):
        paddle.bernoulli(paddle.to_tensor([1, 0]))
    with pytest.raises(ValueError, match="multinomial: num_samples \\(4\\) must not exceed"):
        paddle.multinomial(paddle.ones([3]), 4)
    with pytest.raises(ValueError, match="multinomial: x must be 1-D or 2-D"):
        paddle.multinomial(paddle.ones([2, 2, 2]), 1)
    with pytest.raises(ValueError, match="multinomial: the weights of row 0 sum to 0"):
        paddle.multinomial(paddle.zeros([3]), 1, replacement=True)
    with pytest.raises(ValueError, match="randperm: n must be a non-negative int"):
        paddle.randperm(-1)
    with pytest.raises(ValueError, match="exponential_: lam must be positive"):
        paddle.zeros([2]).exponential_(0.0)


def test_inplace_random_methods():
    x = paddle.zeros([3, 4], "float64")
    v = x._version
    assert x.uniform_(2.0, 3.0) is x
    assert x.dtype == paddle.float64 and x._version == v + 1
    assert x.numpy().min() >= 2.0 and x.numpy().max() < 3.0
    assert x.normal_(mean=10.0, std=0.1) is x and abs(x.numpy().mean() - 10) < 0.2
    w = paddle.ones([2])
    w.stop_gradient = False
    with pytest.raises(ValueError, match="uniform_: leaf Tensor"):
        w.uniform_()
    with paddle.no_grad():
        w.normal_()
    assert not w.stop_gradient and w.shape == [2]

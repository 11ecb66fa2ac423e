"""Distributions inside a static Program (built by the same code, run by the Executor) and
the errors bad arguments raise."""
import numpy as np
import pytest

import sampan as paddle
import sampan.distribution as D
from tests.static_util import static_guard


def t(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float64))


FEED = {"loc": np.array([0.0, 1.0, 2.0]), "scale": np.array([1.0, 2.0, 0.5]),
        "v": np.array([0.5, 0.25, 0.75])}


def _build(loc, scale, v):
    d = D.Normal(loc, scale)
    g = D.Gamma(scale, scale)
    b = D.Beta(scale, scale + 1.0)
    other = D.Normal(loc * 0.0, scale * 2.0)
    return [d.log_prob(v), d.entropy(), d.cdf(v), g.log_prob(v), b.entropy(),
            D.kl_divergence(d, other), D.Laplace(loc, scale).icdf(v)]


def test_static_program_matches_eager():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        names = ("loc", "scale", "v")
        fetch = _build(*(paddle.static.data(n, [3], "float64") for n in names))
        draws = [D.Normal(paddle.static.data("loc2", [3], "float64"), 1.0 + 0.0 * fetch[0])
                 .rsample([4]), D.Gamma(fetch[1] * 0 + 2.0, fetch[1] * 0 + 1.0).sample([5])]
    exe = paddle.static.Executor()
    feed = dict(FEED, loc2=FEED["loc"])
    out = exe.run(main, feed=feed, fetch_list=fetch + draws)
    eager = _build(t(FEED["loc"]), t(FEED["scale"]), t(FEED["v"]))
    for got, want in zip(out, eager):
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-12)
    assert np.asarray(out[-2]).shape == (4, 3) and np.asarray(out[-1]).shape == (5, 3)


def test_static_log_prob_gradient():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        loc = paddle.static.data("loc", [3], "float64")
        loc.stop_gradient = False
        loss = D.Normal(loc, paddle.static.data("scale", [3], "float64")).log_prob(
            paddle.static.data("v", [3], "float64")).sum()
        (grad,) = paddle.static.gradients([loss], [loc])
    (g,) = paddle.static.Executor().run(main, feed=FEED, fetch_list=[grad])
    np.testing.assert_allclose(g, (FEED["v"] - FEED["loc"]) / FEED["scale"] ** 2, rtol=1e-12)


def test_constructor_errors():
    with pytest.raises(TypeError, match="Normal: loc must be a float, list, tuple"):
        D.Normal("a", 1.0)
    with pytest.raises(TypeError, match="Normal: loc must be a float32 or float64 Tensor"):
        D.Normal(paddle.to_tensor([1, 2]), 1.0)
    with pytest.raises(ValueError, match="Gamma: every element of concentration must be "
                                         "positive"):
        D.Gamma(t([-1.0]), t([1.0]))
    with pytest.raises(ValueError, match="Exponential: every element of rate must be positive"):
        D.Exponential(t([0.0]))
    with pytest.raises(ValueError, match="Dirichlet: concentration must be at least 1-D"):
        D.Dirichlet(t(1.0))
    with pytest.raises(ValueError, match="Multinomial: total_count must be an int >= 1"):
        D.Multinomial(0, t([0.5, 0.5]))
    with pytest.raises(ValueError, match=r"Geometric: every element of probs must lie in \(0, 1\]"):
        D.Geometric(t([1.5]))
    with pytest.raises(TypeError, match="Geometric.pmf: k must be an int or Tensor"):
        D.Geometric(0.5).pmf(1.5)
    with pytest.raises(ValueError, match="Binomial: every element of probs must lie in"):
        D.Binomial(5, 1.5)
    with pytest.raises(ValueError, match="Poisson: every element of rate must be non-negative"):
        D.Poisson(t([-1.0]))
    with pytest.raises(ValueError, match="MultivariateNormal: give exactly one of"):
        D.MultivariateNormal(t([0.0, 0.0]))
    with pytest.raises(ValueError, match=r"MultivariateNormal: the matrix must be \[..., 2, 2\]"):
        D.MultivariateNormal(t([0.0, 0.0]), covariance_matrix=t(np.eye(3)))
    with pytest.raises(TypeError, match="Categorical: logits must be a list"):
        D.Categorical(1.0)
    with pytest.raises(ValueError, match="Normal.sample: sample shape must hold non-negative"):
        D.Normal(0.0, 1.0).sample([-1])
    with pytest.raises(TypeError, match="Normal.sample: sample shape must be a list or tuple"):
        D.Normal(0.0, 1.0).sample(3)
    with pytest.raises(ValueError, match="Cauchy distribution has no mean"):
        D.Cauchy(0.0, 1.0).mean
    with pytest.raises(NotImplementedError, match="Beta has no reparameterized rsample"):
        D.Beta(1.0, 1.0).rsample([2])


def test_value_dtype_mismatch_warns_and_casts():
    d = D.Normal(t([0.0]), t([1.0]))
    with pytest.warns(UserWarning, match="value dtype float32 differs"):
        out = d.log_prob(paddle.to_tensor([0.5], dtype="float32"))
    assert str(out.dtype) == "paddle.float64"


def test_seeded_normal_sample_is_reproducible():
    d = D.Normal(t([0.0, 1.0]), t([1.0, 2.0]))
    a = d.sample([3], seed=17).numpy()
    np.testing.assert_array_equal(a, d.sample([3], seed=17).numpy())
    assert not np.array_equal(a, d.sample([3], seed=18).numpy())


def test_to_static_matches_eager_with_gradients():
    @paddle.jit.to_static
    def fn(loc, scale, x):
        d = D.Normal(loc, scale)
        return d.log_prob(x) + D.kl_divergence(d, D.Normal(loc * 0.0, scale * 2.0))

    def eager(loc, scale, x):
        d = D.Normal(loc, scale)
        return d.log_prob(x) + D.kl_divergence(d, D.Normal(loc * 0.0, scale * 2.0))

    results = []
    for f in (fn, eager):
        loc = t([0.0, 1.0])
        loc.stop_gradient = False
        out = f(loc, t([1.0, 2.0]), t([0.5, 0.2]))
        out.sum().backward()
        results.append((out.numpy(), loc.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], [0.5, -0.2 + 1.0 / 16.0], rtol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)


def test_parameter_dtypes_follow_paddle():
    assert D.Normal(np.array([0.0]), np.array([1.0])).dtype == "float64"
    assert D.Normal([0.0], [1.0]).dtype == "float32"
    assert D.Uniform(np.zeros(2, "float32"), 1.0).dtype == "float32"
    d = D.Gamma(t([1.0]), 2.0)  # a Python number takes the Tensor argument's dtype
    assert str(d.rate.dtype) == "paddle.float64"


def test_enumerated_support_needs_eager_parameters():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        rate = paddle.static.data("rate", [3], "float64")
        with pytest.raises(NotImplementedError, match="Poisson.entropy: needs eager parameters"):
            D.Poisson(rate).entropy()
        with pytest.raises(NotImplementedError, match="Binomial: needs eager parameters"):
            D.Binomial(rate * 0 + 4.0, rate).entropy()

"""Sampling: shapes/dtypes as Paddle 3.3.1, paddle.seed reproducibility, sample statistics
(fixed seeds, KS / chi-square tests against scipy.stats), and gradients of rsample and
log_prob against central differences."""
import numpy as np
import pytest
from scipy import stats

import sampan as paddle
import sampan.distribution as D
from tests.gradcheck import numeric_grad


def t(a, dtype=np.float64):
    return paddle.to_tensor(np.asarray(a, dtype=dtype))


# (factory, sample shape, sample shape out, batch_shape, event_shape, dtype), recorded from
# Paddle 3.3.1 (float arguments give float32; Poisson/ContinuousBernoulli of a float get [1])
SHAPES = [
    (lambda: D.Normal(0.0, 1.0), [3], [3], (), (), None, "rsample"),
    (lambda: D.Normal([0.0, 1.0], [1.0, 2.0]), [3], [3, 2], (2,), (), None, "rsample"),
    (lambda: D.Uniform(0.0, 2.0), [3], [3], (), (), None, "rsample"),
    (lambda: D.Bernoulli(0.3), [3], [3], (), (), None, "rsample"),
    (lambda: D.Exponential(t(2.0, np.float32)), [3], [3], (), (), None, "rsample"),
    (lambda: D.Gamma(t(2.0, np.float32), t(3.0, np.float32)), [3], [3], (), (), None, None),
    (lambda: D.Beta(0.5, 0.5), [3], [3], (), (), None, None),
    (lambda: D.Dirichlet(t([1.0, 2.0, 3.0], np.float32)), [3], [3, 3], (), (3,), None, None),
    (lambda: D.Multinomial(5, t([0.2, 0.3, 0.5], np.float32)), [2], [2, 3], (), (3,), None,
     None),
    (lambda: D.Laplace(t(0.0, np.float32), t(1.0, np.float32)), [3], [3], (), (), None,
     "rsample"),
    (lambda: D.LogNormal(0.0, 1.0), [3], [3], (), (), None, "rsample"),
    (lambda: D.Gumbel(t(0.0, np.float32), t(1.0, np.float32)), [3], [3], (), (), None,
     "rsample"),
    (lambda: D.Geometric(0.5), [3], [3], (), (), None, "rsample"),
    (lambda: D.Cauchy(0.0, 1.0), [3], [3], (), (), None, "rsample"),
    (lambda: D.Poisson(2.0), [3], [3, 1], (1,), (), None, None),
    (lambda: D.Binomial(10, 0.3), [3], [3], (), (), None, None),
    (lambda: D.ContinuousBernoulli(0.3), [3], [3, 1], (1,), (), None, "rsample"),
    (lambda: D.MultivariateNormal(t([0.0, 1.0], np.float32),
                                  covariance_matrix=t([[2.0, 0.5], [0.5, 1.0]], np.float32)),
     [3], [3, 2], (), (2,), None, "rsample"),
    (lambda: D.StudentT(3.0, 0.0, 1.0), [3], [3], (), (), None, "rsample"),
    (lambda: D.Chi2(3.0), [3], [3], (), (), None, None),
    (lambda: D.Independent(D.Normal(paddle.zeros([2, 3]), paddle.ones([2, 3])), 1), [4],
     [4, 2, 3], (2,), (3,), None, None),
    (lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), [D.ExpTransform()]), [3], [3], (),
     (), None, "rsample"),
]


@pytest.mark.parametrize("case", SHAPES, ids=lambda c: None)
def test_shapes_and_dtypes_match_paddle(case):
    make, shape, out_shape, batch, event, _, rs = case
    d = make()
    assert d.batch_shape == batch and d.event_shape == event
    s = d.sample(shape)
    assert s.shape == out_shape and s.stop_gradient
    assert str(s.dtype) == "paddle.float32"
    if rs:
        assert d.rsample(shape).shape == out_shape
    if type(d) not in (D.Multinomial, D.TransformedDistribution):  # no entropy in Paddle
        assert d.entropy().shape == list(batch)


def test_categorical_sample_is_int64_and_kl_keeps_dim():
    d = D.Categorical(t([0.2, 0.3, 0.5], np.float32))
    s = d.sample([4])
    assert s.shape == [4] and str(s.dtype) == "paddle.int64"
    assert d.kl_divergence(d).shape == [1]
    d2 = D.Categorical(t(np.ones((2, 3)), np.float32))
    assert d2.sample([5]).shape == [5, 2] and d2.batch_shape == (2,)


def test_paddle_seed_reproduces_draws():
    dists = [D.Normal(0.0, 1.0), D.Gamma(t(2.0), t(1.0)), D.Binomial(10, 0.3),
             D.Categorical(t([0.2, 0.3, 0.5])), D.Dirichlet(t([1.0, 2.0]))]
    for d in dists:
        paddle.seed(11)
        a = d.sample([6]).numpy()
        paddle.seed(11)
        b = d.sample([6]).numpy()
        c = d.sample([6]).numpy()
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)


N = 20000
# continuous: (distribution, scipy cdf) for a KS test of N draws
KS = {
    "normal": (lambda: D.Normal(t(1.5), t(2.0)), stats.norm(1.5, 2.0)),
    "uniform": (lambda: D.Uniform(t(-1.0), t(3.0)), stats.uniform(-1.0, 4.0)),
    "laplace": (lambda: D.Laplace(t(0.5), t(1.5)), stats.laplace(0.5, 1.5)),
    "cauchy": (lambda: D.Cauchy(t(0.5), t(1.5)), stats.cauchy(0.5, 1.5)),
    "gumbel": (lambda: D.Gumbel(t(0.5), t(1.5)), stats.gumbel_r(0.5, 1.5)),
    "studentt": (lambda: D.StudentT(t(4.0), t(0.5), t(2.0)), stats.t(4.0, 0.5, 2.0)),
    "lognormal": (lambda: D.LogNormal(t(0.2), t(0.7)), stats.lognorm(0.7, scale=np.exp(0.2))),
    "exponential": (lambda: D.Exponential(t(2.5)), stats.expon(scale=0.4)),
    "gamma": (lambda: D.Gamma(t(0.7), t(2.0)), stats.gamma(0.7, scale=0.5)),
    "chi2": (lambda: D.Chi2(t(5.0)), stats.chi2(5.0)),
    "beta": (lambda: D.Beta(t(2.0), t(0.5)), stats.beta(2.0, 0.5)),
}


@pytest.mark.parametrize("name", sorted(KS))
def test_continuous_samples_pass_ks(name):
    make, ref = KS[name]
    paddle.seed(2024)
    x = make().sample([N]).numpy()
    assert stats.kstest(x, ref.cdf).pvalue > 1e-3
    paddle.seed(2024)
    d = make()
    if hasattr(d, "rsample") and name not in ("gamma", "chi2", "beta"):
        assert stats.kstest(d.rsample([N]).numpy(), ref.cdf).pvalue > 1e-3


DISCRETE = {
    "bernoulli": (lambda: D.Bernoulli(t(0.3)), stats.bernoulli(0.3), 2),
    "geometric": (lambda: D.Geometric(t(0.3)), stats.geom(0.3, loc=-1), 25),
    "poisson": (lambda: D.Poisson(t(3.5)), stats.poisson(3.5), 15),
    "binomial": (lambda: D.Binomial(t(12.0), t(0.35)), stats.binom(12, 0.35), 13),
    "categorical": (lambda: D.Categorical(t([1.0, 2.0, 0.5])),
                    stats.rv_discrete(values=([0, 1, 2], np.exp([1, 2, .5]) /
                                              np.exp([1, 2, .5]).sum())), 3),
}


@pytest.mark.parametrize("name", sorted(DISCRETE))
def test_discrete_frequencies_pass_chi_square(name):
    make, ref, k = DISCRETE[name]
    paddle.seed(99)
    x = make().sample([N]).numpy().astype(np.int64)
    observed = np.bincount(np.minimum(x, k - 1), minlength=k)
    expected = ref.pmf(np.arange(k)) * N
    expected[-1] = ref.sf(k - 2) * N  # the last bin collects the tail
    keep = expected > 5
    chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2(keep.sum() - 1).sf(chi2) > 1e-3


def test_multivariate_samples_moments():
    paddle.seed(5)
    cov = np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])
    d = D.MultivariateNormal(t([1.0, -1.0, 0.0]), covariance_matrix=t(cov))
    x = d.sample([N]).numpy()
    np.testing.assert_allclose(x.mean(0), [1.0, -1.0, 0.0], atol=0.05)
    np.testing.assert_allclose(np.cov(x.T), cov, atol=0.06)
    conc = np.array([0.5, 2.0, 3.0])
    y = D.Dirichlet(t(conc)).sample([N]).numpy()
    np.testing.assert_allclose(y.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(y.mean(0), conc / conc.sum(), atol=0.01)
    m = D.Multinomial(7, t([0.2, 0.3, 0.5])).sample([N]).numpy()
    np.testing.assert_array_equal(m.sum(-1), 7.0)
    np.testing.assert_allclose(m.mean(0), 7 * np.array([0.2, 0.3, 0.5]), atol=0.05)
    c = D.ContinuousBernoulli(t([0.2])).sample([N]).numpy()
    ref = D.ContinuousBernoulli(t([0.2]))
    assert stats.kstest(c[:, 0], lambda v: ref.cdf(t(v[:, None])).numpy()[:, 0]).pvalue > 1e-3


# rsample gradients: with the seed fixed the draw is a deterministic function of the
# parameters, so autograd must match central differences of sum(rsample ** 2).
RSAMPLE = {
    "normal": (lambda p: D.Normal(p[0], p[1]), [[0.3, -1.0], [0.5, 2.0]]),
    "uniform": (lambda p: D.Uniform(p[0], p[1]), [[0.3, -1.0], [0.5, 2.0]]),
    "laplace": (lambda p: D.Laplace(p[0], p[1]), [[0.3, -1.0], [0.5, 2.0]]),
    "cauchy": (lambda p: D.Cauchy(p[0], p[1]), [[0.3, -1.0], [0.5, 2.0]]),
    "gumbel": (lambda p: D.Gumbel(p[0], p[1]), [[0.3, -1.0], [0.5, 2.0]]),
    "lognormal": (lambda p: D.LogNormal(p[0], p[1]), [[0.3, -1.0], [0.5, 0.8]]),
    "exponential": (lambda p: D.Exponential(p[0]), [[0.5, 2.0]]),
    "gamma-rate": (lambda p: D.Gamma(t([1.5, 3.0]), p[0]), [[0.5, 2.0]]),
    "studentt": (lambda p: D.StudentT(t([3.0, 6.0]), p[0], p[1]), [[0.3, -1.0], [0.5, 2.0]]),
    "continuous-bernoulli": (lambda p: D.ContinuousBernoulli(p[0]), [[0.2, 0.8]]),
    "bernoulli-relaxed": (lambda p: D.Bernoulli(p[0]), [[0.2, 0.7]]),
    "mvn-tril": (lambda p: D.MultivariateNormal(p[0], scale_tril=p[1]),
                 [[0.3, -1.0], [[1.0, 0.0], [0.4, 0.7]]]),
    "affine": (lambda p: D.TransformedDistribution(
        D.Normal(t([0.0, 0.0]), t([1.0, 1.0])), [D.AffineTransform(p[0], p[1]),
                                                  D.TanhTransform()]),
               [[0.3, -1.0], [0.5, 2.0]]),
}


def _rsample_loss(make, arrays):
    paddle.seed(3)
    return make([t(a) for a in arrays]).rsample([3]).pow(2).sum()


@pytest.mark.parametrize("name", sorted(RSAMPLE))
def test_rsample_gradient_matches_finite_differences(name):
    make, params = RSAMPLE[name]
    arrays = [np.asarray(p, dtype=np.float64) for p in params]
    tensors = [t(a) for a in arrays]
    for x in tensors:
        x.stop_gradient = False
    paddle.seed(3)
    loss = make(tensors).rsample([3]).pow(2).sum()
    grads = paddle.grad(loss, tensors)
    for i, a in enumerate(arrays):
        def f(v, i=i):
            vals = list(arrays)
            vals[i] = v
            return float(_rsample_loss(make, vals))
        np.testing.assert_allclose(grads[i].numpy(), numeric_grad(f, a.copy()), rtol=1e-5,
                                   atol=1e-6)


LOGPROB = {
    "normal": (lambda p: D.Normal(p[0], p[1]), [[0.3, -1.0], [0.5, 2.0]], [0.1, 0.4]),
    "laplace": (lambda p: D.Laplace(p[0], p[1]), [[0.3, -1.0], [0.5, 2.0]], [0.1, 0.4]),
    "studentt": (lambda p: D.StudentT(p[0], p[1], p[2]), [[3.0, 5.0], [0.3, -1.0], [0.5, 2.0]],
                 [0.1, 0.4]),
    "gamma": (lambda p: D.Gamma(p[0], p[1]), [[0.7, 3.0], [0.5, 2.0]], [0.4, 1.3]),
    "beta": (lambda p: D.Beta(p[0], p[1]), [[0.7, 3.0], [0.5, 2.0]], [0.4, 0.3]),
    "dirichlet": (lambda p: D.Dirichlet(p[0]), [[0.7, 3.0, 1.2]], [0.2, 0.5, 0.3]),
    "poisson": (lambda p: D.Poisson(p[0]), [[0.7, 3.0]], [1.0, 4.0]),
    "binomial": (lambda p: D.Binomial(t([5.0, 8.0]), p[0]), [[0.3, 0.6]], [1.0, 4.0]),
    "geometric": (lambda p: D.Geometric(p[0]), [[0.3, 0.6]], [1.0, 4.0]),
    "bernoulli": (lambda p: D.Bernoulli(p[0]), [[0.3, 0.6]], [1.0, 0.0]),
    # the covariance is built as A A^T + I, so every entry of A matters
    "mvn": (lambda p: D.MultivariateNormal(
        p[0], covariance_matrix=p[1].matmul(p[1], transpose_y=True) + t(np.eye(2))),
            [[0.3, -1.0], [[1.0, 0.3], [-0.2, 0.8]]], [0.5, 0.2]),
    "cb": (lambda p: D.ContinuousBernoulli(p[0]), [[0.2, 0.9]], [0.3, 0.7]),
    "entropy-gamma": (lambda p: D.Gamma(p[0], p[1]), [[0.7, 3.0], [0.5, 2.0]], None),
    "entropy-studentt": (lambda p: D.StudentT(p[0], t([0.3, -1.0]), p[1]),
                         [[3.0, 5.0], [0.5, 2.0]], None),
}


def _logprob_loss(make, arrays, value):
    d = make([t(a) for a in arrays])
    out = d.entropy() if value is None else d.log_prob(t(value))
    return (out * t(np.linspace(1.0, 2.0, out.size).reshape(out.shape))).sum()


@pytest.mark.parametrize("name", sorted(LOGPROB))
def test_log_prob_and_entropy_gradients(name):
    make, params, value = LOGPROB[name]
    arrays = [np.asarray(p, dtype=np.float64) for p in params]
    tensors = [t(a) for a in arrays]
    for x in tensors:
        x.stop_gradient = False
    d = make(tensors)
    out = d.entropy() if value is None else d.log_prob(t(value))
    loss = (out * t(np.linspace(1.0, 2.0, out.size).reshape(out.shape))).sum()
    grads = paddle.grad(loss, tensors)
    for i, a in enumerate(arrays):
        def f(v, i=i):
            vals = list(arrays)
            vals[i] = v
            return float(_logprob_loss(make, vals, value))
        np.testing.assert_allclose(grads[i].numpy(), numeric_grad(f, a.copy()), rtol=1e-5,
                                   atol=1e-6)


def test_sample_has_no_gradient_but_rsample_has():
    loc = t([0.5])
    loc.stop_gradient = False
    d = D.Normal(loc, t([1.0]))
    assert d.sample([2]).stop_gradient
    assert not d.rsample([2]).stop_gradient

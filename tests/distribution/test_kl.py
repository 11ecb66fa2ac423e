"""kl_divergence closed forms against Monte Carlo estimates (continuous, fixed seed) and exact
sums (discrete); register_kl dispatch; the exponential-family Bregman forms."""
import warnings

import numpy as np
import pytest
from scipy import special, stats

import sampan as paddle
import sampan.distribution as D
from sampan.distribution import kl as kl_mod


def t(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float64))


# (p, q) pairs with batch shape [2]; Monte Carlo from p's draws
CONTINUOUS = {
    "normal": lambda: (D.Normal(t([0.0, 1.0]), t([1.0, 0.5])),
                       D.Normal(t([0.5, -1.0]), t([2.0, 1.5]))),
    "lognormal": lambda: (D.LogNormal(t([0.0, 1.0]), t([1.0, 0.5])),
                          D.LogNormal(t([0.5, -1.0]), t([2.0, 1.5]))),
    "uniform": lambda: (D.Uniform(t([0.0, 1.0]), t([1.0, 2.0])),
                        D.Uniform(t([-1.0, 0.5]), t([2.0, 4.0]))),
    "laplace": lambda: (D.Laplace(t([0.0, 1.0]), t([1.0, 0.5])),
                        D.Laplace(t([0.5, -1.0]), t([2.0, 1.5]))),
    "cauchy": lambda: (D.Cauchy(t([0.0, 1.0]), t([1.0, 0.5])),
                       D.Cauchy(t([0.5, -1.0]), t([2.0, 1.5]))),
    "exponential": lambda: (D.Exponential(t([1.0, 3.0])), D.Exponential(t([2.0, 0.5]))),
    "gamma": lambda: (D.Gamma(t([0.7, 3.0]), t([1.0, 2.0])),
                      D.Gamma(t([1.5, 2.0]), t([0.5, 3.0]))),
    "chi2": lambda: (D.Chi2(t([2.0, 5.0])), D.Chi2(t([3.0, 4.0]))),
    "beta": lambda: (D.Beta(t([0.7, 3.0]), t([1.0, 2.0])), D.Beta(t([1.5, 2.0]), t([0.5, 3.0]))),
    "dirichlet": lambda: (D.Dirichlet(t([[0.7, 3.0, 1.0], [2.0, 2.0, 2.0]])),
                          D.Dirichlet(t([[1.5, 2.0, 0.8], [1.0, 3.0, 0.5]]))),
    "mvn": lambda: (D.MultivariateNormal(t([[0.0, 1.0], [1.0, 0.0]]),
                                         covariance_matrix=t([[2.0, 0.3], [0.3, 1.0]])),
                    D.MultivariateNormal(t([0.5, 0.5]),
                                         scale_tril=t([[[1.0, 0.0], [0.5, 1.5]],
                                                       [[0.7, 0.0], [-0.2, 1.0]]]))),
    "continuous-bernoulli": lambda: (D.ContinuousBernoulli(t([0.2, 0.7])),
                                     D.ContinuousBernoulli(t([0.6, 0.1]))),
    "independent": lambda: (D.Independent(D.Normal(t([[0.0, 1.0]]), t([[1.0, 0.5]])), 1),
                            D.Independent(D.Normal(t([[0.5, -1.0]]), t([[2.0, 1.5]])), 1)),
}


@pytest.mark.parametrize("name", sorted(CONTINUOUS))
def test_kl_matches_monte_carlo(name):
    p, q = CONTINUOUS[name]()
    paddle.seed(123)
    x = p.sample([100000])
    diff = (p.log_prob(x) - q.log_prob(x)).numpy()
    estimate, stderr = diff.mean(0), diff.std(0) / np.sqrt(diff.shape[0])
    kl = D.kl_divergence(p, q)
    assert kl.shape == list(p.batch_shape)
    np.testing.assert_allclose(kl.numpy(), estimate, atol=6 * stderr.max() + 1e-3)
    np.testing.assert_allclose(p.kl_divergence(q).numpy(), kl.numpy())


def test_kl_of_a_distribution_with_itself_is_zero():
    for p, _ in (f() for f in CONTINUOUS.values()):
        np.testing.assert_allclose(D.kl_divergence(p, p).numpy(), 0.0, atol=1e-10)


def test_uniform_kl_is_infinite_outside_support():
    kl = D.kl_divergence(D.Uniform(t(0.0), t(3.0)), D.Uniform(t(1.0), t(2.0)))
    assert np.isinf(kl.numpy())


def _exact(p_pmf, q_pmf):
    mask = p_pmf > 0
    return (p_pmf[mask] * (np.log(p_pmf[mask]) - np.log(q_pmf[mask]))).sum()


def test_discrete_kl_against_exact_sums():
    ks = np.arange(400)
    cases = [
        (D.Poisson(t([2.5])), D.Poisson(t([4.0])),
         stats.poisson(2.5).pmf(ks), stats.poisson(4.0).pmf(ks)),
        (D.Binomial(t(10.0), t(0.3)), D.Binomial(t(10.0), t(0.6)),
         stats.binom(10, 0.3).pmf(ks), stats.binom(10, 0.6).pmf(ks)),
        (D.Geometric(t(0.3)), D.Geometric(t(0.6)),
         stats.geom(0.3, loc=-1).pmf(ks), stats.geom(0.6, loc=-1).pmf(ks)),
        (D.Bernoulli(t(0.3)), D.Bernoulli(t(0.8)), np.array([0.7, 0.3]), np.array([0.2, 0.8])),
    ]
    for p, q, pp, qp in cases:
        np.testing.assert_allclose(D.kl_divergence(p, q).numpy().ravel(), [_exact(pp, qp)],
                                   rtol=1e-8)
    logits_p, logits_q = np.array([1.0, 2.0, 0.5]), np.array([0.0, 1.0, 3.0])
    kl = D.kl_divergence(D.Categorical(t(logits_p)), D.Categorical(t(logits_q)))
    expected = _exact(special.softmax(logits_p), special.softmax(logits_q))
    np.testing.assert_allclose(kl.numpy(), [expected], rtol=1e-10)


def test_kl_gradient_flows_to_both_sides():
    loc_p, scale_q = t([0.3]), t([2.0])
    loc_p.stop_gradient = scale_q.stop_gradient = False
    kl = D.kl_divergence(D.Normal(loc_p, t([1.0])), D.Normal(t([0.0]), scale_q))
    g_loc, g_scale = paddle.grad(kl.sum(), [loc_p, scale_q])
    np.testing.assert_allclose(g_loc.numpy(), [0.3 / 4.0])
    # d/ds [log s + (1 + mu^2) / (2 s^2)] = 1/s - (1 + mu^2) / s^3
    np.testing.assert_allclose(g_scale.numpy(), [1 / 2.0 - 1.09 / 8.0])


@pytest.mark.parametrize("make", [
    lambda: (D.Gamma(t([0.7, 3.0]), t([1.0, 2.0])), D.Gamma(t([1.5, 2.0]), t([0.5, 3.0]))),
    lambda: (D.Beta(t([0.7, 3.0]), t([1.0, 2.0])), D.Beta(t([1.5, 2.0]), t([0.5, 3.0]))),
    lambda: (D.Exponential(t([1.0, 3.0])), D.Exponential(t([2.0, 0.5]))),
    lambda: (D.Dirichlet(t([[0.7, 3.0, 1.0]])), D.Dirichlet(t([[1.5, 2.0, 0.8]]))),
])
def test_exponential_family_bregman_kl_matches_closed_form(make):
    p, q = make()
    bregman = kl_mod._kl_expfamily_expfamily(p, q)
    np.testing.assert_allclose(bregman.numpy(), D.kl_divergence(p, q).numpy(), rtol=1e-10)


def test_exponential_family_entropy_from_log_normalizer():
    d = D.Gamma(t([0.7, 3.0]), t([1.0, 2.0]))
    # h(x) = 1 for the Gamma family, so the carrier measure is 0
    type(d)._mean_carrier_measure = 0.0
    try:
        value = D.ExponentialFamily.entropy(d)
    finally:
        del type(d)._mean_carrier_measure
    np.testing.assert_allclose(value.numpy(), stats.gamma([0.7, 3.0], scale=[1.0, 0.5]).entropy(),
                               rtol=1e-10)


def test_register_kl_dispatch_prefers_the_most_specific_rule():
    class MyNormal(D.Normal):
        pass

    p, q = MyNormal(t(0.0), t(1.0)), D.Normal(t(1.0), t(2.0))
    base = D.kl_divergence(p, q).numpy()  # inherits the (Normal, Normal) rule

    @D.register_kl(MyNormal, D.Normal)
    def _mine(a, b):
        return paddle.zeros([]) + 42.0

    try:
        assert float(D.kl_divergence(p, q)) == 42.0
        assert float(D.kl_divergence(q, q)) != 42.0
        np.testing.assert_allclose(D.kl_divergence(q, D.Normal(t(0.0), t(1.0))).numpy(),
                                   D.kl_divergence(D.Normal(t(1.0), t(2.0)),
                                                   D.Normal(t(0.0), t(1.0))).numpy())
    finally:
        del kl_mod._REGISTRY[MyNormal, D.Normal]
    np.testing.assert_allclose(D.kl_divergence(p, q).numpy(), base)


def test_register_kl_ambiguity_warns():
    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    D.register_kl(A, D.Normal)(lambda p, q: paddle.zeros([]) + 1.0)
    D.register_kl(D.Normal, B)(lambda p, q: paddle.zeros([]) + 2.0)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
        assert any("Ambiguous" in str(w.message) for w in caught)
    finally:
        del kl_mod._REGISTRY[A, D.Normal]
        del kl_mod._REGISTRY[D.Normal, B]


def test_kl_errors():
    with pytest.raises(TypeError, match="register_kl: cls_p must be a subclass of Distribution"):
        D.register_kl(int, D.Normal)
    with pytest.raises(NotImplementedError, match=r"no rule for \(Normal, Gamma\)"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Gamma(t(1.0), t(1.0)))
    with pytest.raises(NotImplementedError, match=r"no rule for \(Gamma, Beta\)"):
        D.kl_divergence(D.Gamma(t(1.0), t(1.0)), D.Beta(t(1.0), t(1.0)))
    with pytest.raises(TypeError, match="kl_divergence: q must be a Distribution"):
        D.kl_divergence(D.Normal(0.0, 1.0), 3.0)


def test_poisson_with_zero_rate():
    p = D.Poisson(t([0.0, 2.0]))
    np.testing.assert_allclose(p.entropy().numpy(), [0.0, stats.poisson(2.0).entropy()],
                               rtol=1e-10)
    np.testing.assert_allclose(p.log_prob(t([0.0, 1.0])).numpy(), [0.0, np.log(2.0) - 2.0],
                               rtol=1e-12)
    assert np.isneginf(D.Poisson(t([0.0])).log_prob(t([1.0])).numpy()).all()
    kl = D.kl_divergence(p, D.Poisson(t([1.5, 1.0])))
    np.testing.assert_allclose(kl.numpy(), [1.5, 2.0 * np.log(2.0) - 1.0], rtol=1e-12)

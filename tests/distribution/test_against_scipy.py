"""log_prob / prob / entropy / mean / variance / cdf / icdf of each distribution against
scipy.stats, in float64 with batched parameters."""
import numpy as np
import pytest
from scipy import special, stats

import sampan as paddle
import sampan.distribution as D

R = np.random.default_rng(7)


def t(a):
    return paddle.to_tensor(np.asarray(a, dtype=np.float64))


LOC = np.array([-1.0, 0.0, 2.5])
SCALE = np.array([0.5, 1.0, 2.0])
X = np.array([-0.7, 0.3, 3.1])

# name -> (sampan distribution, scipy frozen distribution, values, methods checked)
CASES = {
    "normal": (lambda: D.Normal(t(LOC), t(SCALE)), stats.norm(LOC, SCALE), X,
               "log_prob prob entropy mean variance cdf icdf"),
    "uniform": (lambda: D.Uniform(t(LOC), t(LOC + SCALE * 3)), stats.uniform(LOC, SCALE * 3),
                LOC + SCALE, "log_prob prob entropy mean variance cdf icdf"),
    "laplace": (lambda: D.Laplace(t(LOC), t(SCALE)), stats.laplace(LOC, SCALE), X,
                "log_prob prob entropy mean variance cdf icdf"),
    "cauchy": (lambda: D.Cauchy(t(LOC), t(SCALE)), stats.cauchy(LOC, SCALE), X,
               "log_prob prob entropy cdf"),
    "gumbel": (lambda: D.Gumbel(t(LOC), t(SCALE)), stats.gumbel_r(LOC, SCALE), X,
               "log_prob prob entropy mean variance cdf"),
    "studentt": (lambda: D.StudentT(t([3.0, 5.5, 30.0]), t(LOC), t(SCALE)),
                 stats.t([3.0, 5.5, 30.0], LOC, SCALE), X,
                 "log_prob prob entropy mean variance"),
    "lognormal": (lambda: D.LogNormal(t(LOC), t(SCALE)), stats.lognorm(SCALE, scale=np.exp(LOC)),
                  np.array([0.2, 1.0, 7.0]), "log_prob prob entropy mean variance"),
    "exponential": (lambda: D.Exponential(t(SCALE)), stats.expon(scale=1 / SCALE),
                    np.array([0.1, 1.0, 2.5]), "log_prob prob entropy mean variance cdf icdf"),
    "gamma": (lambda: D.Gamma(t([0.5, 2.0, 7.0]), t(SCALE)),
              stats.gamma([0.5, 2.0, 7.0], scale=1 / SCALE), np.array([0.1, 1.0, 2.5]),
              "log_prob prob entropy mean variance"),
    "chi2": (lambda: D.Chi2(t([1.0, 3.0, 10.0])), stats.chi2([1.0, 3.0, 10.0]),
             np.array([0.1, 1.0, 12.0]), "log_prob prob entropy mean variance"),
    "beta": (lambda: D.Beta(t([0.5, 2.0, 5.0]), t([0.5, 3.0, 1.5])),
             stats.beta([0.5, 2.0, 5.0], [0.5, 3.0, 1.5]), np.array([0.1, 0.5, 0.9]),
             "log_prob prob entropy mean variance"),
    "bernoulli": (lambda: D.Bernoulli(t([0.1, 0.5, 0.8])), stats.bernoulli([0.1, 0.5, 0.8]),
                  np.array([1.0, 0.0, 1.0]), "log_prob prob entropy mean variance cdf"),
    "geometric": (lambda: D.Geometric(t([0.1, 0.5, 0.8])),
                  stats.geom([0.1, 0.5, 0.8], loc=-1), np.array([0.0, 2.0, 5.0]),
                  "log_prob entropy mean variance cdf"),
    "poisson": (lambda: D.Poisson(t([0.5, 3.0, 12.0])), stats.poisson([0.5, 3.0, 12.0]),
                np.array([0.0, 2.0, 15.0]), "log_prob prob entropy mean variance"),
    "binomial": (lambda: D.Binomial(t([5.0, 10.0, 20.0]), t([0.2, 0.5, 0.9])),
                 stats.binom([5, 10, 20], [0.2, 0.5, 0.9]), np.array([0.0, 4.0, 19.0]),
                 "log_prob prob entropy mean variance"),
}

_SCIPY = {"log_prob": lambda s, x: s.logpdf(x) if hasattr(s, "logpdf") else s.logpmf(x),
          "prob": lambda s, x: s.pdf(x) if hasattr(s, "pdf") else s.pmf(x),
          "entropy": lambda s, x: s.entropy(), "mean": lambda s, x: s.mean(),
          "variance": lambda s, x: s.var(), "cdf": lambda s, x: s.cdf(x),
          "icdf": lambda s, x: s.ppf(np.array([0.1, 0.5, 0.95]))}


def _ours(dist, method, x):
    if method in ("mean", "variance"):
        return getattr(dist, method)
    if method == "entropy":
        return dist.entropy()
    if method == "icdf":
        return dist.icdf(t([0.1, 0.5, 0.95]))
    return getattr(dist, method)(t(x))


@pytest.mark.parametrize("name,method", [(n, m) for n in sorted(CASES)
                                         for m in CASES[n][3].split()])
def test_matches_scipy(name, method):
    make, ref, x, _ = CASES[name]
    dist = make()
    out = _ours(dist, method, x)
    assert str(out.dtype) == "paddle.float64"
    np.testing.assert_allclose(out.numpy(), _SCIPY[method](ref, x), rtol=1e-6, atol=1e-9)


def test_dirichlet_against_scipy():
    conc = np.array([[0.5, 2.0, 3.0], [1.0, 1.0, 1.0]])
    value = np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])
    d = D.Dirichlet(t(conc))
    for i in range(2):
        ref = stats.dirichlet(conc[i])
        np.testing.assert_allclose(d.log_prob(t(value)).numpy()[i], ref.logpdf(value[i]),
                                   rtol=1e-10)
        np.testing.assert_allclose(d.entropy().numpy()[i], ref.entropy(), rtol=1e-10)
        np.testing.assert_allclose(d.mean.numpy()[i], ref.mean(), rtol=1e-10)
        np.testing.assert_allclose(d.variance.numpy()[i], ref.var(), rtol=1e-10)


def test_multinomial_against_scipy():
    probs = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    value = np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 2.0]])
    d = D.Multinomial(6, t(probs * 3.0))  # unnormalized weights are normalized
    for i in range(2):
        ref = stats.multinomial(6, probs[i])
        np.testing.assert_allclose(d.log_prob(t(value)).numpy()[i], ref.logpmf(value[i]),
                                   rtol=1e-10)
        np.testing.assert_allclose(d.entropy().numpy()[i], ref.entropy(), rtol=1e-8)
    np.testing.assert_allclose(d.mean.numpy(), 6 * probs, rtol=1e-12)
    np.testing.assert_allclose(d.variance.numpy(), 6 * probs * (1 - probs), rtol=1e-12)


def test_multivariate_normal_against_scipy():
    loc = np.array([[0.0, 1.0, -1.0], [2.0, 0.0, 0.5]])
    a = R.normal(size=(3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    value = R.normal(size=(4, 2, 3))
    for kw in ({"covariance_matrix": t(cov)}, {"precision_matrix": t(np.linalg.inv(cov))},
               {"scale_tril": t(np.linalg.cholesky(cov))}):
        d = D.MultivariateNormal(t(loc), **kw)
        assert d.batch_shape == (2,) and d.event_shape == (3,)
        ref = np.stack([stats.multivariate_normal(loc[i], cov).logpdf(value[:, i])
                        for i in range(2)], 1)
        np.testing.assert_allclose(d.log_prob(t(value)).numpy(), ref, rtol=1e-9)
        np.testing.assert_allclose(d.entropy().numpy(),
                                   [stats.multivariate_normal(loc[0], cov).entropy()] * 2,
                                   rtol=1e-10)
        np.testing.assert_allclose(d.variance.numpy(), np.broadcast_to(np.diag(cov), (2, 3)),
                                   rtol=1e-10)
        np.testing.assert_allclose(d.covariance_matrix.numpy(), cov, rtol=1e-10)


def test_categorical_probs_and_entropy():
    logits = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
    d = D.Categorical(t(logits))
    soft = special.softmax(logits, -1)
    np.testing.assert_allclose(d.entropy().numpy(), stats.entropy(soft, axis=-1), rtol=1e-10)
    # NOTE: as in Paddle, probs() reads logits as unnormalized probabilities
    idx = paddle.to_tensor(np.array([[2], [0]]))
    norm = logits / logits.sum(-1, keepdims=True)
    np.testing.assert_allclose(d.probs(idx).numpy(), [[norm[0, 2]], [norm[1, 0]]], rtol=1e-12)
    np.testing.assert_allclose(d.log_prob(idx).numpy(), np.log([[norm[0, 2]], [norm[1, 0]]]),
                               rtol=1e-12)
    # a 1-D value picks those categories from every batch row
    out = d.probs(paddle.to_tensor(np.array([0, 2])))
    np.testing.assert_allclose(out.numpy(), norm[:, [0, 2]], rtol=1e-12)


def _cb_norm(p):
    return 2 * np.arctanh(1 - 2 * p) / (1 - 2 * p)


@pytest.mark.parametrize("p", [0.1, 0.3, 0.4995, 0.7, 0.95])
def test_continuous_bernoulli_against_quadrature(p):
    from scipy.integrate import quad
    d = D.ContinuousBernoulli(t([p]))
    c = 2.0 if abs(p - 0.5) < 1e-3 else _cb_norm(p)
    pdf = lambda x: c * p ** x * (1 - p) ** (1 - x)  # noqa: E731
    mean = quad(lambda x: x * pdf(x), 0, 1)[0]
    var = quad(lambda x: (x - mean) ** 2 * pdf(x), 0, 1)[0]
    ent = -quad(lambda x: pdf(x) * np.log(pdf(x)), 0, 1)[0]
    x = np.array([0.2, 0.6])
    tol = 1e-3 if abs(p - 0.5) < 1e-3 else 1e-7
    np.testing.assert_allclose(d.mean.numpy(), [mean], rtol=tol)
    np.testing.assert_allclose(d.variance.numpy(), [var], rtol=tol)
    np.testing.assert_allclose(d.entropy().numpy(), [ent], rtol=tol, atol=1e-6)
    np.testing.assert_allclose(d.prob(t(x[:, None])).numpy()[:, 0], pdf(x), rtol=tol)
    cdf = [quad(pdf, 0, v)[0] for v in x]
    np.testing.assert_allclose(d.cdf(t(x[:, None])).numpy()[:, 0], cdf, rtol=tol)
    np.testing.assert_allclose(d.icdf(t(np.array(cdf)[:, None])).numpy()[:, 0], x, rtol=tol)

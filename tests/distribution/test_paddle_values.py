"""Deterministic values (log_prob, entropy, mean, variance, pmf, cdf) of every distribution
against numbers recorded from Paddle 3.3.1 (float32 parameters)."""
import numpy as np
import pytest

import sampan as paddle
import sampan.distribution as D


def f(a):
    return paddle.to_tensor(np.asarray(a, dtype="float32"))


CASES = {
    "normal": (lambda: D.Normal(f([0., 1.]), f([1., 2.])), lambda: f([0.5, -0.3])),
    "uniform": (lambda: D.Uniform(f([0., 1.]), f([1., 4.])), lambda: f([0.5, 3.0])),
    "categorical": (lambda: D.Categorical(f([[0.2, 0.3, 0.5], [1., 2., 3.]])),
                    lambda: paddle.to_tensor([[2], [0]])),
    "bernoulli": (lambda: D.Bernoulli(f([0.2, 0.7])), lambda: f([1., 0.])),
    "beta": (lambda: D.Beta(f([0.5, 2.]), f([0.5, 3.])), lambda: f([0.2, 0.6])),
    "dirichlet": (lambda: D.Dirichlet(f([[1., 2., 3.], [0.5, 0.5, 2.]])),
                  lambda: f([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
    "multinomial": (lambda: D.Multinomial(6, f([0.2, 0.3, 0.5])), lambda: f([1., 2., 3.])),
    "exponential": (lambda: D.Exponential(f([0.5, 2.])), lambda: f([0.3, 1.2])),
    "gamma": (lambda: D.Gamma(f([0.5, 2.]), f([1., 3.])), lambda: f([0.3, 1.2])),
    "laplace": (lambda: D.Laplace(f([0., 1.]), f([1., 2.])), lambda: f([0.5, -0.3])),
    "lognormal": (lambda: D.LogNormal(f([0., 1.]), f([1., 2.])), lambda: f([0.5, 3.0])),
    "gumbel": (lambda: D.Gumbel(f([0., 1.]), f([1., 2.])), lambda: f([0.5, -0.3])),
    "geometric": (lambda: D.Geometric(f([0.2, 0.7])), None),
    "cauchy": (lambda: D.Cauchy(f([0., 1.]), f([1., 2.])), lambda: f([0.5, -0.3])),
    "poisson": (lambda: D.Poisson(f([0.5, 4.])), lambda: f([1., 3.])),
    "binomial": (lambda: D.Binomial(f([5., 5.]), f([0.2, 0.7])), lambda: f([1., 3.])),
    "continuousbernoulli": (lambda: D.ContinuousBernoulli(f([0.2, 0.7])), lambda: f([0.3, 0.9])),
    "mvn": (lambda: D.MultivariateNormal(f([0., 1.]),
                                         covariance_matrix=f([[2., .5], [.5, 1.]])),
            lambda: f([0.3, 0.2])),
    "studentt": (lambda: D.StudentT(f([3., 5.]), f([0., 1.]), f([1., 2.])),
                 lambda: f([0.5, -0.3])),
    "chi2": (lambda: D.Chi2(f([3., 5.])), lambda: f([0.5, 2.])),
}

PADDLE = {'bernoulli': {'entropy': [0.500402, 0.610864],
               'log_prob': [-1.609438, -1.203973],
               'mean': [0.2, 0.7],
               'variance': [0.16, 0.21]},
 'beta': {'entropy': [-0.241565, -0.234906],
          'log_prob': [-0.228439, 0.1415],
          'mean': [0.5, 0.4],
          'variance': [0.125, 0.04]},
 'binomial': {'entropy': [1.243024, 1.413615],
              'log_prob': [-0.892574, -1.175386],
              'mean': [1.0, 3.5],
              'variance': [0.8, 1.05]},
 'categorical': {'entropy': [1.090636, 0.832396], 'log_prob': [[-0.693147], [-1.79176]]},
 'cauchy': {'entropy': [2.531024, 3.224172], 'log_prob': [-1.367873, -2.190293]},
 'chi2': {'entropy': [2.05412, 2.423095],
          'log_prob': [-1.515512, -1.97783],
          'mean': [3.0, 5.0],
          'variance': [6.0, 10.0]},
 'continuousbernoulli': {'entropy': [-0.076414, -0.029386],
                         'log_prob': [0.198428, 0.309183],
                         'mean': [0.388014, 0.569778],
                         'variance': [0.075898, 0.080425]},
 'dirichlet': {'entropy': [-1.244344, -1.934712],
               'log_prob': [1.504077, 1.627859],
               'mean': [[0.166667, 0.333333, 0.5], [0.166667, 0.166667, 0.666667]],
               'variance': [[0.019841, 0.031746, 0.035714], [0.034722, 0.034722, 0.055556]]},
 'exponential': {'entropy': [1.693147, 0.306853],
                 'log_prob': [-0.843147, -1.706853],
                 'mean': [2.0, 0.5],
                 'variance': [4.0, 0.25]},
 'gamma': {'entropy': [0.09061, 0.478603],
           'log_prob': [-0.270379, -1.220454],
           'mean': [0.5, 0.666667],
           'variance': [0.5, 0.222222]},
 'geometric': {'cdf': [0.488, 0.973],
               'entropy': [2.502012, 0.872663],
               'mean': [4.0, 0.428571],
               'pmf': [0.128, 0.063],
               'variance': [20.0, 0.612245]},
 'gumbel': {'entropy': [1.577216, 2.270363],
            'log_prob': [-1.106531, -1.958688],
            'mean': [0.577216, 2.154431],
            'variance': [1.644934, 6.579736]},
 'laplace': {'entropy': [1.693147, 2.386294],
             'log_prob': [-1.193147, -2.036294],
             'mean': [0.0, 1.0],
             'variance': [2.0, 8.0]},
 'lognormal': {'entropy': [1.418938, 3.112086],
               'log_prob': [-0.466018, -2.711914],
               'mean': [1.648721, 20.08554],
               'variance': [4.670774, 21623.04]},
 'multinomial': {'entropy': 2.790656,
                 'log_prob': -2.00248,
                 'mean': [1.2, 1.8, 3.0],
                 'variance': [0.96, 1.26, 1.5]},
 'mvn': {'entropy': 3.117685,
         'log_prob': -2.577685,
         'mean': [0.0, 1.0],
         'variance': [2.0, 1.0]},
 'normal': {'entropy': [1.418938, 2.112086],
            'log_prob': [-1.043938, -1.823336],
            'mean': [0.0, 1.0],
            'variance': [1.0, 4.0]},
 'poisson': {'entropy': [0.927637, 2.086672],
             'log_prob': [-1.193147, -1.632876],
             'mean': [0.5, 4.0],
             'variance': [0.5, 4.0]},
 'studentt': {'entropy': [1.773477, 2.320649],
              'log_prob': [-1.160974, -1.905124],
              'mean': [0.0, 1.0],
              'variance': [3.0, 6.666666]},
 'uniform': {'entropy': [0.0, 1.098612], 'log_prob': [0.0, -1.098612]}}


def _compute(dist, method, value):
    if method == "entropy":
        return dist.entropy()
    if method == "log_prob":
        return dist.log_prob(value())
    if method in ("pmf", "cdf"):
        return getattr(dist, method)(2)
    return getattr(dist, method)


@pytest.mark.parametrize("name,method", [(n, m) for n in sorted(PADDLE) for m in PADDLE[n]])
def test_matches_paddle_3_3_1(name, method):
    make, value = CASES[name]
    out = _compute(make(), method, value)
    assert str(out.dtype) == "paddle.float32"
    np.testing.assert_allclose(out.numpy(), PADDLE[name][method], rtol=2e-5, atol=2e-6)


def test_complex_normal_matches_paddle_3_3_1():
    d = D.Normal(complex(1, 2), 0.5)
    assert d.batch_shape == () and d.dtype == "complex64" and str(d.scale.dtype) == \
        "paddle.float32"
    v = paddle.to_tensor(complex(0.3, 1.1), dtype="complex64")
    lp = d.log_prob(v)
    assert str(lp.dtype) == "paddle.complex64"
    np.testing.assert_allclose(lp.numpy(), -4.958435, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(d.prob(v).numpy(), 0.00702391, rtol=1e-5)
    np.testing.assert_allclose(d.entropy().numpy(), 0.75843549, rtol=1e-6)
    np.testing.assert_allclose(d.log_prob(paddle.to_tensor(0.3)).numpy(), -17.718435, rtol=1e-6)
    assert str(d.sample([3]).dtype) == "paddle.complex64" and d.rsample([2]).shape == [2]
    d2 = D.Normal(np.array([1 + 1j, 2 - 1j]), np.array([1.0, 2.0]))
    assert d2.dtype == "complex128" and d2.sample([2]).shape == [2, 2]
    np.testing.assert_allclose(d2.entropy().numpy(), [2.14472989, 3.53102425], rtol=1e-8)
    kl = D.kl_divergence(d2, D.Normal(np.array([0j, 1j]), np.array([2.0, 1.0])))
    np.testing.assert_allclose(kl.numpy(), [1.13629436, 9.61370564], rtol=1e-8)
    with pytest.raises(ValueError, match="must be real or both complex"):
        D.kl_divergence(d2, D.Normal(np.array([0.0, 1.0]), np.array([2.0, 1.0])))
    with pytest.raises(NotImplementedError, match="Normal.cdf: not defined for a complex"):
        d.cdf(v)


def test_complex_normal_parts_have_half_the_variance():
    paddle.seed(1)
    d = D.Normal(paddle.to_tensor(np.full(20000, 1 - 2j)), paddle.to_tensor(np.full(20000, 2.0)))
    s = d.sample([]).numpy()
    np.testing.assert_allclose([s.real.mean(), s.imag.mean()], [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose([s.real.var(), s.imag.var()], [2.0, 2.0], rtol=0.05)

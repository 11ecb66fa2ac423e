"""paddle.distribution: probability distributions, transforms and KL divergence.

Written in sampan tensor ops (gradients and static mode come with them); draws go through
sampan's random ops so `paddle.seed` reproduces them. Imports rooms below it only.
"""
from __future__ import annotations

import sys

from . import constraint, continuous, counting, discrete, gamma, transformed_distribution, variable
from .continuous import Cauchy, Gumbel, Laplace, Normal, StudentT, Uniform
from .counting import Binomial, Geometric, Poisson
from .discrete import Bernoulli, Categorical, ContinuousBernoulli, Multinomial
from .distribution import Distribution
from .gamma import Beta, Chi2, Dirichlet, Exponential, ExponentialFamily, Gamma
from .kl import kl_divergence, register_kl
from .multivariate_normal import MultivariateNormal
from .transform import (AbsTransform, AffineTransform, ChainTransform, ExpTransform,
                        IndependentTransform, PowerTransform, ReshapeTransform,
                        SigmoidTransform, SoftmaxTransform, StackTransform,
                        StickBreakingTransform, TanhTransform, Transform)
from .transformed_distribution import Independent, LogNormal, TransformedDistribution

__all__ = [
    "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "ContinuousBernoulli",
    "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "Gamma", "Geometric",
    "Gumbel", "Independent", "Laplace", "LogNormal", "Multinomial", "MultivariateNormal",
    "Normal", "Poisson", "StudentT", "TransformedDistribution", "Uniform",
    "kl_divergence", "register_kl",
    "Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
    "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
    "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
]

# Paddle keeps one module per distribution (paddle.distribution.normal, .beta, ...); sampan
# groups them. These module paths name the sampan module that defines the class.
_MODULE_PATHS = {
    "bernoulli": discrete, "beta": gamma, "binomial": counting, "categorical": discrete,
    "cauchy": continuous, "chi2": gamma, "continuous_bernoulli": discrete, "dirichlet": gamma,
    "exponential": gamma, "exponential_family": gamma, "geometric": counting,
    "gumbel": continuous, "independent": transformed_distribution, "laplace": continuous,
    "lognormal": transformed_distribution, "multinomial": discrete, "normal": continuous,
    "poisson": counting, "student_t": continuous, "uniform": continuous,
}
for _name, _module in _MODULE_PATHS.items():
    sys.modules[f"{__name__}.{_name}"] = _module
    globals()[_name] = _module
del _name, _module

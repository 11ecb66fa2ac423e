"""kl_divergence and register_kl: a table of KL(p || q) rules keyed by class pairs.

The rule for (type(p), type(q)) is the registered pair whose classes are nearest in the two
MROs; a pair that is nearest for p but not for q (or the reverse) is ambiguous and warns.
Imports `framework`, `tensor`, `autograd`, and the package's distributions.
"""
from __future__ import annotations

import math
import warnings
from typing import Callable

from .. import tensor as T
from ..autograd import grad as _grad
from ..framework.tensor import Tensor
from .continuous import Cauchy, Laplace, Normal, Uniform
from .counting import Binomial, Geometric, Poisson
from .discrete import Bernoulli, Categorical, ContinuousBernoulli
from .distribution import Distribution, sum_rightmost
from .gamma import Beta, Dirichlet, Exponential, ExponentialFamily, Gamma
from .multivariate_normal import MultivariateNormal, _solve_lower
from .transformed_distribution import Independent, LogNormal

__all__ = ["kl_divergence", "register_kl"]

_REGISTRY: dict = {}


def register_kl(cls_p: type, cls_q: type) -> Callable:
    """Decorator registering fn(p, q) as KL(p || q) for p of cls_p and q of cls_q.

    Args:
        cls_p (type): a subclass of Distribution.
        cls_q (type): a subclass of Distribution.

    Examples:
        >>> from sampan.distribution import Beta, Normal, register_kl
        >>> @register_kl(Beta, Normal)
        ... def _kl_beta_normal(p, q):
        ...     raise NotImplementedError
    """
    for name, cls in (("cls_p", cls_p), ("cls_q", cls_q)):
        if not (isinstance(cls, type) and issubclass(cls, Distribution)):
            raise TypeError(f"register_kl: {name} must be a subclass of Distribution, got "
                            f"{cls!r}")

    def decorator(fn):
        _REGISTRY[cls_p, cls_q] = fn
        return fn
    return decorator


def _lookup(cls_p: type, cls_q: type) -> Callable:
    matches = [(sp, sq) for sp, sq in _REGISTRY if issubclass(cls_p, sp) and issubclass(cls_q, sq)]
    if not matches:
        raise NotImplementedError(f"kl_divergence: no rule for ({cls_p.__name__}, "
                                  f"{cls_q.__name__}); add one with register_kl")
    rank_p, rank_q = cls_p.__mro__.index, cls_q.__mro__.index
    left = min(matches, key=lambda m: (rank_p(m[0]), rank_q(m[1])))
    right = min(matches, key=lambda m: (rank_q(m[1]), rank_p(m[0])))
    if _REGISTRY[left] is not _REGISTRY[right]:
        warnings.warn(f"Ambiguous kl_divergence({cls_p.__name__}, {cls_q.__name__}); please "
                      f"register_kl({left[0].__name__}, {right[1].__name__})", RuntimeWarning,
                      stacklevel=3)
    return _REGISTRY[left]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    r"""KL(p || q) = E_p[log p(x) - log q(x)], by the registered closed form.

    Args:
        p (Distribution): the first distribution.
        q (Distribution): the second distribution.

    Returns:
        Tensor: the divergence, of the batch shape.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Normal, kl_divergence
        >>> round(float(kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0))), 4)
        0.4431
    """
    for name, d in (("p", p), ("q", q)):
        if not isinstance(d, Distribution):
            raise TypeError(f"kl_divergence: {name} must be a Distribution, got "
                            f"{type(d).__name__}")
    return _lookup(type(p), type(q))(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    if p._complex_gaussian != q._complex_gaussian:
        raise ValueError("kl_divergence: both Normal distributions must be real or both "
                         "complex")
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = (p.loc - q.loc) / q.scale
    if p._complex_gaussian:
        return var_ratio + t1.conj() * t1 - 1.0 - var_ratio.log()
    return 0.5 * var_ratio + 0.5 * (t1.pow(2) - 1.0 - var_ratio.log())


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return _kl_normal_normal(p._base, q._base)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    inside = (q.low <= p.low) & (p.high <= q.high)
    value = ((q.high - q.low) / (p.high - p.low)).log()
    return T.where(inside, value, T.full_like(value, math.inf))


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    gap = (p.loc - q.loc).abs()
    return ((q.scale / p.scale).log() + gap / q.scale
            + p.scale / q.scale * (-gap / p.scale).exp() - 1.0)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    num = (p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)
    return (num / (4.0 * p.scale * q.scale)).log()


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ratio.log() - 1.0


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    cp, cq, rp, rq = p.concentration, q.concentration, p.rate, q.rate
    return ((cp - cq) * T.digamma(cp) - T.lgamma(cp) + T.lgamma(cq)
            + cq * (rp.log() - rq.log()) + cp * (rq - rp) / rp)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sp, sq = p.alpha + p.beta, q.alpha + q.beta
    return (T.lgamma(q.alpha) + T.lgamma(q.beta) + T.lgamma(sp)
            - T.lgamma(p.alpha) - T.lgamma(p.beta) - T.lgamma(sq)
            + (p.alpha - q.alpha) * T.digamma(p.alpha) + (p.beta - q.beta) * T.digamma(p.beta)
            + (sq - sp) * T.digamma(sp))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    cp, cq = p.concentration, q.concentration
    sp = cp.sum(-1)
    return (T.lgamma(sp) - T.lgamma(cq.sum(-1)) - (T.lgamma(cp) - T.lgamma(cq)).sum(-1)
            + ((cp - cq) * (T.digamma(cp) - T.digamma(sp).unsqueeze(-1))).sum(-1))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    pa = p.probs
    return (pa * (pa.log() - q.probs.log())
            + (1.0 - pa) * ((-pa).log1p() - (-q.probs).log1p()))


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    # NOTE: keepdim, as Paddle (the result keeps a trailing axis of size 1)
    log_p, log_q = p._log_softmax(), q._log_softmax()
    return (log_p.exp() * (log_p - log_q)).sum(-1, keepdim=True)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_cb_cb(p, q):
    if tuple(p.batch_shape) != tuple(q.batch_shape):
        raise ValueError(f"kl_divergence: ContinuousBernoulli batch shapes differ: "
                         f"{list(p.batch_shape)} vs {list(q.batch_shape)}")
    log_q, log_1mq = q.probs.log(), (-q.probs).log1p()
    cross = -(q._log_constant() + p.mean * (log_q - log_1mq) + log_1mq)
    return cross - p.entropy()


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    # NOTE: Paddle 3.3.1 returns p times this value (a Bernoulli-like formula).
    a, b = p.probs, q.probs
    return (a / b).log() + (1.0 - a) / a * ((-a).log1p() - (-b).log1p())


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    value = p.rate * (p.rate.log() - q.rate.log()) - p.rate + q.rate
    return T.where(p.rate == 0, q.rate + T.zeros_like(value), value)  # 0 log 0 = 0


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    support = p._enumerate_support()
    log_p, log_q = p.log_prob(support), q.log_prob(support)
    terms = log_p.exp() * (log_p - log_q)
    return T.where(support <= p.total_count, terms, T.zeros_like(terms)).sum(0)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    k = p.event_shape[0]
    if q.event_shape[0] != k:
        raise ValueError(f"kl_divergence: MultivariateNormal event sizes differ: {k} vs "
                         f"{q.event_shape[0]}")
    trace = _solve_lower(q.scale_tril, p.scale_tril).pow(2).sum([-2, -1])
    diff = (q.loc - p.loc).unsqueeze(-1)
    maha = _solve_lower(q.scale_tril, diff).squeeze(-1).pow(2).sum(-1)
    return 0.5 * (trace + maha - k) + q._half_log_det() - p._half_log_det()


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p._reinterpreted_batch_rank != q._reinterpreted_batch_rank:
        raise NotImplementedError("kl_divergence: Independent distributions with different "
                                  "reinterpreted_batch_rank")
    return sum_rightmost(kl_divergence(p._base, q._base), p._reinterpreted_batch_rank)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """Bregman divergence of the log-normalizer (same family only)."""
    if type(p) is not type(q):
        raise NotImplementedError(f"kl_divergence: no rule for ({type(p).__name__}, "
                                  f"{type(q).__name__}); add one with register_kl")
    p_params = [t.detach() for t in p._natural_parameters]
    for t in p_params:
        t.stop_gradient = False
    p_norm = p._log_normalizer(*p_params)
    grads = _grad(p_norm.sum(), p_params, create_graph=True)
    kl = q._log_normalizer(*q._natural_parameters) - p_norm
    for pp, qp, g in zip(p_params, q._natural_parameters, grads):
        kl = kl - sum_rightmost((qp - pp) * g, len(q.event_shape))
    return kl

"""Bernoulli, ContinuousBernoulli, Categorical and Multinomial.

Written in sampan tensor ops; draws come from paddle's bernoulli/multinomial/uniform ops.
Imports `framework`, `tensor`, `nn.functional`, and the package's own helpers.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

from .. import tensor as T
from ..autograd import no_grad
from ..framework.tensor import Tensor
from ..nn import functional as F
from ._random import open_uniform
from .distribution import Distribution, check_shape, dtype_name, is_tensor, to_params


class Bernoulli(Distribution):
    r"""The Bernoulli distribution: 1 with probability `probs`, else 0.

    Args:
        probs (float|Tensor): probability of 1, clipped to [eps, 1 - eps].
        name (str, optional): unused, for Paddle compatibility.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Bernoulli
        >>> d = Bernoulli(0.3)
        >>> d.sample([3]).shape
        paddle.Size([3])
        >>> round(float(d.entropy()), 4)
        0.6109
    """

    def __init__(self, probs, name: str | None = None):
        self.name = name or "Bernoulli"
        (probs,) = to_params("Bernoulli", ("probs",), (probs,))
        self.dtype = dtype_name(probs)
        eps = T.finfo(self.dtype).eps
        self.probs = probs.clip(eps, 1.0 - eps)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(tuple(self.probs.shape))

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def variance(self) -> Tensor:
        return self.probs * (1.0 - self.probs)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return T.bernoulli(self.probs.expand(list(self._extend_shape(shape))))

    def rsample(self, shape: Sequence[int] = (), temperature: float = 1.0) -> Tensor:
        """Relaxed (Gumbel/Concrete) sample, as Paddle: the logistic-noise logit
        (log u - log(1 - u) + logits) / temperature, not squashed by a sigmoid."""
        full = list(self._extend_shape(shape))
        u = open_uniform(full, self.dtype, T.finfo(self.dtype).tiny)
        return (u.log() - (-u).log1p() + self.logits.expand(full)) / temperature

    def cdf(self, value) -> Tensor:
        value = self._value(value, self.probs)
        probs, value = T.broadcast_tensors([self.probs, value])
        return T.where(value < 0, T.zeros_like(probs),
                       T.where(value < 1, 1.0 - probs, T.ones_like(probs)))

    def log_prob(self, value) -> Tensor:
        value = self._value(value, self.probs)
        logits, value = T.broadcast_tensors([self.logits, value])
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


class ContinuousBernoulli(Distribution):
    r"""The continuous Bernoulli distribution on [0, 1]: pdf(x) = C(p) p^x (1 - p)^(1 - x).

    Near p = 0.5 (inside `lims`) the normalizer and moments use Taylor expansions, as Paddle.

    Args:
        probs (float|Tensor): p in (0, 1); a Python float gives batch shape [1] (as Paddle).
        lims (tuple[float], optional): the unstable region around 0.5. Default (0.499, 0.501).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import ContinuousBernoulli
        >>> d = ContinuousBernoulli(paddle.to_tensor([0.3]))
        >>> d.sample([2]).shape
        paddle.Size([2, 1])
        >>> round(float(d.mean[0]), 4)
        0.4302
    """

    def __init__(self, probs, lims: tuple = (0.499, 0.501)):
        if isinstance(probs, numbers.Real):
            probs = [float(probs)]
        (probs,) = to_params("ContinuousBernoulli", ("probs",), (probs,))
        self.dtype = dtype_name(probs)
        eps = T.finfo(self.dtype).eps
        self.probs = probs.clip(eps, 1.0 - eps)
        self.lims = (float(lims[0]), float(lims[1]))
        super().__init__(tuple(self.probs.shape))

    def _outside(self) -> Tensor:
        return (self.probs <= self.lims[0]) | (self.probs > self.lims[1])

    def _cut_probs(self) -> Tensor:
        return T.where(self._outside(), self.probs, T.full_like(self.probs, self.lims[0]))

    @staticmethod
    def _atanh(x: Tensor) -> Tensor:
        return 0.5 * (x.log1p() - (-x).log1p())

    def _log_constant(self) -> Tensor:
        p = self._cut_probs()
        below = T.where(p <= 0.5, p, T.zeros_like(p))
        above = T.where(p >= 0.5, p, T.ones_like(p))
        exact = ((2.0 * self._atanh(1.0 - 2.0 * p).abs()).log()
                 - T.where(p <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log()))
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return T.where(self._outside(), exact, taylor)

    @property
    def mean(self) -> Tensor:
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / (2.0 * self._atanh(1.0 - 2.0 * p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return T.where(self._outside(), exact, taylor)

    @property
    def variance(self) -> Tensor:
        p = self._cut_probs()
        exact = (p * (p - 1.0) / (1.0 - 2.0 * p).pow(2)
                 + 1.0 / ((-p).log1p() - p.log()).pow(2))
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return T.where(self._outside(), exact, taylor)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        return self.icdf(open_uniform(self._extend_shape(shape), self.dtype, 0.0, 1.0))

    def log_prob(self, value) -> Tensor:
        value = self._value(value, self.probs)
        eps = T.finfo(self.dtype).eps
        cross = T.nan_to_num(value * self.probs.log() + (1.0 - value) * (-self.probs).log1p(),
                             neginf=-eps)
        return self._log_constant() + cross

    def entropy(self) -> Tensor:
        log_p, log_q = self.probs.log(), (-self.probs).log1p()
        return -self._log_constant() + self.mean * (log_q - log_p) - log_q

    def cdf(self, value) -> Tensor:
        value = self._value(value, self.probs)
        p = self._cut_probs()
        exact = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inner = T.where(self._outside(), exact, value)
        return T.where(value <= 0.0, T.zeros_like(inner),
                       T.where(value >= 1.0, T.ones_like(inner), inner))

    def icdf(self, value) -> Tensor:
        value = self._value(value, self.probs)
        p = self._cut_probs()
        exact = (((-p + value * (2.0 * p - 1.0)).log1p() - (-p).log1p())
                 / (p.log() - (-p).log1p()))
        return T.where(self._outside(), exact, value)


class Categorical(Distribution):
    r"""A categorical distribution over the last axis of `logits`.

    NOTE: as in Paddle, `probs`/`log_prob` read `logits` as unnormalized probabilities
    (logits / logits.sum(-1)), while `sample`, `entropy` and `kl_divergence` read them as
    logits (softmax).

    Args:
        logits (list|numpy.ndarray|Tensor): [..., k] scores.
        name (str, optional): unused, for Paddle compatibility.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Categorical
        >>> d = Categorical(paddle.to_tensor([0.2, 0.3, 0.5]))
        >>> d.sample([4]).shape
        paddle.Size([4])
        >>> [round(v, 4) for v in d.probs(paddle.to_tensor([0, 2])).tolist()]
        [0.2, 0.5]
    """

    def __init__(self, logits, name: str | None = None):
        self.name = name or "Categorical"
        if isinstance(logits, numbers.Real):
            raise TypeError("Categorical: logits must be a list, numpy.ndarray or Tensor, got "
                            f"{type(logits).__name__}")
        (self.logits,) = to_params("Categorical", ("logits",), (logits,))
        if self.logits.ndim < 1:
            raise ValueError("Categorical: logits must be at least 1-D, got a 0-D tensor")
        self.dtype = dtype_name(self.logits)
        self._prob = self.logits / self.logits.sum(-1, keepdim=True)
        super().__init__(tuple(self.logits.shape[:-1]))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = check_shape("Categorical.sample", shape)
        count = int(math.prod(shape))
        k = self.logits.shape[-1]
        with no_grad():
            probs = F.softmax(self.logits.reshape([-1, k]), axis=-1)
            if count == 0:
                return T.zeros(list(shape + self.batch_shape), "int64")
            idx = T.multinomial(probs, count, True)  # [batch, count]
            return idx.transpose([1, 0]).reshape(list(shape + self.batch_shape))

    def _log_softmax(self) -> Tensor:
        logits = self.logits - self.logits.max(-1, keepdim=True)
        log_z = logits.exp().sum(-1, keepdim=True).log()
        return logits - log_z

    def entropy(self) -> Tensor:
        log_p = self._log_softmax()
        return -(log_p.exp() * log_p).sum(-1)

    def probs(self, value) -> Tensor:
        value = value if is_tensor(value) else T.to_tensor(value)
        prob = self._prob
        if prob.ndim == 1:
            return T.gather(prob, value.reshape([-1])).reshape(list(value.shape))
        if value.ndim == 1:
            index = value.reshape([1] * (prob.ndim - 1) + [-1])
            index = index.expand(list(prob.shape[:-1]) + [value.shape[0]])
            return T.take_along_axis(prob, index, axis=-1)
        return T.take_along_axis(prob, value, axis=-1)

    def prob(self, value) -> Tensor:
        return self.probs(value)

    def log_prob(self, value) -> Tensor:
        return self.probs(value).log()


class Multinomial(Distribution):
    r"""The multinomial distribution: counts of `total_count` categorical draws.

    Args:
        total_count (int): number of draws (>= 1).
        probs (Tensor): [..., k] non-negative weights (normalized over the last axis).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Multinomial
        >>> d = Multinomial(5, paddle.to_tensor([0.2, 0.3, 0.5]))
        >>> d.sample([2]).shape
        paddle.Size([2, 3])
        >>> float(d.sample().sum())
        5.0
    """

    def __init__(self, total_count: int, probs: Tensor):
        if isinstance(total_count, bool) or not isinstance(total_count, int) or total_count < 1:
            raise ValueError(f"Multinomial: total_count must be an int >= 1, got {total_count!r}")
        (probs,) = to_params("Multinomial", ("probs",), (probs,))
        if probs.ndim < 1:
            raise ValueError("Multinomial: probs must be at least 1-D, got a 0-D tensor")
        self.total_count = total_count
        self.probs = probs / probs.sum(-1, keepdim=True)
        self.dtype = dtype_name(probs)
        self._categorical = Categorical(self._probs_to_logits(probs))
        shape = tuple(probs.shape)
        super().__init__(shape[:-1], shape[-1:])

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1.0 - self.probs)

    def log_prob(self, value) -> Tensor:
        value = self._value(value, self.probs)
        logits, value = T.broadcast_tensors([self.probs.log(), value])
        logits = T.where((value == 0) & T.isinf(logits), T.zeros_like(logits), logits)
        return (T.lgamma(value.sum(-1) + 1.0) - T.lgamma(value + 1.0).sum(-1)
                + (value * logits).sum(-1))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        shape = check_shape("Multinomial.sample", shape)
        draws = self._categorical.sample((self.total_count,) + shape)
        k = self.probs.shape[-1]
        return F.one_hot(draws, k).astype(self.dtype).sum(0)

    def entropy(self) -> Tensor:
        n = float(self.total_count)
        rank = self.probs.ndim
        support = T.arange(1, self.total_count + 1, dtype=self.dtype)
        support = support.reshape([-1] + [1] * rank)
        logits = self._probs_to_logits(self.probs, is_binary=True)
        log_pmf = (support * logits - T.lgamma(support + 1.0) - T.lgamma(n - support + 1.0)
                   + math.lgamma(n + 1.0) - n * F.softplus(logits))
        expect = (log_pmf.exp() * T.lgamma(support + 1.0)).sum([0, -1])
        return n * self._categorical.entropy() - math.lgamma(n + 1.0) + expect

"""Count distributions: Geometric, Poisson, Binomial.

Entropy of Poisson and Binomial (and Binomial's KL) sum over an enumerated support whose length
is read from the parameters' values, so those need eager parameters, as Paddle's eager path.
Imports `framework`, `tensor`, and the package's own helpers.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

from .. import tensor as T
from ..autograd import no_grad
from ..framework.flags import in_dynamic_mode
from ..framework.tensor import Tensor
from ._random import binomial, open_uniform
from .distribution import Distribution, dtype_name, is_tensor, to_params


def _max_value(api: str, param: Tensor) -> float:
    """The largest element of param as a Python float (0.0 if empty); eager only."""
    if not in_dynamic_mode():
        raise NotImplementedError(f"{api}: needs eager parameters (the support size is read "
                                  f"from their values), not static Variables")
    return float(param.max()) if param.size else 0.0


def _support(upper: float, dtype: str, rank: int) -> Tensor:
    """0, 1, ..., int(upper) as a column [n, 1, ..., 1] that broadcasts over `rank` axes."""
    return T.arange(0, int(upper) + 1, dtype=dtype).reshape([-1] + [1] * rank)


class Geometric(Distribution):
    r"""The geometric distribution: failures before the first success, P(k) = (1 - p)^k p.

    Args:
        probs (float|Tensor): success probability p in (0, 1].

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Geometric
        >>> d = Geometric(0.5)
        >>> float(d.mean), float(d.pmf(2))
        (1.0, 0.125)
    """

    def __init__(self, probs):
        if isinstance(probs, bool) or not isinstance(probs, numbers.Real) and not is_tensor(probs):
            raise TypeError(f"Geometric: probs must be a float or Tensor, got "
                            f"{type(probs).__name__}")
        (self.probs,) = to_params("Geometric", ("probs",), (probs,))
        if in_dynamic_mode() and self.probs.size and not bool(
                ((self.probs > 0) & (self.probs <= 1)).all()):
            raise ValueError("Geometric: every element of probs must lie in (0, 1]")
        self.dtype = dtype_name(self.probs)
        super().__init__(tuple(self.probs.shape))

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def _k(self, api: str, k) -> Tensor:
        if isinstance(k, bool) or not (isinstance(k, numbers.Integral) or is_tensor(k)):
            raise TypeError(f"Geometric.{api}: k must be an int or Tensor, got "
                            f"{type(k).__name__}")
        return self._value(k, self.probs)

    def pmf(self, k) -> Tensor:
        """P(X = k)."""
        return self._log_pmf(self._k("pmf", k)).exp()

    def log_pmf(self, k) -> Tensor:
        """log P(X = k)."""
        return self._log_pmf(self._k("log_pmf", k))

    def log_prob(self, value) -> Tensor:
        return self._log_pmf(self._value(value, self.probs))

    def _log_pmf(self, k: Tensor) -> Tensor:
        return k * (-self.probs).log1p() + self.probs.log()

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        u = open_uniform(self._extend_shape(shape), self.dtype, T.finfo("float32").tiny)
        return (u.log() / (-self.probs).log1p()).floor()

    def entropy(self) -> Tensor:
        p = self.probs
        return -((1.0 - p) * (-p).log1p() + p * p.log()) / p

    def cdf(self, k) -> Tensor:
        """P(X <= k)."""
        k = self._k("cdf", k)
        return 1.0 - (1.0 - self.probs).pow(k + 1.0)


class Poisson(Distribution):
    r"""The Poisson distribution with `rate`: P(k) = rate^k e^(-rate) / k!.

    Args:
        rate (float|Tensor): rate (>= 0); a Python float gives batch shape [1] (as Paddle).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Poisson
        >>> d = Poisson(paddle.to_tensor([2.0]))
        >>> d.sample([3]).shape
        paddle.Size([3, 1])
        >>> round(float(d.prob(paddle.to_tensor([1.0]))), 4)
        0.2707
    """

    def __init__(self, rate):
        if isinstance(rate, numbers.Real):
            rate = [float(rate)]
        (self.rate,) = to_params("Poisson", ("rate",), (rate,))
        if in_dynamic_mode() and self.rate.size and not bool((self.rate >= 0).all()):
            raise ValueError("Poisson: every element of rate must be non-negative")
        self.dtype = dtype_name(self.rate)
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            return T.poisson(self.rate.expand(list(self._extend_shape(shape))))

    def log_prob(self, value) -> Tensor:
        value = self._value(value, self.rate)
        # NOTE: 0 * log(0) is 0 (rate 0 puts all mass on 0); Paddle's nan_to_num instead
        # turns an impossible value's -inf into -eps.
        term = T.where(value == 0, T.zeros_like(value), value * self.rate.log())
        return term - self.rate - T.lgamma(value + 1.0)

    def entropy(self) -> Tensor:
        top = _max_value("Poisson.entropy", self.rate)
        upper = top + 30.0 * max(math.sqrt(top), 1.0)
        values = _support(upper, self.dtype, len(self.batch_shape))
        log_prob = self.log_prob(values)
        terms = T.where(T.isinf(log_prob), T.zeros_like(log_prob), log_prob.exp() * log_prob)
        return -terms.sum(0)


class Binomial(Distribution):
    r"""The binomial distribution: successes in `total_count` trials of probability `probs`.

    Args:
        total_count (int|Tensor): number of trials (>= 0).
        probs (float|Tensor): success probability in [0, 1].

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Binomial
        >>> d = Binomial(10, 0.3)
        >>> float(d.mean), round(float(d.variance), 4)
        (3.0, 2.1)
        >>> d.sample([4]).shape
        paddle.Size([4])
    """

    def __init__(self, total_count, probs):
        count_is_tensor = is_tensor(total_count)
        if count_is_tensor:
            total_count = total_count.astype(dtype_name(probs) if is_tensor(probs)
                                             else "float32")
        self.total_count, self.probs = to_params("Binomial", ("total_count", "probs"),
                                                 (total_count, probs),
                                                 dtype=dtype_name(probs) if is_tensor(probs)
                                                 else None)
        if in_dynamic_mode() and self.probs.size:
            if not bool(((self.probs >= 0) & (self.probs <= 1)).all()):
                raise ValueError("Binomial: every element of probs must lie in [0, 1]")
            if not bool((self.total_count >= 0).all()):
                raise ValueError("Binomial: every element of total_count must be >= 0")
        self.dtype = dtype_name(self.probs)
        super().__init__(tuple(self.probs.shape))

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1.0 - self.probs)

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        full = list(self._extend_shape(shape))
        with no_grad():
            count = self.total_count.expand(full).astype("int64")
            return binomial(count, self.probs.expand(full)).astype(self.dtype)

    def log_prob(self, value) -> Tensor:
        value = self._value(value, self.probs)
        n = self.total_count
        log_comb = T.lgamma(n + 1.0) - T.lgamma(n - value + 1.0) - T.lgamma(value + 1.0)
        eps = T.finfo(self.dtype).eps
        p = self.probs.clip(eps, 1.0 - eps)
        out = log_comb + value * p.log() + (n - value) * (-p).log1p()
        inside = (value >= 0) & (value <= n)
        return T.where(inside, out, T.full_like(out, float("-inf")))

    def _enumerate_support(self) -> Tensor:
        top = _max_value("Binomial", self.total_count)
        return _support(top, self.dtype, len(self.batch_shape))

    def entropy(self) -> Tensor:
        support = self._enumerate_support()
        log_prob = self.log_prob(support)
        terms = T.where(support <= self.total_count, log_prob.exp() * log_prob,
                        T.zeros_like(log_prob))
        return -terms.sum(0)

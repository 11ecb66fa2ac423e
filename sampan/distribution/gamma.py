"""ExponentialFamily and the gamma family: Exponential, Gamma, Chi2, Beta, Dirichlet.

Gamma-type draws come from the standard_gamma op (no gradient through the concentration, as in
Paddle); Exponential and the rate of Gamma are reparameterized. Imports `framework`, `tensor`,
`autograd`, and the package's own helpers.
"""
from __future__ import annotations

from collections.abc import Sequence

from .. import tensor as T
from ..autograd import grad as _grad
from ..autograd import no_grad
from ..framework.flags import in_dynamic_mode
from ..framework.tensor import Tensor
from ._random import open_uniform, standard_gamma
from .distribution import Distribution, dtype_name, sum_rightmost, to_params


class ExponentialFamily(Distribution):
    r"""Base of exponential-family distributions p(x) = h(x) exp(<t(x), theta> - F(theta)).

    Subclasses give `_natural_parameters` (theta), `_log_normalizer(*theta)` (F) and
    `_mean_carrier_measure` (E[log h(x)]); `entropy` then follows from the Bregman divergence
    of F (through autograd), and so does KL between two members of one family.
    """

    @property
    def _natural_parameters(self) -> tuple:
        raise NotImplementedError

    def _log_normalizer(self, *natural):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError

    def entropy(self) -> Tensor:
        # the carrier measure first: a subclass without one is NotImplementedError (Paddle)
        carrier = self._mean_carrier_measure
        params = [p.detach() for p in self._natural_parameters]
        for p in params:
            p.stop_gradient = False
        log_norm = self._log_normalizer(*params)
        grads = _grad(log_norm.sum(), params, create_graph=True)
        value = log_norm - carrier
        for p, g in zip(params, grads):
            value = value - sum_rightmost(p * g, len(self.event_shape))
        return value


def _positive(api: str, name: str, value: Tensor) -> None:
    """Eager check that a parameter is positive (static Variables are not checked)."""
    if in_dynamic_mode() and value.size and not bool((value > 0).all()):
        raise ValueError(f"{api}: every element of {name} must be positive")


class Exponential(ExponentialFamily):
    r"""The Exponential distribution with `rate`: pdf(x) = rate exp(-rate x), x >= 0.

    Args:
        rate (float|Tensor): rate (> 0).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Exponential
        >>> d = Exponential(paddle.to_tensor(2.0))
        >>> round(float(d.mean), 4), round(float(d.cdf(paddle.to_tensor(1.0))), 4)
        (0.5, 0.8647)
    """

    def __init__(self, rate):
        (self.rate,) = to_params("Exponential", ("rate",), (rate,))
        _positive("Exponential", "rate", self.rate)
        self.dtype = dtype_name(self.rate)
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        u = open_uniform(self._extend_shape(shape), self.dtype, T.finfo(self.dtype).tiny)
        return -u.log() / self.rate

    def log_prob(self, value) -> Tensor:
        value = self._value(value, self.rate)
        return self.rate.log() - self.rate * value

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()

    def cdf(self, value) -> Tensor:
        return -(-self.rate * self._value(value, self.rate)).expm1()

    def icdf(self, value) -> Tensor:
        return -(-self._value(value, self.rate)).log1p() / self.rate

    @property
    def _natural_parameters(self) -> tuple:
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()


class Gamma(ExponentialFamily):
    r"""The Gamma distribution: pdf(x) = rate^c x^(c-1) exp(-rate x) / Gamma(c).

    Args:
        concentration (float|Tensor): shape c (> 0).
        rate (float|Tensor): rate (> 0).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Gamma
        >>> d = Gamma(paddle.to_tensor(2.0), paddle.to_tensor(3.0))
        >>> round(float(d.mean), 4), round(float(d.variance), 4)
        (0.6667, 0.2222)
        >>> d.sample([4]).shape
        paddle.Size([4])
    """

    def __init__(self, concentration, rate):
        api = type(self).__name__
        self.concentration, self.rate = to_params(api, ("concentration", "rate"),
                                                  (concentration, rate))
        _positive(api, "concentration", self.concentration)
        _positive(api, "rate", self.rate)
        self.dtype = dtype_name(self.rate)
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        full = list(self._extend_shape(shape))
        draw = standard_gamma(self.concentration.detach().expand(full))
        return draw / self.rate.expand(full)

    def log_prob(self, value) -> Tensor:
        value = self._value(value, self.rate)
        c = self.concentration
        return c * self.rate.log() + (c - 1.0) * value.log() - self.rate * value - T.lgamma(c)

    def entropy(self) -> Tensor:
        c = self.concentration
        return c - self.rate.log() + T.lgamma(c) + (1.0 - c) * T.digamma(c)

    @property
    def _natural_parameters(self) -> tuple:
        return (self.concentration - 1.0, -self.rate)

    def _log_normalizer(self, x, y):
        return T.lgamma(x + 1.0) + (x + 1.0) * (-y.reciprocal()).log()


class Chi2(Gamma):
    r"""The chi-squared distribution with `df` degrees of freedom (Gamma(df / 2, 1 / 2)).

    Args:
        df (float|Tensor): degrees of freedom (> 0).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Chi2
        >>> d = Chi2(paddle.to_tensor(4.0))
        >>> float(d.mean), float(d.variance)
        (4.0, 8.0)
    """

    def __init__(self, df):
        (df,) = to_params("Chi2", ("df",), (df,))
        _positive("Chi2", "df", df)
        super().__init__(0.5 * df, T.full_like(df, 0.5))

    @property
    def df(self) -> Tensor:
        return self.concentration * 2.0


class Dirichlet(ExponentialFamily):
    r"""The Dirichlet distribution over the simplex, with `concentration` [..., k].

    Args:
        concentration (Tensor): positive concentrations, at least 1-D; the last axis is the
            event.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Dirichlet
        >>> d = Dirichlet(paddle.to_tensor([1.0, 2.0, 3.0]))
        >>> d.batch_shape, d.event_shape
        ((), (3,))
        >>> d.sample([2]).shape
        paddle.Size([2, 3])
    """

    def __init__(self, concentration: Tensor):
        (concentration,) = to_params("Dirichlet", ("concentration",), (concentration,))
        if concentration.ndim < 1 or concentration.size == 0:
            raise ValueError(f"Dirichlet: concentration must be at least 1-D and non-empty, "
                             f"got shape {list(concentration.shape)}")
        _positive("Dirichlet", "concentration", concentration)
        self.concentration = concentration
        self.dtype = dtype_name(concentration)
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:])

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0.pow(2) * (c0 + 1.0))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        with no_grad():
            draw = standard_gamma(self.concentration.expand(list(self._extend_shape(shape))))
            return draw / draw.sum(-1, keepdim=True)

    def log_prob(self, value) -> Tensor:
        c = self.concentration
        value = self._value(value, c)
        return ((c - 1.0) * value.log()).sum(-1) + T.lgamma(c.sum(-1)) - T.lgamma(c).sum(-1)

    def entropy(self) -> Tensor:
        c = self.concentration
        c0 = c.sum(-1)
        k = c.shape[-1]
        return (T.lgamma(c).sum(-1) - T.lgamma(c0) - (k - c0) * T.digamma(c0)
                - ((c - 1.0) * T.digamma(c)).sum(-1))

    @property
    def _natural_parameters(self) -> tuple:
        return (self.concentration,)

    def _log_normalizer(self, x):
        return T.lgamma(x).sum(-1) - T.lgamma(x.sum(-1))


class Beta(ExponentialFamily):
    r"""The Beta distribution on [0, 1]: pdf(x) = x^(a-1) (1-x)^(b-1) / B(a, b).

    Args:
        alpha (float|Tensor): a (> 0).
        beta (float|Tensor): b (> 0).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Beta
        >>> d = Beta(0.5, 0.5)
        >>> float(d.mean)
        0.5
        >>> round(float(d.entropy()), 4)
        -0.2416
    """

    def __init__(self, alpha, beta):
        self.alpha, self.beta = to_params("Beta", ("alpha", "beta"), (alpha, beta))
        _positive("Beta", "alpha", self.alpha)
        _positive("Beta", "beta", self.beta)
        self.dtype = dtype_name(self.alpha)
        self._dirichlet = Dirichlet(T.stack([self.alpha, self.beta], -1))
        super().__init__(tuple(self.alpha.shape))

    @property
    def mean(self) -> Tensor:
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self) -> Tensor:
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total.pow(2) * (total + 1.0))

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        return self._dirichlet.sample(shape)[..., 0]

    def log_prob(self, value) -> Tensor:
        value = self._value(value, self.alpha)
        a, b = self.alpha, self.beta
        return ((a - 1.0) * value.log() + (b - 1.0) * (-value).log1p()
                + T.lgamma(a + b) - T.lgamma(a) - T.lgamma(b))

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self) -> tuple:
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return T.lgamma(x) + T.lgamma(y) - T.lgamma(x + y)

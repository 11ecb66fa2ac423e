"""Location-scale continuous distributions: Normal, Uniform, Laplace, Cauchy, Gumbel, StudentT.

All reparameterized (rsample = loc + scale * standard draw), written in sampan tensor ops.
Imports `framework`, `tensor`, and the package's own helpers.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .. import tensor as T
from ..autograd import no_grad
from ..framework.tensor import Tensor
from ._random import open_uniform, standard_normal
from .distribution import Distribution, check_shape, dtype_name, is_tensor, to_params

_EULER = 0.57721566490153286061


class _LocScale(Distribution):
    """Shared constructor: broadcast float `loc` and `scale` (scale must be positive)."""

    def __init__(self, loc, scale, name: str | None = None):
        api = type(self).__name__
        self.name = name or api
        self.loc, self.scale = to_params(api, ("loc", "scale"), (loc, scale))
        self.dtype = dtype_name(self.loc)
        super().__init__(tuple(self.loc.shape))

    def _uniform(self, shape: Sequence[int], low: float = None, high: float = 1.0) -> Tensor:
        tiny = T.finfo(self.dtype).tiny
        return open_uniform(self._extend_shape(shape), self.dtype,
                            tiny if low is None else low, high)

    def _z(self, value) -> Tensor:
        return (self._value(value, self.loc) - self.loc) / self.scale


class Normal(_LocScale):
    r"""The Normal distribution N(loc, scale ** 2).

    .. math:: pdf(x) = \frac{1}{\sqrt{2\pi}\sigma} e^{-\frac{(x - \mu)^2}{2\sigma^2}}

    A complex `loc` (Python complex, complex ndarray or Tensor) gives the circular complex
    normal of Paddle 3.x: real and imaginary parts independent with variance scale ** 2 / 2,
    log_prob = -|x - loc|^2 / scale^2 - log(pi scale^2) (returned as a complex tensor).

    Args:
        loc (float|complex|list|numpy.ndarray|Tensor): mean.
        scale (float|list|numpy.ndarray|Tensor): standard deviation (> 0).
        name (str, optional): unused, for Paddle compatibility.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Normal
        >>> d = Normal(0.0, 1.0)
        >>> d.sample([3]).shape
        paddle.Size([3])
        >>> round(float(d.entropy()), 4)
        1.4189
        >>> round(float(d.log_prob(paddle.to_tensor(0.5))), 4)
        -1.0439
    """

    def __init__(self, loc, scale, name: str | None = None):
        self._complex_gaussian = _is_complex(loc)
        if not self._complex_gaussian:
            super().__init__(loc, scale, name)
            return
        self.name = name or "Normal"
        self.loc = _complex_tensor(loc)
        self.dtype = dtype_name(self.loc)
        real = "float64" if self.dtype == "complex128" else "float32"
        (self.scale,) = to_params("Normal", ("scale",), (scale,), dtype=real)
        Distribution.__init__(self, tuple(T.broadcast_shape(list(self.loc.shape),
                                                            list(self.scale.shape))))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def sample(self, shape: Sequence[int] = (), seed: int = 0) -> Tensor:
        with no_grad():
            return self._draw(shape, seed)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        return self._draw(shape, 0)

    def _draw(self, shape, seed):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"Normal.sample: seed must be an int, got {type(seed).__name__}")
        full = self._extend_shape(shape)
        real = dtype_name(self.scale)
        eps = standard_normal(full, real, seed)
        if self._complex_gaussian:  # each part has variance 1/2
            imag = standard_normal(full, real, seed + 1 if seed else 0)
            eps = T.complex(eps, imag) * math.sqrt(0.5)
        return self.loc + eps * self.scale

    def log_prob(self, value) -> Tensor:
        if self._complex_gaussian:
            diff = _complex_tensor(value, self.dtype) - self.loc
            return (-(diff.conj() * diff) / self.scale.pow(2)
                    - (2.0 * self.scale.log() + math.log(math.pi)))
        z = self._z(value)
        return -0.5 * z * z - self.scale.log() - 0.5 * math.log(2 * math.pi)

    def entropy(self) -> Tensor:
        zeros = T.zeros(list(self.batch_shape), dtype_name(self.scale))
        if self._complex_gaussian:
            return 1.0 + math.log(math.pi) + 2.0 * self.scale.log() + zeros
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log() + zeros

    def cdf(self, value) -> Tensor:
        self._real_only("cdf")
        return 0.5 * (1.0 + T.erf(self._z(value) / math.sqrt(2.0)))

    def icdf(self, value) -> Tensor:
        self._real_only("icdf")
        value = self._value(value, self.loc)
        return self.loc + self.scale * math.sqrt(2.0) * T.erfinv(2.0 * value - 1.0)

    def _real_only(self, api: str) -> None:
        if self._complex_gaussian:
            raise NotImplementedError(f"Normal.{api}: not defined for a complex Normal")


def _is_complex(value) -> bool:
    if is_tensor(value):
        return dtype_name(value).startswith("complex")
    if isinstance(value, complex):
        return True
    return isinstance(value, (list, tuple, np.ndarray)) and np.asarray(value).dtype.kind == "c"


def _complex_tensor(value, dtype: str | None = None) -> Tensor:
    """value as a complex Tensor: complex128 only from a complex128 ndarray/Tensor (as Paddle,
    Python complex numbers and lists give complex64), or `dtype` when given."""
    if is_tensor(value):
        return value if dtype is None or dtype_name(value) == dtype else value.astype(dtype)
    arr = np.asarray(value)
    if dtype is None:
        keep = isinstance(value, np.ndarray) and arr.dtype == np.complex128
        dtype = "complex128" if keep else "complex64"
    return T.to_tensor(arr.astype(dtype))


class Uniform(Distribution):
    r"""The continuous uniform distribution on [low, high).

    Args:
        low (float|list|numpy.ndarray|Tensor): lower bound (inclusive).
        high (float|list|numpy.ndarray|Tensor): upper bound (exclusive), > low.
        name (str, optional): unused, for Paddle compatibility.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Uniform
        >>> d = Uniform(0.0, 2.0)
        >>> d.sample([4]).shape
        paddle.Size([4])
        >>> round(float(d.entropy()), 4)
        0.6931
    """

    def __init__(self, low, high, name: str | None = None):
        self.name = name or "Uniform"
        self.low, self.high = to_params("Uniform", ("low", "high"), (low, high))
        self.dtype = dtype_name(self.low)
        super().__init__(tuple(self.low.shape))

    @property
    def mean(self) -> Tensor:
        return (self.low + self.high) / 2.0

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12.0

    def sample(self, shape: Sequence[int] = (), seed: int = 0) -> Tensor:
        with no_grad():
            return self._draw(shape, seed)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        return self._draw(shape, 0)

    def _draw(self, shape, seed):
        u = open_uniform(self._extend_shape(shape), self.dtype, 0.0, 1.0, seed)
        return self.low + u * (self.high - self.low)

    def _inside(self, value: Tensor) -> Tensor:
        return ((self.low <= value) & (value < self.high)).astype(self.dtype)

    def log_prob(self, value) -> Tensor:
        value = self._value(value, self.low)
        return self._inside(value).log() - (self.high - self.low).log()

    def prob(self, value) -> Tensor:
        value = self._value(value, self.low)
        return self._inside(value) / (self.high - self.low)

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()

    def cdf(self, value) -> Tensor:
        value = self._value(value, self.low)
        return ((value - self.low) / (self.high - self.low)).clip(0.0, 1.0)

    def icdf(self, value) -> Tensor:
        return self.low + self._value(value, self.low) * (self.high - self.low)


class Laplace(_LocScale):
    r"""The Laplace distribution: pdf(x) = exp(-|x - loc| / scale) / (2 scale).

    Args:
        loc (float|Tensor): location.
        scale (float|Tensor): scale (> 0).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Laplace
        >>> d = Laplace(paddle.to_tensor(0.0), paddle.to_tensor(1.0))
        >>> round(float(d.cdf(paddle.to_tensor(0.0))), 4)
        0.5
        >>> round(float(d.entropy()), 4)
        1.6931
    """

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2.0 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2.0) * self.scale

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        eps = T.finfo(self.dtype).eps
        u = self._uniform(shape, -1.0 + eps, 1.0)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value) -> Tensor:
        return -self._z(value).abs() - (2.0 * self.scale).log()

    def entropy(self) -> Tensor:
        return 1.0 + (2.0 * self.scale).log()

    def cdf(self, value) -> Tensor:
        z = self._z(value)
        return 0.5 - 0.5 * z.sign() * (-z.abs()).expm1()

    def icdf(self, value) -> Tensor:
        p = self._value(value, self.loc) - 0.5
        return self.loc - self.scale * p.sign() * (-2.0 * p.abs()).log1p()


class Cauchy(_LocScale):
    r"""The Cauchy distribution: pdf(x) = 1 / (pi scale (1 + ((x - loc) / scale)^2)).

    It has no mean or variance (accessing them raises ValueError, as in Paddle).

    Args:
        loc (float|Tensor): location.
        scale (float|Tensor): scale (> 0).
        name (str, optional): unused, for Paddle compatibility.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Cauchy
        >>> d = Cauchy(0.0, 1.0)
        >>> round(float(d.cdf(paddle.to_tensor(1.0))), 4)
        0.75
        >>> round(float(d.entropy()), 4)
        2.531
    """

    @property
    def mean(self):
        raise ValueError("Cauchy distribution has no mean.")

    @property
    def variance(self):
        raise ValueError("Cauchy distribution has no variance.")

    @property
    def stddev(self):
        raise ValueError("Cauchy distribution has no stddev.")

    def sample(self, shape: Sequence[int] = (), name: str | None = None) -> Tensor:
        with no_grad():
            return self.rsample(shape)

    def rsample(self, shape: Sequence[int] = (), name: str | None = None) -> Tensor:
        u = self._uniform(shape)
        return self.loc + self.scale * (math.pi * (u - 0.5)).tan()

    def log_prob(self, value) -> Tensor:
        return -math.log(math.pi) - self.scale.log() - self._z(value).pow(2).log1p()

    def cdf(self, value) -> Tensor:
        return self._z(value).atan() / math.pi + 0.5

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()


class Gumbel(_LocScale):
    r"""The Gumbel (type-I extreme value) distribution: cdf(x) = exp(-exp(-(x - loc) / scale)).

    Args:
        loc (float|Tensor): location.
        scale (float|Tensor): scale (> 0).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Gumbel
        >>> d = Gumbel(paddle.to_tensor(0.0), paddle.to_tensor(1.0))
        >>> round(float(d.mean), 4)
        0.5772
        >>> d.rsample([2, 3]).shape
        paddle.Size([2, 3])
    """

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * _EULER

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * math.pi ** 2 / 6.0

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        u = self._uniform(shape, None, 1.0 - T.finfo(self.dtype).eps)
        return self.loc - self.scale * (-u.log()).log()

    def log_prob(self, value) -> Tensor:
        z = self._z(value)
        return -(z + (-z).exp()) - self.scale.log()

    def cdf(self, value) -> Tensor:
        return (-(-self._z(value)).exp()).exp()

    def entropy(self) -> Tensor:
        return self.scale.log() + 1.0 + _EULER


class StudentT(Distribution):
    r"""Student's t distribution with `df` degrees of freedom, location and scale.

    Args:
        df (float|Tensor): degrees of freedom (> 0).
        loc (float|Tensor): location.
        scale (float|Tensor): scale (> 0).
        name (str, optional): unused, for Paddle compatibility.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import StudentT
        >>> d = StudentT(3.0, 0.0, 1.0)
        >>> d.sample([5]).shape
        paddle.Size([5])
        >>> round(float(d.log_prob(paddle.to_tensor(0.0))), 4)
        -1.0009
    """

    def __init__(self, df, loc, scale, name: str | None = None):
        self.name = name or "StudentT"
        self.df, self.loc, self.scale = to_params("StudentT", ("df", "loc", "scale"),
                                                  (df, loc, scale))
        self.dtype = dtype_name(self.df)
        super().__init__(tuple(self.df.shape))

    @property
    def mean(self) -> Tensor:
        return T.where(self.df > 1.0, self.loc, T.full_like(self.loc, float("nan")))

    @property
    def variance(self) -> Tensor:
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2.0)
        var = T.where(df > 2.0, finite, T.full_like(finite, float("nan")))
        return T.where((df <= 2.0) & (df > 1.0), T.full_like(var, float("inf")), var)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        from .gamma import Chi2
        full = self._extend_shape(shape)
        z = standard_normal(full, self.dtype)
        chi2 = Chi2(self.df.detach()).sample(check_shape("StudentT.sample", shape))
        return self.loc + self.scale * z * (chi2 / self.df.detach()).rsqrt()

    def log_prob(self, value) -> Tensor:
        y = (self._value(value, self.df) - self.loc) / self.scale
        norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                + T.lgamma(0.5 * self.df) - T.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * (y.pow(2) / self.df).log1p() - norm

    def entropy(self) -> Tensor:
        half = 0.5 * self.df
        lbeta = T.lgamma(half) + math.lgamma(0.5) - T.lgamma(half + 0.5)
        return (self.scale.log() + (half + 0.5) * (T.digamma(half + 0.5) - T.digamma(half))
                + 0.5 * self.df.log() + lbeta)

"""TransformedDistribution (a base pushed through transforms), Independent and LogNormal.

Imports `framework`, `tensor`, and the package's own modules.
"""
from __future__ import annotations

from collections.abc import Sequence

from .. import tensor as T
from ..framework.tensor import Tensor
from .continuous import Normal
from .distribution import Distribution, is_tensor, sum_rightmost
from .transform import ChainTransform, ExpTransform, Transform


class Independent(Distribution):
    r"""Reinterprets the rightmost `reinterpreted_batch_rank` batch axes of `base` as event
    axes: log_prob and entropy are summed over them.

    Args:
        base (Distribution): the base distribution.
        reinterpreted_batch_rank (int): how many batch axes become event axes
            (0 < rank <= len(base.batch_shape)).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import Independent, Normal
        >>> d = Independent(Normal(paddle.zeros([2, 3]), paddle.ones([2, 3])), 1)
        >>> d.batch_shape, d.event_shape
        ((2,), (3,))
        >>> d.log_prob(paddle.zeros([2, 3])).shape
        paddle.Size([2])
    """

    def __init__(self, base: Distribution, reinterpreted_batch_rank: int):
        if not isinstance(base, Distribution):
            raise TypeError(f"Independent: base must be a Distribution, got "
                            f"{type(base).__name__}")
        rank = len(base.batch_shape)
        if (isinstance(reinterpreted_batch_rank, bool) or
                not isinstance(reinterpreted_batch_rank, int) or
                not 0 < reinterpreted_batch_rank <= rank):
            raise ValueError(f"Independent: reinterpreted_batch_rank must satisfy 0 < rank <= "
                             f"{rank}, got {reinterpreted_batch_rank!r}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = rank - reinterpreted_batch_rank
        super().__init__(shape[:cut], shape[cut:])

    @property
    def mean(self) -> Tensor:
        return self._base.mean

    @property
    def variance(self) -> Tensor:
        return self._base.variance

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        return self._base.sample(shape)

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        return self._base.rsample(shape)

    def log_prob(self, value) -> Tensor:
        return sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def entropy(self) -> Tensor:
        return sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)


class TransformedDistribution(Distribution):
    r"""The distribution of y = transforms[-1](...transforms[0](x)) for x ~ base.

    log_prob(y) = base.log_prob(x) - sum of log|det J| of each transform, with x the inverse
    image of y.

    Args:
        base (Distribution): the base distribution.
        transforms (Sequence[Transform]): applied first to last.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import (AffineTransform, Normal,
        ...                                  TransformedDistribution)
        >>> d = TransformedDistribution(Normal(0.0, 1.0),
        ...     [AffineTransform(paddle.to_tensor(1.0), paddle.to_tensor(2.0))])
        >>> round(float(d.log_prob(paddle.to_tensor(1.0))), 4)
        -1.6121
    """

    def __init__(self, base: Distribution, transforms: Sequence[Transform]):
        if not isinstance(base, Distribution):
            raise TypeError(f"TransformedDistribution: base must be a Distribution, got "
                            f"{type(base).__name__}")
        if not isinstance(transforms, Sequence):
            raise TypeError(f"TransformedDistribution: transforms must be a sequence of "
                            f"Transform, got {type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("TransformedDistribution: every element of transforms must be a "
                            "Transform")
        self._base = base
        self._transforms = list(transforms)
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        chain = ChainTransform(transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        if len(base_shape) < chain._in_rank:
            raise ValueError(f"TransformedDistribution: base needs at least "
                             f"{chain._in_rank} dimensions, got shape {list(base_shape)}")
        shape = tuple(chain.forward_shape(base_shape))
        event_rank = chain._out_rank + max(len(base.event_shape) - chain._in_rank, 0)
        cut = len(shape) - event_rank
        super().__init__(shape[:cut], shape[cut:])

    @property
    def base(self) -> Distribution:
        return self._base

    @property
    def transforms(self) -> list:
        return self._transforms

    def sample(self, shape: Sequence[int] = ()) -> Tensor:
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value) -> Tensor:
        y = value if is_tensor(value) else T.to_tensor(value, getattr(self._base, "dtype", None))
        log_prob = 0.0
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._in_rank - t._out_rank
            log_prob = log_prob - sum_rightmost(t.forward_log_det_jacobian(x),
                                                event_rank - t._in_rank)
            y = x
        base = sum_rightmost(self._base.log_prob(y), event_rank - len(self._base.event_shape))
        return log_prob + base


class LogNormal(TransformedDistribution):
    r"""The log-normal distribution: exp(X) for X ~ Normal(loc, scale).

    Args:
        loc (float|list|numpy.ndarray|Tensor): mean of log(X).
        scale (float|list|numpy.ndarray|Tensor): standard deviation of log(X) (> 0).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import LogNormal
        >>> d = LogNormal(0.0, 1.0)
        >>> round(float(d.mean), 4)
        1.6487
        >>> round(float(d.prob(paddle.to_tensor(1.0))), 4)
        0.3989
    """

    def __init__(self, loc, scale):
        self._base_normal = Normal(loc, scale)
        self.loc = self._base_normal.loc
        self.scale = self._base_normal.scale
        self.dtype = self._base_normal.dtype
        super().__init__(self._base_normal, [ExpTransform()])

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2.0).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.pow(2)
        return s2.expm1() * (2.0 * self.loc + s2).exp()

    def entropy(self) -> Tensor:
        return self._base.entropy() + self.loc

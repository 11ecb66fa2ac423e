"""Transforms y = f(x) with their inverses and log|det J|, for TransformedDistribution.

Elementwise maps and compositions live here; the base class is in _transform_base.py and the
whole-event maps (Reshape, Softmax, StickBreaking) in _transform_event.py, re-exported here as
Paddle's paddle.distribution.transform has them. Imports `framework`, `tensor`, `nn.functional`.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from .. import tensor as T
from ..framework.tensor import Tensor
from ..nn import functional as F
from . import constraint as _constraint
from . import variable as _variable
from ._transform_base import Transform, Type, _check_tensor
from ._transform_event import ReshapeTransform, SoftmaxTransform, StickBreakingTransform
from .distribution import sum_rightmost

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform"]


class AbsTransform(Transform):
    """y = |x|; the inverse returns both preimages (-y, y) (a surjection).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import AbsTransform
        >>> AbsTransform().forward(paddle.to_tensor([-1.0, 2.0])).numpy().tolist()
        [1.0, 2.0]
    """
    _type = Type.SURJECTION
    _codomain_constraint = _constraint.positive

    def _forward(self, x):
        return x.abs()

    def _inverse(self, y):
        return -y, y

    def _inverse_log_det_jacobian(self, y):
        zero = T.zeros([], dtype=y.dtype)
        return zero, zero


class AffineTransform(Transform):
    """y = loc + scale * x.

    Args:
        loc (Tensor): shift.
        scale (Tensor): scale.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import AffineTransform
        >>> t = AffineTransform(paddle.to_tensor(1.0), paddle.to_tensor(2.0))
        >>> t.forward(paddle.to_tensor([0.0, 1.0])).numpy().tolist()
        [1.0, 3.0]
    """
    _type = Type.BIJECTION

    def __init__(self, loc: Tensor, scale: Tensor) -> None:
        _check_tensor("AffineTransform", "loc", loc)
        _check_tensor("AffineTransform", "scale", scale)
        self._loc, self._scale = loc, scale

    @property
    def loc(self) -> Tensor:
        return self._loc

    @property
    def scale(self) -> Tensor:
        return self._scale

    def _forward(self, x):
        return self._loc + self._scale * x

    def _inverse(self, y):
        return (y - self._loc) / self._scale

    def _forward_log_det_jacobian(self, x):
        return self._scale.abs().log()  # not broadcast to x, as Paddle

    def _forward_shape(self, shape):
        shape = T.broadcast_shape(list(shape), list(self._loc.shape))
        return tuple(T.broadcast_shape(shape, list(self._scale.shape)))

    _inverse_shape = _forward_shape


class ChainTransform(Transform):
    """The composition of `transforms`, applied first to last.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import AffineTransform, ChainTransform, ExpTransform
        >>> t = ChainTransform([AffineTransform(paddle.to_tensor(0.0), paddle.to_tensor(2.0)),
        ...                     ExpTransform()])
        >>> round(float(t.forward(paddle.to_tensor(1.0))), 4)
        7.3891
    """

    def __init__(self, transforms: Sequence[Transform]) -> None:
        if not isinstance(transforms, Sequence):
            raise TypeError(f"ChainTransform: transforms must be a sequence of Transform, got "
                            f"{type(transforms).__name__}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("ChainTransform: every element of transforms must be a Transform")
        self.transforms = list(transforms)

    def _is_injective(self) -> bool:
        return all(t._is_injective() for t in self.transforms)

    @property
    def _domain(self) -> _variable.Variable:
        first = self.transforms[0]._domain if self.transforms else _variable.real
        return _variable.Independent(first, self._in_rank - first.event_rank)

    @property
    def _codomain(self) -> _variable.Variable:
        last = self.transforms[-1]._codomain if self.transforms else _variable.real
        return _variable.Independent(last, self._out_rank - last.event_rank)

    @property
    def _in_rank(self) -> int:
        if not self.transforms:
            return 0
        rank = self.transforms[-1]._out_rank
        for t in reversed(self.transforms):
            rank = max(rank - (t._out_rank - t._in_rank), t._in_rank)
        return rank

    @property
    def _out_rank(self) -> int:
        if not self.transforms:
            return 0
        rank = self.transforms[0]._in_rank
        for t in self.transforms:
            rank = max(rank + t._out_rank - t._in_rank, t._out_rank)
        return rank

    def _forward(self, x):
        for t in self.transforms:
            x = t.forward(x)
        return x

    def _inverse(self, y):
        for t in reversed(self.transforms):
            y = t.inverse(y)
        return y

    def _forward_log_det_jacobian(self, x):
        value = 0.0
        rank = self._in_rank
        for t in self.transforms:
            value = value + sum_rightmost(t.forward_log_det_jacobian(x), rank - t._in_rank)
            x = t.forward(x)
            rank += t._out_rank - t._in_rank
        return value

    def _forward_shape(self, shape):
        for t in self.transforms:
            shape = t.forward_shape(shape)
        return shape

    def _inverse_shape(self, shape):
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        return shape


class ExpTransform(Transform):
    """y = exp(x)."""
    _type = Type.BIJECTION
    _codomain_constraint = _constraint.positive

    def _forward(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def _forward_log_det_jacobian(self, x):
        return x


class IndependentTransform(Transform):
    """Reinterprets the rightmost `reinterpreted_batch_rank` batch axes of `base` as event
    axes: forward/inverse are base's, the log-det-Jacobian is summed over those axes.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import ExpTransform, IndependentTransform
        >>> t = IndependentTransform(ExpTransform(), 1)
        >>> t.forward_log_det_jacobian(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])).numpy().tolist()
        [3.0, 7.0]
    """

    def __init__(self, base: Transform, reinterpreted_batch_rank: int) -> None:
        if not isinstance(base, Transform):
            raise TypeError(f"IndependentTransform: base must be a Transform, got "
                            f"{type(base).__name__}")
        if not isinstance(reinterpreted_batch_rank, int) or reinterpreted_batch_rank <= 0:
            raise ValueError(f"IndependentTransform: reinterpreted_batch_rank must be a "
                             f"positive int, got {reinterpreted_batch_rank!r}")
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank

    def _is_injective(self) -> bool:
        return self._base._is_injective()

    @property
    def _domain(self) -> _variable.Variable:
        return _variable.Independent(self._base._domain, self._reinterpreted_batch_rank)

    @property
    def _codomain(self) -> _variable.Variable:
        return _variable.Independent(self._base._codomain, self._reinterpreted_batch_rank)

    @property
    def _in_rank(self) -> int:
        return self._base._in_rank + self._reinterpreted_batch_rank

    @property
    def _out_rank(self) -> int:
        return self._base._out_rank + self._reinterpreted_batch_rank

    def _forward(self, x):
        return self._base.forward(x)

    def _inverse(self, y):
        return self._base.inverse(y)

    def _forward_log_det_jacobian(self, x):
        return sum_rightmost(self._base.forward_log_det_jacobian(x),
                             self._reinterpreted_batch_rank)

    def _forward_shape(self, shape):
        return self._base.forward_shape(shape)

    def _inverse_shape(self, shape):
        return self._base.inverse_shape(shape)


class PowerTransform(Transform):
    """y = x ** power (on x > 0).

    Args:
        power (Tensor): the exponent.
    """
    _type = Type.BIJECTION
    _codomain_constraint = _constraint.positive

    def __init__(self, power: Tensor) -> None:
        _check_tensor("PowerTransform", "power", power)
        self._power = power

    @property
    def power(self) -> Tensor:
        return self._power

    def _forward(self, x):
        return x.pow(self._power)

    def _inverse(self, y):
        return y.pow(1.0 / self._power)

    def _forward_log_det_jacobian(self, x):
        return (self._power * x.pow(self._power - 1.0)).abs().log()

    def _forward_shape(self, shape):
        return tuple(T.broadcast_shape(list(shape), list(self._power.shape)))

    _inverse_shape = _forward_shape


class SigmoidTransform(Transform):
    """y = sigmoid(x)."""
    _type = Type.BIJECTION
    _codomain_constraint = _constraint.Range(0.0, 1.0)

    def _forward(self, x):
        return F.sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        return -F.softplus(-x) - F.softplus(x)


class StackTransform(Transform):
    """Applies transforms[i] to slice i of x along `axis`.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import ExpTransform, SigmoidTransform, StackTransform
        >>> t = StackTransform([ExpTransform(), SigmoidTransform()], axis=1)
        >>> t.forward(paddle.zeros([2, 2])).numpy().tolist()
        [[1.0, 0.5], [1.0, 0.5]]
    """

    def __init__(self, transforms: Sequence[Transform], axis: int = 0):
        if not transforms or not isinstance(transforms, Sequence):
            raise TypeError(f"StackTransform: transforms must be a non-empty sequence of "
                            f"Transform, got {transforms!r}")
        if not all(isinstance(t, Transform) for t in transforms):
            raise TypeError("StackTransform: every element of transforms must be a Transform")
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"StackTransform: axis must be an int, got {type(axis).__name__}")
        self._transforms = list(transforms)
        self._axis = axis

    def _is_injective(self) -> bool:
        return all(t._is_injective() for t in self._transforms)

    @property
    def _domain(self) -> _variable.Variable:
        return _variable.Stack([t._domain for t in self._transforms], self._axis)

    @property
    def _codomain(self) -> _variable.Variable:
        return _variable.Stack([t._codomain for t in self._transforms], self._axis)

    @property
    def transforms(self) -> list:
        return self._transforms

    @property
    def axis(self) -> int:
        return self._axis

    def _map(self, method: str, v: Tensor) -> Tensor:
        if not -v.ndim <= self._axis < v.ndim:
            raise ValueError(f"StackTransform: axis {self._axis} is out of range for an input "
                             f"of {v.ndim} dimensions")
        if v.shape[self._axis] != len(self._transforms):
            raise ValueError(f"StackTransform: input size {v.shape[self._axis]} along axis "
                             f"{self._axis} must equal the number of transforms "
                             f"({len(self._transforms)})")
        parts = T.unstack(v, self._axis)
        return T.stack([getattr(t, method)(p) for p, t in zip(parts, self._transforms)],
                       self._axis)

    def _forward(self, x):
        return self._map("forward", x)

    def _inverse(self, y):
        return self._map("inverse", y)

    def _forward_log_det_jacobian(self, x):
        return self._map("forward_log_det_jacobian", x)


class TanhTransform(Transform):
    """y = tanh(x)."""
    _type = Type.BIJECTION
    _codomain_constraint = _constraint.Range(-1.0, 1.0)

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))

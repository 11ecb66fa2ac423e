"""Transforms y = f(x) with their inverses and log|det J|, for TransformedDistribution.

Each transform states the event rank of its domain and codomain (`_in_rank`, `_out_rank`: 0 for
elementwise maps, 1 for maps over the last axis such as softmax). Written in sampan tensor ops.
Imports `framework`, `tensor`, `nn.functional`.
"""
from __future__ import annotations

import enum
import math
from collections.abc import Sequence

from .. import tensor as T
from ..framework.tensor import Tensor
from ..nn import functional as F
from .distribution import Distribution, is_tensor, sum_rightmost

__all__ = ["Transform", "AbsTransform", "AffineTransform", "ChainTransform", "ExpTransform",
           "IndependentTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform"]


class Type(enum.Enum):
    """Mapping type of a transform."""
    BIJECTION = "bijection"
    INJECTION = "injection"
    SURJECTION = "surjection"
    OTHER = "other"

    @classmethod
    def is_injective(cls, _type) -> bool:
        return _type in (cls.BIJECTION, cls.INJECTION)


def _check_tensor(api: str, name: str, x) -> None:
    if not is_tensor(x):
        raise TypeError(f"{api}: {name} must be a Tensor, got {type(x).__name__}")


class Transform:
    """Base class of transforms: `forward`, `inverse`, their log-det-Jacobians and shapes.

    Calling a transform on a Tensor applies `forward`; on a Distribution it returns the
    TransformedDistribution; on another Transform it returns ChainTransform([self, other]).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import ExpTransform
        >>> t = ExpTransform()
        >>> [round(v, 4) for v in t.forward(paddle.to_tensor([0.0, 1.0])).tolist()]
        [1.0, 2.7183]
        >>> t.inverse_log_det_jacobian(paddle.to_tensor([1.0])).numpy().tolist()
        [-0.0]
    """

    _type = Type.INJECTION
    _in_rank = 0
    _out_rank = 0

    def __init__(self) -> None:
        pass

    def _is_injective(self) -> bool:
        return Type.is_injective(self._type)

    def __call__(self, input):
        if isinstance(input, Distribution):
            from .transformed_distribution import TransformedDistribution
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            return ChainTransform([self, input])
        return self.forward(input)

    def _check_rank(self, api: str, name: str, x, rank: int) -> None:
        _check_tensor(f"{type(self).__name__}.{api}", name, x)
        if x.ndim < rank:
            raise ValueError(f"{type(self).__name__}.{api}: {name} must have at least {rank} "
                             f"dimensions, got shape {list(x.shape)}")

    def forward(self, x: Tensor) -> Tensor:
        """y = f(x)."""
        self._check_rank("forward", "x", x, self._in_rank)
        return self._forward(x)

    def inverse(self, y: Tensor) -> Tensor:
        """x = f^-1(y)."""
        self._check_rank("inverse", "y", y, self._out_rank)
        return self._inverse(y)

    def forward_log_det_jacobian(self, x: Tensor) -> Tensor:
        """log|det df/dx| at x."""
        self._check_rank("forward_log_det_jacobian", "x", x, self._in_rank)
        if not self._is_injective():
            raise NotImplementedError(f"{type(self).__name__}: forward_log_det_jacobian is "
                                      f"not defined for a non-injective transform")
        if hasattr(self, "_forward_log_det_jacobian"):
            return self._forward_log_det_jacobian(x)
        return -self._inverse_log_det_jacobian(self.forward(x))

    def inverse_log_det_jacobian(self, y: Tensor) -> Tensor:
        """log|det df^-1/dy| at y."""
        self._check_rank("inverse_log_det_jacobian", "y", y, self._out_rank)
        if hasattr(self, "_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        return -self._forward_log_det_jacobian(self._inverse(y))

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """Output shape for an input of `shape`."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"{type(self).__name__}.forward_shape: shape must be a sequence of "
                            f"ints, got {type(shape).__name__}")
        return self._forward_shape(tuple(shape))

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """Input shape for an output of `shape`."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"{type(self).__name__}.inverse_shape: shape must be a sequence of "
                            f"ints, got {type(shape).__name__}")
        return self._inverse_shape(tuple(shape))

    def _forward(self, x):
        raise NotImplementedError(f"{type(self).__name__}: forward is not implemented")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__}: inverse is not implemented")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape


class AbsTransform(Transform):
    """y = |x|; the inverse returns both preimages (-y, y) (a surjection).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import AbsTransform
        >>> AbsTransform().forward(paddle.to_tensor([-1.0, 2.0])).numpy().tolist()
        [1.0, 2.0]
    """
    _type = Type.SURJECTION

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
        return self._scale.abs().log() + T.zeros_like(x)

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


class ReshapeTransform(Transform):
    """Reshapes the event part of x from `in_event_shape` to `out_event_shape`.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import ReshapeTransform
        >>> t = ReshapeTransform((2, 3), (3, 2))
        >>> t.forward(paddle.ones([4, 2, 3])).shape
        [4, 3, 2]
    """
    _type = Type.BIJECTION

    def __init__(self, in_event_shape: Sequence[int], out_event_shape: Sequence[int]) -> None:
        if not isinstance(in_event_shape, Sequence) or not isinstance(out_event_shape, Sequence):
            raise TypeError(f"ReshapeTransform: in_event_shape and out_event_shape must be "
                            f"sequences of ints, got {in_event_shape!r} and {out_event_shape!r}")
        if math.prod(in_event_shape) != math.prod(out_event_shape):
            raise ValueError(f"ReshapeTransform: in_event_shape {list(in_event_shape)} and "
                             f"out_event_shape {list(out_event_shape)} differ in size")
        self._in_event_shape = tuple(in_event_shape)
        self._out_event_shape = tuple(out_event_shape)

    @property
    def in_event_shape(self) -> tuple:
        return self._in_event_shape

    @property
    def out_event_shape(self) -> tuple:
        return self._out_event_shape

    @property
    def _in_rank(self) -> int:
        return len(self._in_event_shape)

    @property
    def _out_rank(self) -> int:
        return len(self._out_event_shape)

    def _forward(self, x):
        lead = list(x.shape)[:x.ndim - len(self._in_event_shape)]
        return x.reshape(lead + list(self._out_event_shape))

    def _inverse(self, y):
        lead = list(y.shape)[:y.ndim - len(self._out_event_shape)]
        return y.reshape(lead + list(self._in_event_shape))

    def _reshape(self, shape, src, dst):
        n = len(src)
        if len(shape) < n or tuple(shape[len(shape) - n:]) != src:
            raise ValueError(f"ReshapeTransform: shape {list(shape)} does not end with the "
                             f"event shape {list(src)}")
        return tuple(shape[:len(shape) - n]) + dst

    def _forward_shape(self, shape):
        return self._reshape(shape, self._in_event_shape, self._out_event_shape)

    def _inverse_shape(self, shape):
        return self._reshape(shape, self._out_event_shape, self._in_event_shape)

    def _forward_log_det_jacobian(self, x):
        return T.zeros(list(x.shape)[:x.ndim - len(self._in_event_shape)], dtype=x.dtype)


class SigmoidTransform(Transform):
    """y = sigmoid(x)."""
    _type = Type.BIJECTION

    def _forward(self, x):
        return F.sigmoid(x)

    def _inverse(self, y):
        return y.log() - (-y).log1p()

    def _forward_log_det_jacobian(self, x):
        return -F.softplus(-x) - F.softplus(x)


class SoftmaxTransform(Transform):
    """y = softmax(x) over the last axis; inverse log(y) (not injective: no log-det)."""
    _type = Type.OTHER
    _in_rank = 1
    _out_rank = 1

    def _forward(self, x):
        x = (x - x.max(-1, keepdim=True)).exp()
        return x / x.sum(-1, keepdim=True)

    def _inverse(self, y):
        return y.log()

    def _forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("SoftmaxTransform: shape must have at least 1 dimension, got []")
        return shape

    _inverse_shape = _forward_shape


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


class StickBreakingTransform(Transform):
    """Maps R^k onto the interior of the (k+1)-simplex by stick breaking.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import StickBreakingTransform
        >>> y = StickBreakingTransform().forward(paddle.to_tensor([0.5, -1.0]))
        >>> y.shape, round(float(y.sum()), 4)
        ([3], 1.0)
    """
    _type = Type.BIJECTION
    _in_rank = 1
    _out_rank = 1

    @staticmethod
    def _offset_log(k: int, dtype) -> Tensor:
        return T.arange(k, 0, -1, dtype=dtype).log()  # log(k), log(k-1), ..., log(1)

    def _forward(self, x):
        z = F.sigmoid(x - self._offset_log(x.shape[-1], x.dtype))
        pad = [0, 0] * (x.ndim - 1)
        z_cumprod = (1.0 - z).cumprod(-1)
        return (F.pad(z, pad + [0, 1], value=1.0, mode="constant")
                * F.pad(z_cumprod, pad + [1, 0], value=1.0, mode="constant"))

    def _inverse(self, y):
        y_crop = y[..., :-1]
        rest = 1.0 - y_crop.cumsum(-1)
        return y_crop.log() - rest.log() + self._offset_log(y_crop.shape[-1], y.dtype)

    def _forward_log_det_jacobian(self, x):
        y = self.forward(x)
        x = x - self._offset_log(x.shape[-1], x.dtype)
        return (-x + F.log_sigmoid(x) + y[..., :-1].log()).sum(-1)

    def _forward_shape(self, shape):
        if not shape:
            raise ValueError("StickBreakingTransform: shape must not be empty")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def _inverse_shape(self, shape):
        if not shape:
            raise ValueError("StickBreakingTransform: shape must not be empty")
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class TanhTransform(Transform):
    """y = tanh(x)."""
    _type = Type.BIJECTION

    def _forward(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def _forward_log_det_jacobian(self, x):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))

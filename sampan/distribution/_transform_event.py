"""Transforms that act on a whole event: Reshape, Softmax, StickBreaking.

Written in sampan tensor ops. Imports `framework`, `tensor`, `nn.functional`.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from .. import tensor as T
from ..framework.tensor import Tensor
from ..nn import functional as F
from ._transform_base import Transform, Type

class ReshapeTransform(Transform):
    """Reshapes the event part of x from `in_event_shape` to `out_event_shape`.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import ReshapeTransform
        >>> t = ReshapeTransform((2, 3), (3, 2))
        >>> t.forward(paddle.ones([4, 2, 3])).shape
        paddle.Size([4, 3, 2])
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


class StickBreakingTransform(Transform):
    """Maps R^k onto the interior of the (k+1)-simplex by stick breaking.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import StickBreakingTransform
        >>> y = StickBreakingTransform().forward(paddle.to_tensor([0.5, -1.0]))
        >>> y.shape, round(float(y.sum()), 4)
        (paddle.Size([3]), 1.0)
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

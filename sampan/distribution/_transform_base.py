"""The Transform base class: forward/inverse, log-det-Jacobians, shapes and event ranks.

Each transform states the event rank of its domain and codomain (`_in_rank`, `_out_rank`: 0 for
elementwise maps, 1 for maps over the last axis such as softmax). Imports `framework`, `tensor`
and the package's Distribution base.
"""
from __future__ import annotations

import enum
from collections.abc import Sequence

from ..framework.tensor import Tensor
from . import variable as _variable
from .distribution import Distribution, is_tensor

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


def _ranked(var, rank: int):
    """`var` itself for rank 0, else Independent(var, rank) (as Paddle names them)."""
    return var if rank == 0 else _variable.Independent(var, rank)


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
    _codomain_constraint = None     # the codomain's constraint when not every real value

    @property
    def _domain(self) -> _variable.Variable:
        """The domain: real values, with `_in_rank` event dimensions."""
        return _ranked(_variable.real, self._in_rank)

    @property
    def _codomain(self) -> _variable.Variable:
        """The codomain: values satisfying `_codomain_constraint`, `_out_rank` event dims."""
        c = self._codomain_constraint
        if c is None:
            return _ranked(_variable.real, self._out_rank)
        if c is _variable.positive._constraint and self._out_rank == 0:
            return _variable.positive
        return _variable.Variable(False, self._out_rank, c)

    def __init__(self) -> None:
        pass

    def _is_injective(self) -> bool:
        return Type.is_injective(self._type)

    def __call__(self, input):
        if isinstance(input, Distribution):
            from .transformed_distribution import TransformedDistribution
            return TransformedDistribution(input, [self])
        if isinstance(input, Transform):
            from .transform import ChainTransform
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
        self._need_log_det("forward_log_det_jacobian")
        return -self._inverse_log_det_jacobian(self.forward(x))

    def inverse_log_det_jacobian(self, y: Tensor) -> Tensor:
        """log|det df^-1/dy| at y."""
        self._check_rank("inverse_log_det_jacobian", "y", y, self._out_rank)
        if hasattr(self, "_inverse_log_det_jacobian"):
            return self._inverse_log_det_jacobian(y)
        self._need_log_det("inverse_log_det_jacobian")
        return -self._forward_log_det_jacobian(self._inverse(y))

    def _need_log_det(self, api: str) -> None:
        if not hasattr(self, "_forward_log_det_jacobian") and \
                not hasattr(self, "_inverse_log_det_jacobian"):
            raise NotImplementedError(f"{type(self).__name__}.{api}: the transform defines "
                                      f"neither log-det-Jacobian")

    def forward_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """Output shape for an input of `shape`."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"{type(self).__name__}.forward_shape: shape must be a sequence of "
                            f"ints, got {type(shape).__name__}")
        return self._forward_shape(shape)

    def inverse_shape(self, shape: Sequence[int]) -> Sequence[int]:
        """Input shape for an output of `shape`."""
        if not isinstance(shape, Sequence):
            raise TypeError(f"{type(self).__name__}.inverse_shape: shape must be a sequence of "
                            f"ints, got {type(shape).__name__}")
        return self._inverse_shape(shape)

    def _forward(self, x):
        raise NotImplementedError(f"{type(self).__name__}: forward is not implemented")

    def _inverse(self, y):
        raise NotImplementedError(f"{type(self).__name__}: inverse is not implemented")

    def _forward_shape(self, shape):
        return shape

    def _inverse_shape(self, shape):
        return shape

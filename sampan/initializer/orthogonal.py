"""The Orthogonal initializer: a (semi-)orthogonal matrix from the QR of a Gaussian draw."""
from __future__ import annotations

import math

from .. import tensor as _T
from .base import Initializer, normal

__all__ = ["Orthogonal"]


class Orthogonal(Initializer):
    """Fill a parameter of rank >= 2 with a (semi-)orthogonal matrix times `gain`.

    Dim 0 is the rows, the other dims are flattened into the columns; rows are orthonormal
    when rows < cols, columns when rows > cols, both when square.

    Args:
        gain (float): the scale. Default 1.0.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([3, 3], 'float64',
        ...     default_initializer=paddle.nn.initializer.Orthogonal())
        >>> bool(paddle.allclose(w @ w.T, paddle.eye(3, dtype='float64')))
        True
    """

    def __init__(self, gain: float = 1.0, name=None) -> None:
        if gain is None:
            raise ValueError("Orthogonal: gain should not be None")
        self._gain = float(gain)

    def _initial_value(self, shape: list, dtype):
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: only a Tensor with 2 or more dimensions can be "
                             f"initialized, got shape {shape}")
        rows, cols = shape[0], math.prod(shape[1:])
        if rows * cols == 0:
            return _T.zeros(shape, dtype)
        draw = normal([max(rows, cols), min(rows, cols)], dtype, 0.0, 1.0)
        q, r = _T.linalg.qr(draw, mode="reduced")
        # Sign fix makes Q uniformly distributed over orthogonal matrices.
        q = q * _T.sign(_T.diagonal(r))
        if rows < cols:
            q = _T.transpose(q, [1, 0])
        return _T.reshape(q, shape) * self._gain

"""The Orthogonal initializer: a (semi-)orthogonal matrix from the QR of a Gaussian draw."""
from __future__ import annotations

from ... import tensor as _T
from ...tensor.linalg import qr
from ...framework.tensor import Tensor
from .initializer import Initializer, _filling, _normal

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

    def forward(self, param: Tensor, block=None) -> Tensor:
        self._check_param(param, float_only=True)
        shape = param.shape
        if len(shape) < 2:
            raise ValueError(f"Orthogonal: only a Tensor with 2 or more dimensions can be "
                             f"initialized, got shape {shape}")
        rows = shape[0]
        cols = 1
        for d in shape[1:]:
            cols *= d
        if rows * cols == 0:
            return param
        with _filling():
            draw = _normal(param, 0.0, 1.0, shape=[max(rows, cols), min(rows, cols)])
            q, r = qr(draw, mode="reduced")
            # Sign fix makes Q uniformly distributed over orthogonal matrices.
            q = q * _T.sign(_T.diagonal(r))
            if rows < cols:
                q = q.T
            return self._fill(param, q.reshape(shape) * self._gain)

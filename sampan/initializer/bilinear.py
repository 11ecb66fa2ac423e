"""The Bilinear initializer: upsampling kernels for conv2d_transpose."""
from __future__ import annotations

import math

from .. import tensor as _T
from .base import Initializer

__all__ = ["Bilinear"]


class Bilinear(Initializer):
    """Fill a 4-D kernel [C, 1, K, K] for bilinear upsampling with conv2d_transpose.

    NOTE: the values are computed exactly as Paddle computes them (its row index is a
    float `i / K % K`, not an integer), so kernels match Paddle's bit for bit.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([1, 1, 2, 2], 'float32',
        ...     default_initializer=paddle.nn.initializer.Bilinear())
        >>> w.shape
        paddle.Size([1, 1, 2, 2])
    """

    def _initial_value(self, shape: list, dtype):
        if len(shape) != 4:
            raise ValueError(f"Bilinear: the length of shape must be 4, got shape {shape}")
        if shape[2] != shape[3]:
            raise ValueError(f"Bilinear: shape[2] must be equal to shape[3], got shape "
                             f"{shape}")
        size = float(shape[3])
        factor = math.ceil(size / 2.0)
        centre = (2 * factor - 1 - factor % 2) / (2.0 * factor)
        size_t = _T.full([], size, "float64")
        i = _T.arange(math.prod(shape), dtype="float64")
        x = _T.remainder(i, size_t)
        y = _T.remainder(i / size, size_t)
        value = (1 - _T.abs(x / factor - centre)) * (1 - _T.abs(y / factor - centre))
        return _T.reshape(_T.cast(value, "float32"), shape)

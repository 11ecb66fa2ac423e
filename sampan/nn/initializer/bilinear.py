"""The Bilinear initializer: upsampling kernels for conv2d_transpose."""
from __future__ import annotations

import numpy as np

from ...framework.tensor import Tensor
from .initializer import Initializer

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
        [1, 1, 2, 2]
    """

    def forward(self, param: Tensor, block=None) -> Tensor:
        self._check_param(param, float_only=True)
        shape = param.shape
        if len(shape) != 4:
            raise ValueError(f"Bilinear: the length of shape must be 4, got shape {shape}")
        if shape[2] != shape[3]:
            raise ValueError(f"Bilinear: shape[2] must be equal to shape[3], got shape "
                             f"{shape}")
        size = shape[3]
        factor = np.ceil(size / 2.0)
        centre = (2 * factor - 1 - factor % 2) / (2.0 * factor)
        i = np.arange(int(np.prod(shape)), dtype=np.float64)
        x = i % size
        y = (i / size) % size
        value = (1 - np.abs(x / factor - centre)) * (1 - np.abs(y / factor - centre))
        return self._fill(param, value.astype(np.float32).reshape(shape))

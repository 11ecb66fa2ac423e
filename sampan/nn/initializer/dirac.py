"""The Dirac initializer: conv kernels that pass the input channels through unchanged."""
from __future__ import annotations

import numpy as np

from ...framework.tensor import Tensor
from .initializer import Initializer

__all__ = ["Dirac"]


class Dirac(Initializer):
    """Fill a 3-D/4-D/5-D conv kernel [out, in, *k] with the Dirac delta.

    In each of the `groups` slices of dim 0, X[g*n + d, d, k1//2, k2//2, ...] = 1 for
    d < min(n, in) where n = out // groups; everything else is 0. A convolution with this
    kernel copies (the first min(n, in) of) its input channels.

    Args:
        groups (int): number of groups dim 0 is split into. Default 1.

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([2, 2, 3], 'float32',
        ...     default_initializer=paddle.nn.initializer.Dirac())
        >>> w.numpy()[:, :, 1]
        array([[1., 0.],
               [0., 1.]], dtype=float32)
    """

    def __init__(self, groups: int = 1, name=None) -> None:
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"Dirac: groups must be a positive integer, got {groups!r}")
        self._groups = groups

    def forward(self, param: Tensor, block=None) -> Tensor:
        self._check_param(param, float_only=True)
        shape = param.shape
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: only a Tensor with 3/4/5 dimensions can be "
                             f"initialized, got shape {shape}")
        if shape[0] % self._groups != 0:
            raise ValueError(f"Dirac: dim 0 of the Tensor ({shape[0]}) must be divisible by "
                             f"groups ({self._groups})")
        value = np.zeros(shape, dtype=param._data.dtype)
        per_group = shape[0] // self._groups
        diag = np.arange(min(per_group, shape[1]))
        centre = tuple(k // 2 for k in shape[2:])
        for g in range(self._groups):
            value[(g * per_group + diag, diag) + centre] = 1
        return self._fill(param, value)

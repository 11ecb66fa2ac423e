"""The Dirac initializer: conv kernels that pass the input channels through unchanged."""
from __future__ import annotations

from .. import tensor as _T
from .base import Initializer

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

    def _initial_value(self, shape: list, dtype):
        if len(shape) not in (3, 4, 5):
            raise ValueError(f"Dirac: only a Tensor with 3/4/5 dimensions can be "
                             f"initialized, got shape {shape}")
        if shape[0] % self._groups != 0:
            raise ValueError(f"Dirac: dim 0 of the Tensor ({shape[0]}) must be divisible by "
                             f"groups ({self._groups})")
        per_group = shape[0] // self._groups

        def along(dim: int):  # arange over `dim`, shaped to broadcast against the kernel
            view = [1] * len(shape)
            view[dim] = shape[dim]
            return _T.reshape(_T.arange(shape[dim], dtype="int64"), view)

        # out channel g*n + d meets in channel d (o % n == i) at the kernel's centre
        out_idx = _T.remainder(along(0), _T.full([], max(per_group, 1), "int64"))
        mask = _T.equal(out_idx, along(1))
        for dim in range(2, len(shape)):
            mask = _T.logical_and(mask, _T.equal(along(dim), shape[dim] // 2))
        return _T.cast(_T.broadcast_to(mask, shape), dtype)

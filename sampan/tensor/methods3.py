"""Paddle 3.x Tensor methods of the dense Tensor: set_tensor (replace the value) and
is_coalesced (a dense Tensor refuses, as in Paddle). Bound onto Tensor by
tensor/__init__.py from METHODS. Imports `framework` only.
"""
from __future__ import annotations

from ..framework.tensor import Tensor


def set_tensor(self, value: Tensor) -> None:
    """Replace this tensor's value by a copy of `value` (its shape and dtype too), in place;
    stop_gradient is kept.

    Examples:
        >>> import sampan as paddle
        >>> a = paddle.to_tensor([1.0, 2.0])
        >>> a.set_tensor(paddle.to_tensor([[3, 4, 5]]))
        >>> a.shape, a.dtype
        (paddle.Size([1, 3]), paddle.int64)
    """
    if not isinstance(value, Tensor):
        raise ValueError(f"Tensor.set_tensor: argument 'value' (position 0) must be Tensor, "
                         f"but got {type(value).__name__}")
    self._data = value._data.copy()
    self._version += 1


def is_coalesced(self) -> bool:
    """Only a sparse COO tensor answers; a dense Tensor raises TypeError (as in Paddle)."""
    raise TypeError(f"Tensor.is_coalesced: only a sparse COO tensor has it; got a dense "
                    f"Tensor of shape {list(self.shape)}")


METHODS = {"set_tensor": set_tensor, "is_coalesced": is_coalesced}

"""Which low-precision dtypes this backend runs, and the float16-without-scaler warning.

On the CPU (NumPy) float16 training is unsupported (as in Paddle 3.3.1 on CPU) and bfloat16
is computed through ml_dtypes; on a GPU (CuPy) float16 runs natively and bfloat16 does not. Imports nothing above
`framework`.
"""
from __future__ import annotations

import warnings

from ..framework import place as _place

_SCALERS = [0]  # enabled GradScalers created in this process


def is_float16_supported(device=None) -> bool:
    """Whether `device` ('cpu', 'gpu:N', a Place; None: the current device) runs float16
    AMP: False on the CPU (as in Paddle 3.3.1), True on a GPU (float16 CuPy arrays).

    Examples:
        >>> import sampan as paddle
        >>> paddle.amp.is_float16_supported()
        False
    """
    return _place.to_place(device).backend_module is not None


def is_bfloat16_supported(device=None) -> bool:
    """Whether `device` (None: the current device) runs bfloat16 AMP: True on the CPU
    (computed through ml_dtypes), False on a GPU (CuPy has no bfloat16 kernels).

    Examples:
        >>> import sampan as paddle
        >>> paddle.amp.is_bfloat16_supported()
        True
    """
    return _place.to_place(device).backend_module is None


def note_scaler() -> None:
    _SCALERS[0] += 1


def warn_fp16_without_scaler() -> None:
    """float16 gradients underflow without loss scaling: warn if no GradScaler is enabled."""
    if not _SCALERS[0]:
        warnings.warn("paddle.amp.auto_cast: float16 training without an enabled "
                      "paddle.amp.GradScaler; small gradients will underflow to zero",
                      UserWarning, stacklevel=4)

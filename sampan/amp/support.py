"""Which low-precision dtypes this backend runs, and the float16-without-scaler warning.

sampan's backend is NumPy on CPU: float16 training is unsupported (as in Paddle 3.3.1 on CPU),
bfloat16 is computed through ml_dtypes. Imports nothing above `framework`.
"""
from __future__ import annotations

import warnings

_SCALERS = [0]  # enabled GradScalers created in this process


def is_float16_supported(device=None) -> bool:
    """Whether the device runs float16 AMP (False on CPU, as in Paddle 3.3.1).

    Examples:
        >>> import sampan as paddle
        >>> paddle.amp.is_float16_supported()
        False
    """
    return False


def is_bfloat16_supported(device=None) -> bool:
    """Whether the device runs bfloat16 AMP (True: computed through ml_dtypes).

    Examples:
        >>> import sampan as paddle
        >>> paddle.amp.is_bfloat16_supported()
        True
    """
    return True


def note_scaler() -> None:
    _SCALERS[0] += 1


def warn_fp16_without_scaler() -> None:
    """float16 gradients underflow without loss scaling: warn if no GradScaler is enabled."""
    if not _SCALERS[0]:
        warnings.warn("paddle.amp.auto_cast: float16 training without an enabled "
                      "paddle.amp.GradScaler; small gradients will underflow to zero",
                      UserWarning, stacklevel=4)

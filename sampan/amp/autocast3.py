"""Paddle 3.x's PyTorch-style AMP names: autocast, is_autocast_enabled, get_autocast_dtype
(and its _cpu/_gpu spellings). They read the auto_cast contexts installed on this thread's
dispatch state (an auto_cast wrapper carries trace_key ("amp", level, dtype, ...)).
Imports `framework` and this room.
"""
from __future__ import annotations

import contextlib

from ..framework import dtype as _dt
from ..framework import flags as _flags
from .auto_cast import auto_cast

__all__ = ["autocast", "is_autocast_enabled", "get_autocast_dtype", "get_autocast_cpu_dtype",
           "get_autocast_gpu_dtype"]


def autocast(device_type: str | None, dtype="float16", enabled: bool = True,
             cache_enabled: bool = True) -> contextlib.AbstractContextManager:
    """PyTorch-style spelling of `paddle.amp.auto_cast(enable=enabled, dtype=dtype)`.

    Args:
        device_type (str|None): required; ignored (every device shares one AMP state).
        dtype (str|paddle.dtype): 'float16' or 'bfloat16'. Default 'float16'.
        enabled (bool): turn auto-mixed-precision on. Default True.
        cache_enabled (bool): unused. Default True.

    Examples:
        >>> import sampan as paddle
        >>> with paddle.autocast("cpu", dtype="bfloat16"):
        ...     print(paddle.is_autocast_enabled(), paddle.get_autocast_dtype())
        True bfloat16
        >>> paddle.is_autocast_enabled()
        False
    """
    if not isinstance(dtype, str):
        try:
            dtype = _dt.convert_dtype(dtype).name
        except TypeError:
            raise ValueError(f"paddle.autocast: dtype must be 'float16' or 'bfloat16', got "
                             f"{dtype!r}") from None
    return auto_cast(enable=enabled, dtype=dtype)


def _active_amp() -> tuple | None:
    """The trace key of the innermost active auto_cast of this thread, or None."""
    for wrapper in reversed(_flags.STATE.wrappers):
        key = getattr(wrapper, "trace_key", None)
        if key and key[0] == "amp" and key[1] != "O0":
            return key
    return None


def is_autocast_enabled(device_type=None) -> bool:
    """Whether an auto_cast context is in effect here. device_type is ignored (every
    device shares one AMP state). On the CPU, float16 auto_cast has no effect (False
    inside it), as in Paddle.

    Examples:
        >>> import sampan as paddle
        >>> paddle.amp.is_autocast_enabled()
        False
    """
    return _active_amp() is not None


def get_autocast_dtype(device_type=None) -> str:
    """The low-precision dtype name of the auto_cast in effect; 'float16' when none is.

    Examples:
        >>> import sampan as paddle
        >>> paddle.get_autocast_dtype()
        'float16'
    """
    key = _active_amp()
    return "float16" if key is None else key[2]


get_autocast_cpu_dtype = get_autocast_dtype
get_autocast_gpu_dtype = get_autocast_dtype

"""paddle.cuda (Paddle 3.x): the GPU API under PyTorch-style names. Everything here is
`paddle.device.cuda` or a device-generic query of `paddle.device`, under the names Paddle
3.3.1's `paddle.cuda` gives them; on a CPU-only setup the queries answer as Paddle's CPU
build does (device_count() == 0, is_available() False). Imports `device`, `framework`.
"""
from __future__ import annotations

from .device import (device, device_count, get_rng_state, is_available,  # noqa: F401
                     is_bf16_supported, manual_seed, set_device, set_rng_state,
                     synchronize)
from .device.cuda import (Event, Stream, current_stream, empty_cache,  # noqa: F401
                          get_device_capability, get_device_name, get_device_properties,
                          max_memory_allocated, max_memory_reserved, memory_allocated,
                          memory_reserved, stream_guard)
from .framework.place import get_device as _get_device

__all__ = ["Event", "Stream", "current_device", "current_stream", "device", "device_count",
           "empty_cache", "get_device_capability", "get_device_name",
           "get_device_properties", "get_rng_state", "is_available", "is_bf16_supported",
           "is_initialized", "manual_seed", "manual_seed_all", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "set_device",
           "set_rng_state", "stream_guard", "synchronize"]


def manual_seed_all(seed: int) -> None:
    """Seed the generators of every device (sampan has one generator).

    Examples:
        >>> import sampan as paddle
        >>> paddle.cuda.manual_seed_all(102)
    """
    manual_seed(seed)


def current_device() -> int:
    """The id of the current GPU; a RuntimeError when no GPU is in use (as asking for the
    current CUDA device without one fails)."""
    current = _get_device()
    if not current.startswith("gpu"):
        raise RuntimeError(f"paddle.cuda.current_device: no GPU is in use (the current "
                           f"device is {current!r})")
    return int(current.split(":")[1]) if ":" in current else 0


def is_initialized() -> bool:
    """Whether the GPU runtime is up: True when a GPU is available."""
    return is_available()

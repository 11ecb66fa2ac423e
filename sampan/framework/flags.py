"""FLAGS_* settings (set_flags/get_flags) and the mutable state dispatch reads.

`STATE` holds what dispatch consults on every call: grad mode and one intercept hook that the
static builder, AMP and the profiler install. Imports nothing.
"""
from __future__ import annotations


class _State:
    __slots__ = ("grad_enabled", "intercept", "static_mode", "saved_hooks")

    def __init__(self) -> None:
        self.grad_enabled = True
        # Callable (op, inputs, attrs) -> outputs installed by the static builder, AMP or
        # the profiler; None on the plain eager path. Whoever installs it chains to the
        # previous one and ends in `ops.dispatch.eager`.
        self.intercept = None
        self.static_mode = False
        # (pack_hook, unpack_hook) of the innermost autograd.saved_tensors_hooks, or None
        self.saved_hooks = None


STATE = _State()

_FLAGS: dict = {
    "FLAGS_check_nan_inf": False,
    "FLAGS_cudnn_deterministic": False,
    "FLAGS_use_mkldnn": False,
    "FLAGS_eager_delete_tensor_gb": 0.0,
    "FLAGS_fraction_of_gpu_memory_to_use": 0.92,
    "FLAGS_allocator_strategy": "auto_growth",
    "FLAGS_embedding_deterministic": 0,
}


def set_flags(flags: dict) -> None:
    """Set FLAGS_* values. Unknown flags are accepted and stored (most have no CPU effect)."""
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags: flags must be a dict, got {type(flags).__name__}")
    for key, value in flags.items():
        if not str(key).startswith("FLAGS_"):
            raise ValueError(f"set_flags: flag names start with 'FLAGS_', got {key!r}")
        _FLAGS[key] = value


def get_flags(flags) -> dict:
    """Return {name: value} for a flag name or a list of names."""
    names = [flags] if isinstance(flags, str) else list(flags)
    out = {}
    for key in names:
        if key not in _FLAGS:
            raise ValueError(f"get_flags: unknown flag {key!r}")
        out[key] = _FLAGS[key]
    return out

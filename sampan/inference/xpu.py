"""paddle.inference.XpuConfig: the XPU settings as plain data (fields and defaults as
Paddle 3.3.1's). sampan runs on the CPU only, so it warns once that they have no effect."""
from __future__ import annotations

import warnings

__all__ = ["XpuConfig"]

_FIELDS = {
    "device_id": 0, "l3_size": 0, "l3_ptr": None, "l3_autotune_size": 0,
    "context_gm_size": -1, "context": None, "stream": None,
    "conv_autotune_level": 0, "conv_autotune_file": "", "conv_autotune_file_writeback": False,
    "fc_autotune_level": 0, "fc_autotune_file": "", "fc_autotune_file_writeback": False,
    "gemm_compute_precision": 1, "transformer_softmax_optimize_level": 0,
    "transformer_encoder_adaptive_seqlen": True, "quant_post_static_gelu_out_threshold": 10.0,
    "quant_post_dynamic_activation_method": 0, "quant_post_dynamic_weight_precision": 1,
    "quant_post_dynamic_op_types": [],
}
_WARNED = {"done": False}


class XpuConfig:
    """XPU inference settings (Paddle's fields and defaults). Setting an unknown field
    raises AttributeError; a value of the wrong kind raises TypeError.

    Examples:
        >>> import warnings
        >>> import sampan.inference as paddle_infer
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     cfg = paddle_infer.XpuConfig()
        >>> cfg.device_id, cfg.l3_size
        (0, 0)
        >>> cfg.l3_size = 16 * 1024 * 1024
    """
    __slots__ = tuple(_FIELDS)

    def __init__(self) -> None:
        if not _WARNED["done"]:
            _WARNED["done"] = True
            warnings.warn("XpuConfig: XPU is not available in sampan (CPU only); the "
                          "settings are kept but have no effect", UserWarning, stacklevel=2)
        for name, value in _FIELDS.items():
            object.__setattr__(self, name, list(value) if isinstance(value, list) else value)

    def __setattr__(self, name: str, value) -> None:
        if name not in _FIELDS:
            raise AttributeError(f"XpuConfig has no field {name!r}")
        default = _FIELDS[name]
        if default is not None and not _fits(default, value):
            raise TypeError(f"XpuConfig.{name} must be {type(default).__name__}, got "
                            f"{type(value).__name__} {value!r}")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return "XpuConfig(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in _FIELDS) + ")"


def _fits(default, value) -> bool:
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, type(default))

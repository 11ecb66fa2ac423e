"""paddle.amp: automatic mixed precision (auto_cast, decorate, GradScaler, debugging).

auto_cast is one dispatch wrapper (framework.flags), so it works eagerly, while building
static Programs and under to_static. Sits in the metric/hapi row: imports nn and below.
"""
from . import debugging
from .auto_cast import amp_guard, auto_cast, black_list, white_list
from .autocast3 import (autocast, get_autocast_cpu_dtype, get_autocast_dtype,  # noqa: F401
                        get_autocast_gpu_dtype, is_autocast_enabled)
from .decorate import decorate
from .grad_scaler import GradScaler
from .support import is_bfloat16_supported, is_float16_supported

amp_decorate = decorate

__all__ = ["auto_cast", "amp_guard", "decorate", "amp_decorate", "GradScaler",
           "is_float16_supported", "is_bfloat16_supported", "white_list", "black_list",
           "debugging", "autocast", "is_autocast_enabled", "get_autocast_dtype",
           "get_autocast_cpu_dtype", "get_autocast_gpu_dtype"]

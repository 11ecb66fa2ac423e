"""`paddle.base` (Paddle 2.6's name for `fluid`): the thin part of it that programs and
Paddle's own tests use, as aliases of what sampan already has — no second implementation.

The top room: it may import every other one. Loaded only on first use of `paddle.base`.
"""
from __future__ import annotations

import sys

from . import core
from ..framework import param_attr
from .core import (CPUPlace, CUDAPinnedPlace, CUDAPlace,  # noqa: F401
                   is_compiled_with_cinn, is_compiled_with_cuda, is_compiled_with_rocm,
                   is_compiled_with_xpu)
from ..framework.flags import get_flags, set_flags  # noqa: F401
from ..framework.param_attr import ParamAttr, WeightNormParamAttr  # noqa: F401
from ..framework.tensor import Tensor  # noqa: F401
from ..nn.initializer import set_global_initializer  # noqa: F401
from ..static import (BuildStrategy, CompiledProgram, Executor, Program,  # noqa: F401
                      Scope, Variable, cpu_places, cuda_places, data,
                      default_main_program, default_startup_program, device_guard,
                      global_scope, gradients, append_backward, name_scope, program_guard,
                      scope_guard)
from ..utils import require_version, unique_name  # noqa: F401
from . import backward, dygraph, executor, framework, io, wrapped_decorator  # noqa: F401
from ..static.lod import (LoDTensor, create_lod_tensor,  # noqa: F401
                          create_random_int_lodtensor)
from .dygraph.base import (disable_dygraph, enable_dygraph, in_dygraph_mode,  # noqa: F401
                           in_dynamic_or_pir_mode, in_pir_mode)

enable_imperative = enable_dygraph
disable_imperative = disable_dygraph


def cuda_pinned_places(device_count=None) -> list:
    """[CUDAPinnedPlace()] * device_count (default 1), as Paddle lists them."""
    return [CUDAPinnedPlace()] * (device_count or 1)


# Module paths `paddle.base.unique_name` and `.param_attr` are these same modules.
for _name, _module in (("unique_name", unique_name), ("param_attr", param_attr)):
    sys.modules[f"{__name__}.{_name}"] = _module
del _name, _module

"""`paddle.base.framework`: Program/Variable classes, program guards and mode queries
(aliases of `paddle.static` and the framework room)."""
from __future__ import annotations

from ..framework.dtype import convert_dtype as convert_np_dtype_to_dtype_  # noqa: F401
from ..framework.flags import get_flags, set_flags  # noqa: F401
from ..framework.place import current_place as _current_expected_place  # noqa: F401
from ..framework.tensor import Parameter as EagerParamBase  # noqa: F401
from ..framework.tensor import Tensor  # noqa: F401
from ..static import (Block, Operator, Parameter, Program, Variable,  # noqa: F401
                      default_main_program, default_startup_program, name_scope,
                      program_guard)
from .dygraph.base import (_mode, in_dygraph_mode, in_dynamic_or_pir_mode,  # noqa: F401
                           in_pir_mode)

in_dynamic_mode = in_dygraph_mode


def use_pir_api() -> bool:
    return False


def _dygraph_guard(tracer):
    """Dynamic mode inside the block when `tracer` is not None, static mode when it is."""
    return _mode(tracer is not None)

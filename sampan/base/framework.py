"""`paddle.base.framework`: Program/Variable classes, program guards and mode queries
(aliases of `paddle.static` and the framework room)."""
from __future__ import annotations

import functools

from ..framework.dtype import convert_dtype as convert_np_dtype_to_dtype_  # noqa: F401
from ..framework.flags import get_flags, set_flags  # noqa: F401
from ..framework.place import current_place as _current_expected_place  # noqa: F401
from ..framework.tensor import Parameter as EagerParamBase  # noqa: F401
from ..framework.tensor import Tensor  # noqa: F401
from ..framework.flags import in_dynamic_mode as _dynamic
from ..static import (Block, Operator, Parameter, Program,  # noqa: F401
                      default_main_program, default_startup_program, name_scope,
                      program_guard)
from ..static import Variable as _StaticVariable
from .dygraph.base import (_mode, in_dygraph_mode, in_dynamic_or_pir_mode,  # noqa: F401
                           in_pir_mode)

in_dynamic_mode = in_dygraph_mode


class _VariableMeta(type):
    """Paddle's `base.framework.Variable` answers isinstance by mode: an eager Tensor in
    dynamic mode, a static Variable while building (its VariableMetaClass)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor if _dynamic() else _StaticVariable)

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, Tensor if _dynamic() else _StaticVariable)


class Variable(metaclass=_VariableMeta):
    """The mode-dependent isinstance target `paddle.base.framework.Variable` (static
    Variables are `paddle.static.Variable`)."""

# reserved variable-name parts of Paddle's Program (gradients are `x@GRAD` in sampan too)
GRAD_VAR_SUFFIX = "@GRAD"
ZERO_VAR_SUFFIX = "@ZERO"
TEMP_VAR_NAME = "@TEMP@"


def use_pir_api() -> bool:
    return False


def _dygraph_guard(tracer):
    """Dynamic mode inside the block when `tracer` is not None, static mode when it is."""
    return _mode(tracer is not None)


def dygraph_not_support(func):
    """Decorator: calling `func` in dynamic mode raises AssertionError (static-only API)."""
    @functools.wraps(func)
    def run(*args, **kwargs):
        assert not in_dygraph_mode(), f"We don't support {func.__name__} in dynamic graph mode"
        return func(*args, **kwargs)
    return run


def dygraph_only(func):
    """Decorator: calling `func` in static mode raises AssertionError (dynamic-only API)."""
    @functools.wraps(func)
    def run(*args, **kwargs):
        assert in_dygraph_mode(), (f"We only support '{func.__name__}()' in dynamic graph "
                                   f"mode, please call 'paddle.disable_static()' to enter "
                                   f"dynamic graph mode.")
        return func(*args, **kwargs)
    return run


class _Tracer:
    """The dynamic-mode tracer handle of `_dygraph_tracer()`: `_has_grad` is the grad mode
    (paddle.is_grad_enabled), `_train_mode` a plain flag; `_generate_unique_name` makes
    dygraph temporary names."""

    _train_mode = True

    @property
    def _has_grad(self) -> bool:
        from ..framework.flags import STATE
        return STATE.grad_enabled

    @_has_grad.setter
    def _has_grad(self, value: bool) -> None:
        from ..framework.flags import STATE
        STATE.grad_enabled = bool(value)

    def _generate_unique_name(self, key: str = "dygraph_tmp") -> str:
        from ..utils import unique_name
        return unique_name.generate(key)


_TRACER = _Tracer()


def _dygraph_tracer():
    """The tracer in dynamic mode, None in static mode (as Paddle)."""
    return _TRACER if in_dygraph_mode() else None

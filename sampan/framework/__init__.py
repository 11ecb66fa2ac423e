"""Framework core: dtypes, places, random generator, flags/state, Tensor data, the tape node.

Imports no op; every other room may import it. The names `paddle.framework` exports (ParamAttr,
core, get_default_dtype, in_pir_mode, ...) load on first use so that this package stays light.
"""
from __future__ import annotations

_EXPORTS = {
    "ParamAttr": "param_attr", "WeightNormParamAttr": "param_attr",
    "get_default_dtype": "dtype", "set_default_dtype": "dtype",
    "CPUPlace": "place", "CUDAPlace": "place", "CUDAPinnedPlace": "place",
    "get_flags": "flags", "set_flags": "flags", "in_dynamic_mode": "flags",
    "seed": "random", "save": "io", "load": "io",
}


def in_pir_mode() -> bool:
    """False: sampan has one IR, whose Program behaves as Paddle's legacy Program (Variables
    with names, `block.vars`), so code written for both takes its legacy-IR branch."""
    return False


def in_dynamic_or_pir_mode() -> bool:
    """True in dynamic mode (sampan never builds PIR)."""
    from .flags import in_dynamic_mode
    return in_dynamic_mode()


def use_pir_api() -> bool:
    return False


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'sampan.framework' has no attribute {name!r}")
    import importlib
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value

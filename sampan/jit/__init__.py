"""paddle.jit: to_static (dynamic to static), jit.save / jit.load and TranslatedLayer.

Imports `framework`, `ops` and `static` (and nn for TranslatedLayer, see translated_layer).
"""
from .api import (StaticFunction, enable_to_static, ignore_module, not_to_static,  # noqa: F401
                  set_code_level, set_verbosity, to_static)
from . import marker  # noqa: F401
from .save_load import load, save  # noqa: F401

__all__ = ["to_static", "save", "load", "TranslatedLayer", "StaticFunction", "not_to_static",
           "enable_to_static", "ignore_module", "set_code_level", "set_verbosity", "marker"]


def __getattr__(name: str):
    if name == "TranslatedLayer":   # an nn.Layer: nn loads only when asked for
        from .translated_layer import TranslatedLayer
        return TranslatedLayer
    raise AttributeError(f"module 'sampan.jit' has no attribute {name!r}")

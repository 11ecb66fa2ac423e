"""paddle.jit.marker: decorators that tell to_static how to treat a function."""
from __future__ import annotations

from .api import not_to_static  # noqa: F401


def unified(fn=None, for_sot: bool = True, for_ast: bool = True):
    """Mark a function written to run unchanged in both modes: to_static calls it as plain
    Python (its tensor ops are recorded) instead of converting it."""
    if fn is None:
        return lambda f: unified(f, for_sot, for_ast)
    return not_to_static(fn)

"""Test helper: build into a Program in static mode for the block (then back to dynamic mode)."""
from __future__ import annotations

import contextlib

import sampan as paddle


@contextlib.contextmanager
def static_guard(main, startup=None):
    """`paddle.enable_static()` + `static.program_guard(main, startup)` for the block, as
    Paddle's own examples do; dynamic mode is restored on exit if it was on before."""
    was_dynamic = paddle.in_dynamic_mode()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, startup):
            yield
    finally:
        if was_dynamic:
            paddle.disable_static()

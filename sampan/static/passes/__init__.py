"""Program passes: functions Program -> Program registered by name (`apply_pass`).

Each pass returns a new Program (the input is left untouched) and ships a before/after text
test. Imports `static.program`.
"""
from __future__ import annotations

from ..program import Program

PASSES: dict = {}


def register_pass(name: str):
    """Decorator: register `fn(program, **options) -> Program` under `name`."""
    def deco(fn):
        if name in PASSES:
            raise ValueError(f"pass {name!r} registered twice")
        PASSES[name] = fn
        return fn
    return deco


def apply_pass(program: Program, name: str, **options) -> Program:
    try:
        fn = PASSES[name]
    except KeyError:
        raise KeyError(f"no pass named {name!r}; known: {sorted(PASSES)}") from None
    return fn(program, **options)


from . import dce  # noqa: E402,F401  (registers its pass)

"""Program passes: functions Program -> Program registered by name.

Each pass returns a new Program (the input is left untouched) and ships a before/after text
test and a numerical-equality test. `apply(program, names, **options)` runs several in
order (each pass gets the options its signature accepts, e.g. `keep` = fetch targets that
must survive); `apply_build_strategy(program, strategy, **options)` runs the passes a
`static.BuildStrategy` selects (see STRATEGY_PASSES). Imports `static.program`.

Passes: dead_code_elimination, constant_folding, common_subexpression_elimination,
fuse_elementwise, inplace, fuse_linear, fuse_conv_bn.
"""
from __future__ import annotations

import inspect

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


def apply(program: Program, names, **options) -> Program:
    """Run the passes `names` (a name or a list of names) in order; each gets the
    `options` its signature names (e.g. keep=[fetch vars], scope=...)."""
    if not isinstance(program, Program):
        raise TypeError(f"passes.apply: program must be a Program, got "
                        f"{type(program).__name__}")
    names = [names] if isinstance(names, str) else list(names)
    for name in names:
        if name not in PASSES:
            raise KeyError(f"no pass named {name!r}; known: {sorted(PASSES)}")
    for name in names:
        fn = PASSES[name]
        params = inspect.signature(fn).parameters
        program = fn(program, **{k: v for k, v in options.items() if k in params})
    return program


# BuildStrategy attribute -> pass, in the order they run. Paddle's flag names where one
# fits; `enable_constant_folding` and `enable_cse` are sampan's. A strategy may also carry
# `passes` (a list of names) run after these.
STRATEGY_PASSES = (
    ("enable_constant_folding", "constant_folding"),
    ("enable_cse", "common_subexpression_elimination"),
    ("fuse_bn_act_ops", "fuse_conv_bn"),
    ("fuse_gemm_epilogue", "fuse_linear"),
    ("fuse_elewise_add_act_ops", "fuse_elementwise"),
    ("enable_inplace", "inplace"),
    ("memory_optimize", "inplace"),
)


def strategy_pass_names(strategy) -> list:
    """The pass names a BuildStrategy (any object with those attributes) selects."""
    names = []
    for flag, name in STRATEGY_PASSES:
        if getattr(strategy, flag, False) and name not in names:
            names.append(name)
    for name in getattr(strategy, "passes", None) or ():
        if name not in names:
            names.append(name)
    return names


def apply_build_strategy(program: Program, strategy, **options) -> Program:
    """`program` transformed by the passes `strategy` selects (the input is untouched).

    Pass keep=[fetch Variables or names] so that fusions leave the fetched values alone
    (the Executor also ignores an in-place mark on a fetched variable)."""
    if strategy is None:
        return program
    return apply(program, strategy_pass_names(strategy), **options)


from . import dce  # noqa: E402,F401  (registers its pass)
from . import constant_folding, cse, fuse_elementwise, inplace  # noqa: E402,F401
from . import fuse_conv_bn, fuse_linear  # noqa: E402,F401

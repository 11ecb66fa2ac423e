"""Dead-code elimination: drop ops whose outputs nobody needs.

An op is live if it writes a persistable variable (a side effect: parameter updates,
counters) or a variable in `keep`, or if a live op reads one of its outputs. Variables no
live op mentions are dropped too (data variables and parameters stay unless `prune_vars`).
"""
from __future__ import annotations

from ..program import Program
from . import register_pass


@register_pass("dead_code_elimination")
def dead_code_elimination(program: Program, keep=(), side_effects: bool = True,
                          prune_vars: bool = False) -> Program:
    """Return a copy of `program` without dead ops in its global block.

    Args:
        keep: variable names (or Variables) whose producers must stay.
        side_effects: keep ops writing persistable variables (False when pruning for
            inference: only what `keep` needs survives).
        prune_vars: also drop unused data/parameter variables.
    """
    new = program.clone()
    block = new.global_block()
    needed = {getattr(k, "name", k) for k in keep}
    live = []
    for op in reversed(block.ops):
        outs = op.output_arg_names
        writes_state = side_effects and any(block.var(n).persistable for n in outs)
        if writes_state or any(n in needed for n in outs):
            live.append(op)
            needed.update(op.input_arg_names)
    live.reverse()
    block.ops = live
    used = needed | {n for op in live for n in op.output_arg_names}
    for name in list(block.vars):
        v = block.vars[name]
        if name in used or (not prune_vars and (v.is_data or v.is_parameter)):
            continue
        del block.vars[name]
        new._consts.pop(name, None)
        new._bound.pop(name, None)
    new._bump()
    return new

"""Dead-code elimination: drop ops whose outputs nobody needs.

An op is live if it writes a persistable variable (a side effect: parameter updates,
counters), has no outputs or an OpDef marked `side_effects` (py_func), or writes a variable
in `keep`, or if a live op reads one of its outputs (the last three kinds are side effects
too: with side_effects=False only what `keep` needs survives). Variables no live op mentions
are dropped too (data variables and parameters stay unless `prune_vars`).

Sub-blocks (control flow) are closed: each is pruned to what its op hands back (the
`<prefix>_output(s)` attrs next to a `<prefix>_block` attr); there only the outputs of
dropped ops are removed from the variables (the bound inputs stay).
"""
from __future__ import annotations

from ...ops.opdef import REGISTRY
from ..program import Program
from . import register_pass


def _effectful(op) -> bool:
    return not op.output_arg_names or getattr(REGISTRY.get(op.type), "side_effects", False)


def _prune_ops(block, needed: set, side_effects: bool) -> list:
    live = []
    for op in reversed(block.ops):
        outs = op.output_arg_names
        writes_state = side_effects and (_effectful(op) or any(
            block.var(n).persistable for n in outs))
        if writes_state or any(n in needed for n in outs):
            live.append(op)
            needed.update(op.input_arg_names)
    live.reverse()
    return live


def _sub_block_outputs(program) -> dict:
    """block index -> names its control-flow op reads back from it."""
    out: dict = {}
    for block in program.blocks:
        for op in block.ops:
            for key, idx in op.attrs.items():
                if not key.endswith("_block") or type(idx) is not int or idx <= 0:
                    continue
                prefix = key[:-len("block")]
                names = op.attrs.get(prefix + "outputs", op.attrs.get(prefix + "output"))
                names = [names] if isinstance(names, str) else list(names or [])
                out.setdefault(idx, set()).update(n for n in names if n)
    return out


@register_pass("dead_code_elimination")
def dead_code_elimination(program: Program, keep=(), side_effects: bool = True,
                          prune_vars: bool = False) -> Program:
    """Return a copy of `program` without dead ops (global block and control-flow
    sub-blocks).

    Args:
        keep: variable names (or Variables) whose producers must stay.
        side_effects: keep ops writing persistable variables (False when pruning for
            inference: only what `keep` needs survives).
        prune_vars: also drop unused data/parameter variables.
    """
    new = program.clone()
    block = new.global_block()
    needed = {getattr(k, "name", k) for k in keep}
    live = _prune_ops(block, needed, side_effects)
    block.ops = live
    used = needed | {n for op in live for n in op.output_arg_names}
    for name in list(block.vars):
        v = block.vars[name]
        if name in used or (not prune_vars and (v.is_data or v.is_parameter)):
            continue
        del block.vars[name]
        new._consts.pop(name, None)
        new._bound.pop(name, None)
    subs = _sub_block_outputs(new)
    for sub in new.blocks[1:]:
        if sub.idx not in subs:
            continue
        old = sub.ops
        sub.ops = _prune_ops(sub, set(subs[sub.idx]), side_effects=True)
        kept = {id(op) for op in sub.ops}
        still = {n for op in sub.ops for n in op.input_arg_names + op.output_arg_names}
        for op in old:
            if id(op) in kept:
                continue
            for n in op.output_arg_names:
                if n not in still and n not in subs[sub.idx]:
                    sub.vars.pop(n, None)
    new._bump()
    return new

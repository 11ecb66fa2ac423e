"""Common-subexpression elimination: an op with the same type, inputs and attrs as an
earlier one is dropped and its outputs' readers read the earlier outputs.

Inputs are compared by name and version (a persistable variable rewritten by an op in
between is a different value). Random ops, control flow, ops writing persistable variables
and ops whose outputs are in `keep` (fetch targets) are never eliminated. Constants with
equal values (same dtype and shape) count as the same input.
"""
from __future__ import annotations

import json

from ...ops.opdef import REGISTRY
from ..program import Program
from . import register_pass
from ._graph import drop_unused_vars, is_opaque, rename_uses


@register_pass("common_subexpression_elimination")
def common_subexpression_elimination(program: Program, keep=(),
                                     max_const_elements: int = 64) -> Program:
    """Return a copy of `program` whose global block computes each expression once.

    Args:
        keep: variable names (or Variables) that must stay defined under their name.
        max_const_elements: constants up to this size are compared by value.
    """
    new = program.clone()
    block = new.global_block()
    keep_names = {getattr(k, "name", k) for k in keep}
    const_key = _const_keys(new, max_const_elements)
    version: dict = {}
    seen: dict = {}
    mapping: dict = {}
    kept = []
    removed = []
    for op in block.ops:
        for slot, names in op.inputs.items():
            if names:
                op.inputs[slot] = [mapping.get(n, n) for n in names]
        outs = op.output_arg_names
        opdef = REGISTRY.get(op.type)
        eligible = (opdef is not None and not opdef.random and not is_opaque(op)
                    and not any(block.var(n).persistable for n in outs))
        if eligible:
            key = (op.type,
                   tuple((slot, tuple(const_key.get(n) or (n, version.get(n, 0))
                                      for n in names or ()))
                         for slot, names in sorted(op.inputs.items())),
                   json.dumps(op.attrs, sort_keys=True, default=str))
            prev = seen.get(key)
            if prev is not None and not any(n in keep_names for n in outs):
                for old, new_name in zip(outs, prev.output_arg_names):
                    mapping[old] = new_name
                removed.extend(outs)
                continue
            seen.setdefault(key, op)
        for n in outs:
            version[n] = version.get(n, 0) + 1
        kept.append(op)
    block.ops = kept
    rename_uses(new, mapping)  # sub-blocks may read the dropped names
    drop_unused_vars(new, removed)
    new._bump()
    return new


def _const_keys(program, limit: int) -> dict:
    keys = {}
    for name, arr in program._consts.items():
        if arr.size <= limit:
            keys[name] = ("const", str(arr.dtype), arr.shape, arr.tobytes())
    return keys

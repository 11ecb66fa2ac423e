"""Constant folding: ops whose inputs are all constants are computed at pass time with
their OpDef's `compute`; their outputs become constants.

Random ops, ops writing persistable variables and control flow are left alone; so are
results larger than `max_elements` (folding must not bloat the program).
"""
from __future__ import annotations

import numpy as np

from ...backend import numpy_ as _xp
from ...ops.opdef import REGISTRY
from ..program import Program
from . import register_pass
from ._graph import is_opaque


@register_pass("constant_folding")
def constant_folding(program: Program, keep=(), max_elements: int = 1 << 16) -> Program:
    """Return a copy of `program` with constant sub-expressions of its global block folded
    (folded values nothing reads any more are dropped unless in `keep`).

    Args:
        keep: variable names (or Variables) that must stay defined (fetch targets).
        max_elements: results with more elements stay computed at run time.
    """
    new = program.clone()
    block = new.global_block()
    consts = new._consts
    kept = []
    folded = []
    for op in block.ops:
        value = _fold(new, block, op, consts, max_elements)
        if value is None:
            kept.append(op)
            continue
        for name, arr in zip(op.output_arg_names, value):
            var = block.var(name)
            var.persistable = True
            var.stop_gradient = True
            consts[name] = arr
            folded.append(name)
    block.ops = kept
    keep_names = {getattr(k, "name", k) for k in keep}
    read = {n for b in new.blocks for op in b.ops for n in op.input_arg_names}
    for name in folded:
        if name not in read and name not in keep_names:
            del block.vars[name]
            consts.pop(name)
    new._bump()
    return new


def _fold(program, block, op, consts, max_elements):
    opdef = REGISTRY.get(op.type)
    if opdef is None or opdef.random or is_opaque(op):
        return None
    names = op.input_arg_names
    if any(n not in consts for n in names):
        return None
    outs = op.output_arg_names
    vars_ = [block.var(n) for n in outs]
    if any(v.persistable or v.is_data for v in vars_):
        return None
    if any(d < 0 for v in vars_ for d in v._shape):
        return None
    if int(np.prod([max(1, int(np.prod(v._shape))) for v in vars_])) > max_elements:
        return None
    args = []
    for slot, variadic in zip(opdef.input_names, opdef.variadic):
        vals = [consts[n] for n in (op.inputs.get(slot) or [])]
        args.append(vals if variadic else (vals[0] if vals else None))
    try:
        out = opdef.compute(_xp, *args, **op.attrs)
    except Exception:  # leave it to run time, which reports the error with context
        return None
    out = tuple(out) if opdef.multi_out else (out,)
    result = []
    for v, arr in zip(vars_, out):
        arr = np.asarray(arr)
        if list(arr.shape) != v._shape or arr.dtype != v.dtype.np:
            return None
        result.append(arr)
    return result

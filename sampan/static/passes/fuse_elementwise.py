"""Elementwise fusion: connected groups of elementwise ops whose intermediate values are
used only inside the group become one `fused_elementwise` op (attrs hold the sub-graph;
its kernel evaluates it with fewer temporaries; `decompose` re-expands it).

Groups grow backwards from a root op (walking the block in reverse): a producer joins when
it is elementwise and every reader of its output is already in the group. Protected
variables (persistable, data, constants, `keep`) are never internal. The fused op takes
the root's place and writes the root's output name.
"""
from __future__ import annotations

from ...ops.fused import ELEMENTWISE
from ...ops.opdef import REGISTRY
from ..program import Operator, Program
from . import register_pass
from ._graph import consumers, drop_unused_vars, is_opaque, protected

_MISSING = object()


def eligible(block, op) -> bool:
    if op.type not in ELEMENTWISE or is_opaque(op):
        return False
    opdef = REGISTRY[op.type]
    outs = op.output_arg_names
    return (not opdef.multi_out and not opdef.has_variadic and len(outs) == 1
            and not block.var(outs[0]).persistable)


def node_attrs(op) -> dict:
    """The op's attrs that differ from its OpDef's defaults (keeps the graph attr short)."""
    defaults = REGISTRY[op.type].attrs
    return {k: v for k, v in op.attrs.items() if defaults.get(k, _MISSING) != v}


def fused_op(block, members: list) -> Operator:
    """One fused_elementwise Operator computing `members` (in program order)."""
    inputs: list = []
    index: dict = {}
    internal = {op.output_arg_names[0] for op in members}
    for op in members:
        for n in op.input_arg_names:
            if n not in internal and n not in index:
                index[n] = len(inputs)
                inputs.append(n)
    graph = []
    for j, op in enumerate(members):
        opdef = REGISTRY[op.type]
        refs = []
        for slot in opdef.input_names:
            names = op.inputs.get(slot) or []
            refs.append(index[names[0]] if names else None)
        graph.append([op.type, refs, node_attrs(op)])
        index[op.output_arg_names[0]] = len(inputs) + j
    out = members[-1].output_arg_names[0]
    return Operator(block, "fused_elementwise", {"xs": inputs}, {"out": [out]},
                    {"graph": graph, "inplace": -1})


@register_pass("fuse_elementwise")
def fuse_elementwise(program: Program, keep=(), min_size: int = 2) -> Program:
    """Return a copy of `program` with elementwise groups of its global block fused.

    Args:
        keep: variable names (or Variables) that must stay defined (fetch targets).
        min_size: smallest group worth fusing.
    """
    new = program.clone()
    block = new.global_block()
    ops = block.ops
    pos = {id(op): k for k, op in enumerate(ops)}
    cons = consumers(new)
    prot = protected(new, keep)
    prod = {}
    for op in ops:
        for n in op.output_arg_names:
            prod[n] = op
    group_of: dict = {}
    groups = []
    for op in reversed(ops):
        if id(op) in group_of or not eligible(block, op):
            continue
        gid = len(groups)
        group_of[id(op)] = gid
        members = [op]
        grown = True
        while grown:
            grown = False
            for m in list(members):
                for n in m.input_arg_names:
                    p = prod.get(n)
                    if (p is None or id(p) in group_of or n in prot
                            or not eligible(block, p)):
                        continue
                    if all(group_of.get(id(c)) == gid for c in cons.get(n, ())):
                        group_of[id(p)] = gid
                        members.append(p)
                        grown = True
        if len(members) < min_size:
            for m in members[1:]:
                del group_of[id(m)]
            del group_of[id(op)]
            continue
        members.sort(key=lambda o: pos[id(o)])
        groups.append((op, members))
    if not groups:
        return new
    replace = {id(root): fused_op(block, members) for root, members in groups}
    internal = [n for _, members in groups for m in members[:-1] for n in m.output_arg_names]
    fused_ids = {id(m) for _, members in groups for m in members}
    block.ops = [replace[id(op)] if id(op) in replace else op
                 for op in ops if id(op) not in fused_ids or id(op) in replace]
    drop_unused_vars(new, internal)
    new._bump()
    return new

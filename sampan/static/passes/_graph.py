"""Helpers shared by the passes: producers/consumers of variables, protected names, fresh
names, renaming uses. Imports `static.program` only."""
from __future__ import annotations

from ...utils import unique_name


def is_opaque(op) -> bool:
    """Ops passes must not touch: control flow (sub-block attrs) and ops whose OpDef has
    `side_effects` (py_func: a Python function that may do anything)."""
    from ...ops.opdef import REGISTRY
    return (any("block" in k for k in op.attrs)
            or getattr(REGISTRY.get(op.type), "side_effects", False))


def consumers(program) -> dict:
    """var name -> list of ops (any block) reading it."""
    out: dict = {}
    for block in program.blocks:
        for op in block.ops:
            for n in op.input_arg_names:
                out.setdefault(n, []).append(op)
    return out


def producers(block) -> dict:
    """var name -> the op of `block` defining it (last writer for persistables)."""
    out = {}
    for op in block.ops:
        for n in op.output_arg_names:
            out[n] = op
    return out


def protected(program, keep=()) -> set:
    """Names that must keep their value and name: `keep` (fetch targets) and every
    persistable, data or constant variable."""
    names = {getattr(k, "name", k) for k in keep}
    for v in program.list_vars():
        if v.persistable or v.is_data or v.name in program._consts:
            names.add(v.name)
    return names


def fresh_name(block, key: str) -> str:
    name = unique_name.generate(key)
    while block._find_var(name) is not None:
        name = unique_name.generate(key)
    return name


def add_const(program, arr, key: str = "const"):
    """A new constant Variable in the global block holding `arr`."""
    from ...framework import dtype as _dt
    block = program.global_block()
    name = fresh_name(block, key)
    block.create_var(name, arr.shape, _dt.from_numpy(arr.dtype), persistable=True,
                     stop_gradient=True)
    program._consts[name] = arr
    return name


def rename_uses(program, mapping: dict) -> None:
    """Replace reads of the names in `mapping` (old -> new) in every op of every block."""
    if not mapping:
        return
    for block in program.blocks:
        for op in block.ops:
            for slot, names in op.inputs.items():
                if names:
                    op.inputs[slot] = [mapping.get(n, n) for n in names]


def drop_unused_vars(program, names) -> None:
    """Remove the given non-persistable variables from the global block if no op mentions
    them any more."""
    block = program.global_block()
    used = {n for b in program.blocks for op in b.ops
            for n in op.input_arg_names + op.output_arg_names}
    for n in names:
        v = block.vars.get(n)
        if v is not None and n not in used and not v.persistable and not v.is_data:
            del block.vars[n]

"""verify(program): structural checks of a Program, run after every pass in tests.

Checks: every op type is registered; input slots are the OpDef's input names; every input
is defined before use (fed data, persistable, constant, or an earlier op's output); every
non-persistable variable has exactly one defining op; output specs equal `infer`.
Imports `ops` and `static.program`.
"""
from __future__ import annotations

from ..ops.opdef import REGISTRY, TensorSpec
from .program import Program


class VerifyError(ValueError):
    """A Program violates an IR invariant."""


def verify(program: Program) -> None:
    for block in program.blocks:
        _verify_block(program, block)


def _available(program, block) -> set:
    names = set()
    b = block
    while b is not None:
        for v in b.vars.values():
            if v.is_data or v.persistable or v.name in program._consts:
                names.add(v.name)
        b = program.blocks[b.parent_idx] if b.parent_idx >= 0 else None
    if block.parent_idx >= 0:  # a sub-block sees everything its parent defined
        parent = program.blocks[block.parent_idx]
        names.update(n for op in parent.ops for n in op.output_arg_names)
        # and its own variables no op of it writes: inputs bound by the control-flow op
        written = {n for op in block.ops for n in op.output_arg_names}
        names.update(n for n in block.vars if n not in written)
    return names


def _verify_block(program, block) -> None:
    defined = _available(program, block)
    writers: dict = {}
    for k, op in enumerate(block.ops):
        where = f"block {block.idx} op #{k} ({op.type})"
        opdef = REGISTRY.get(op.type)
        if opdef is None:
            raise VerifyError(f"{where}: no operator named {op.type!r} is registered")
        if set(op.inputs) != set(opdef.input_names):
            raise VerifyError(f"{where}: input slots {sorted(op.inputs)} do not match the "
                              f"OpDef's {list(opdef.input_names)}")
        specs = []
        for slot, variadic, optional in zip(opdef.input_names, opdef.variadic,
                                            opdef.optional):
            names = op.inputs[slot]
            if not variadic and len(names) > 1:
                raise VerifyError(f"{where}: slot {slot!r} takes one variable, got {names}")
            for n in names:
                if n not in defined:
                    raise VerifyError(f"{where}: input {n!r} (slot {slot!r}) is used before "
                                      f"it is defined")
            vs = [block.var(n) for n in names]
            specs.append([TensorSpec(v._shape, v._dtype) for v in vs] if variadic else
                         TensorSpec(vs[0]._shape, vs[0]._dtype) if vs else None)
        inferred = opdef.infer(*specs, **op.attrs)
        inferred = tuple(inferred) if opdef.multi_out else (inferred,)
        outs = op.output_arg_names
        if len(inferred) != len(outs):
            raise VerifyError(f"{where}: {len(outs)} outputs, infer gives {len(inferred)}")
        for n, spec in zip(outs, inferred):
            var = block.var(n)
            if spec is not None and (tuple(var._shape) != spec.shape or
                                     var._dtype is not spec.dtype):
                raise VerifyError(f"{where}: output {n!r} is {var.dtype.name}{list(var.shape)} but "
                                  f"infer gives {spec.dtype.name}{list(spec.shape)}")
            if not var.persistable:
                if n in writers:
                    raise VerifyError(f"{where}: {n!r} is already defined by op "
                                      f"#{writers[n]}; non-persistable variables have "
                                      f"exactly one defining op")
                writers[n] = k
            defined.add(n)


Program.verify = verify

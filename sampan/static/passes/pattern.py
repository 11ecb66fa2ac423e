"""Fusion by pattern: a pattern function and a replacement function, both written in sampan
ops, are traced into tiny Programs; the pattern is matched structurally (op types, slots,
attrs, shared inputs) against a block, anchored on its last op, and each match is replaced
by the traced replacement spliced in with the matched variables.

A match is used only when the values it computes internally have no reader outside it and
are not protected (persistable, data, constant or `keep`), and `constraint(block, vars)`
(the bound Variables, in the pattern function's argument order) accepts it.
"""
from __future__ import annotations

from ...utils import unique_name
from ..builder import building, program_guard
from ..program import Operator, Program
from ._graph import consumers, drop_unused_vars, fresh_name, protected


def trace(fn, specs) -> tuple:
    """(program, placeholder names, output name) of `fn` applied to data Variables with
    the given (shape, dtype) specs."""
    from ..input import data
    prog = Program()
    with unique_name.guard(), program_guard(prog, Program()), building():
        args = [data(f"_p{i}", list(shape), dtype) for i, (shape, dtype) in enumerate(specs)]
        out = fn(*args)
    return prog, [a.name for a in args], out.name


class Pattern:
    """`pattern(*vars)` -> var, replaced by `replace(*vars)` where `constraint` holds."""

    def __init__(self, name: str, pattern, replace, specs, constraint=None) -> None:
        self.name = name
        self.replace = replace
        self.constraint = constraint
        self.program, self.inputs, self.output = trace(pattern, specs)
        block = self.program.global_block()
        self.prod = {n: op for op in block.ops for n in op.output_arg_names}
        self.anchor = self.prod[self.output]

    def match(self, block, prod, top):
        """Bound target names per placeholder and the matched ops, or None."""
        bind: dict = {}
        seen: dict = {}

        def match_var(pv, tv):
            if pv in self.inputs:
                return bind.setdefault(pv, tv) == tv
            pop, t = self.prod.get(pv), prod.get(tv)
            if pop is None or t is None:  # a constant of the pattern: not supported
                return False
            return (pop.output_arg_names.index(pv) == t.output_arg_names.index(tv)
                    and match_op(pop, t))

        def match_op(pop, t):
            if id(t) in seen:
                return seen[id(t)] is pop
            if pop.type != t.type or pop.attrs != t.attrs or set(pop.inputs) != set(t.inputs):
                return False
            seen[id(t)] = pop
            for slot, pnames in pop.inputs.items():
                tnames = t.inputs.get(slot) or []
                if len(pnames) != len(tnames):
                    return False
                if not all(match_var(p, q) for p, q in zip(pnames, tnames)):
                    return False
            return True

        if not match_op(self.anchor, top) or len(bind) != len(self.inputs):
            return None
        matched = [op for op in block.ops if id(op) in seen]
        return [bind[p] for p in self.inputs], matched

    def splice(self, program, block, names: list, out_name: str) -> list:
        """The replacement traced on the bound variables, as Operators of `block` whose
        result is written to `out_name`."""
        specs = [(block.var(n)._shape, block.var(n).dtype.name) for n in names]
        prog, phs, out = trace(self.replace, specs)
        src = prog.global_block()
        rename = dict(zip(phs, names))
        rename[out] = out_name
        for n, v in src.vars.items():
            if n in rename:
                continue
            new = fresh_name(block, "const" if n in prog._consts else "tmp")
            block.create_var(new, v._shape, v.dtype, persistable=v.persistable,
                             stop_gradient=True)
            if n in prog._consts:
                program._consts[new] = prog._consts[n]
            rename[n] = new
        return [Operator(block, op.type,
                         {s: [rename[n] for n in ns] for s, ns in op.inputs.items()},
                         {s: [rename[n] for n in ns] for s, ns in op.outputs.items()},
                         dict(op.attrs)) for op in src.ops]


def rewrite(program: Program, patterns: list, keep=()) -> Program:
    """A copy of `program` with every match of `patterns` (tried in order) replaced in its
    global block."""
    new = program.clone()
    block = new.global_block()
    prot = protected(new, keep)
    changed = True
    while changed:  # one replacement per sweep: the maps are rebuilt after each
        changed = False
        cons = consumers(new)
        prod = {n: op for op in block.ops for n in op.output_arg_names}
        for k in range(len(block.ops) - 1, -1, -1):
            top = block.ops[k]
            for pat in patterns:
                if top.type != pat.anchor.type:
                    continue
                found = pat.match(block, prod, top)
                if found is None:
                    continue
                names, matched = found
                ids = {id(op) for op in matched}
                internal = [n for op in matched if op is not top for n in op.output_arg_names]
                if any(n in prot or any(id(c) not in ids for c in cons.get(n, ()))
                       for n in internal):
                    continue
                if pat.constraint is not None and not pat.constraint(
                        block, [block.var(n) for n in names]):
                    continue
                out = top.output_arg_names[0]
                repl = pat.splice(new, block, names, out)
                at = block.ops.index(top)
                rest = [op for op in block.ops if id(op) not in ids]
                before = [op for op in block.ops[:at] if id(op) not in ids]
                block.ops = before + repl + rest[len(before):]
                drop_unused_vars(new, internal)
                changed = True
                break
            if changed:
                break
    new._bump()
    return new

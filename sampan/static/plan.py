"""Compiling a Block into a Plan: resolved kernels, integer slots for variables, the step
after which each intermediate is freed, in-place optimizer updates. The Executor
(static/executor.py) caches plans and runs them. No op-specific code here. Imports
`framework`, `ops` and `static.program`.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, NamedTuple

from ..ops.opdef import REGISTRY
from .program import Program

class Step(NamedTuple):
    """One op of a compiled block, over integer slots of the run's value list."""
    compute: Callable     # the OpDef's kernel
    args: tuple           # per input slot: a value slot, a tuple of them (variadic) or None
    attrs: dict
    outs: tuple           # value slots of the outputs
    multi: bool           # the kernel returns a tuple of outputs
    simple: bool          # every arg is one value slot
    frees: tuple          # value slots released after the step
    extra: bool           # gets run-time attrs (a random seed, `_run_block`)


class Update(NamedTuple):
    """An optimizer op run in place (see `_in_place_update`)."""
    fn: Callable
    updated: tuple        # input positions the op updates
    mask: tuple           # per position: updated in place (else on a copy)


class FeedSpec(NamedTuple):
    """A fed variable: its value slot and what `check_feed_array` reads of it. Plans keep
    no Variable, so a cached plan never keeps its Program alive."""
    slot: int
    name: str
    shape: list
    dtype: Any

    @property
    def _shape(self) -> list:
        return self.shape


@dataclasses.dataclass
class Plan:
    """A compiled block: steps over integer slots, and what a run reads and writes."""
    nslots: int
    steps: list           # [Step]
    feeds: dict           # name -> FeedSpec
    fetch: list           # value slots fetched, in order
    reads: list           # (slot, name) of constants / bound / scope values read at start
    writes: list          # (slot, name) of persistable values stored back at the end
    random: list          # steps that get a seed
    runners: list         # steps that run sub-blocks
    block_idx: int
    updates: dict         # step -> Update
    targets: frozenset    # value slots updated in place
    ignored: tuple = ()   # feed names that are no variable of the block (warned once)


class _Compiler:
    """The state of compiling one block: value slots, what is defined, last uses."""

    def __init__(self, program: Program, block) -> None:
        self.program, self.block = program, block
        self.slots: dict = {}
        self.defined: set = set()
        self.owned: set = set()  # names holding a scope/bound array an update may overwrite
        self.reads: list = []
        self.last_use: dict = {}
        self.written: list = []

    def slot(self, name: str) -> int:
        idx = self.slots.get(name)
        if idx is None:
            idx = self.slots[name] = len(self.slots)
        return idx

    def feed(self, name: str) -> FeedSpec:
        var = self.block.vars[name]
        self.defined.add(name)
        return FeedSpec(self.slot(name), name, list(var._shape), var.dtype)

    def read(self, name: str, op) -> None:
        """`name` is read before any op of the plan defines it."""
        _need_value(self.program, self.block, name, op)
        self.reads.append((self.slot(name), name))
        self.defined.add(name)
        if op is not None and name not in self.program._consts:
            self.owned.add(name)

    def op(self, k: int, op) -> tuple:
        """(Step without frees, Update or None) of op #k."""
        opdef = REGISTRY.get(op.type)
        if opdef is None:
            raise ValueError(f"Executor: no operator named {op.type!r} is registered")
        args = []
        for slot_name, variadic in zip(opdef.input_names, opdef.variadic):
            names = op.inputs.get(slot_name) or []
            for n in names:
                if n not in self.defined:
                    self.read(n, op)
                self.last_use[n] = k
            if variadic:
                args.append(tuple(self.slots[n] for n in names))
            else:
                args.append(self.slots[names[0]] if names else None)
        outs = tuple(self.slot(n) for n in op.output_arg_names)
        update = _in_place_update(opdef, op, self.owned)
        for n in op.output_arg_names:
            self.defined.add(n)
            if update is None:
                self.owned.discard(n)
            self.last_use.setdefault(n, k)
            var = self.block._find_var(n)
            if var is not None and var.persistable:
                self.written.append((self.slots[n], n))
        simple = all(type(a) is int for a in args)
        step = Step(opdef.compute, tuple(args), dict(op.attrs), outs, opdef.multi_out,
                    simple, (), bool(opdef.random or opdef.runs_blocks))
        return step, update

    def fetch(self, name: str) -> int:
        if name not in self.defined:
            if self.block._find_var(name) is None:
                raise ValueError(f"Executor.run: cannot fetch {name!r}: the program has no "
                                 f"variable of that name")
            self.read(name, None)
        self.last_use[name] = len(self.block.ops)
        return self.slots[name]

    def frees(self) -> dict:
        """step -> value slots whose last use it is (fetched and written values stay)."""
        end = len(self.block.ops)
        for _, n in self.written:
            self.last_use[n] = end
        out: dict = {}
        for n, k in self.last_use.items():
            if k < end:
                out.setdefault(k, []).append(self.slots[n])
        return out


def compile_block(program: Program, feed_names: tuple, fetch_names: tuple,
                   block_idx: int = 0) -> Plan:
    """The Plan of block `block_idx` of `program` for these feed and fetch names (feed
    names that are no variable of the block are recorded in `ignored`)."""
    block = program.block(block_idx)
    c = _Compiler(program, block)
    ignored = tuple(n for n in feed_names if n not in block.vars)
    feeds = {n: c.feed(n) for n in feed_names if n in block.vars}
    compiled = [c.op(k, op) for k, op in enumerate(block.ops)]
    fetch = [c.fetch(n) for n in fetch_names]
    frees = c.frees()
    steps = [s._replace(frees=tuple(frees.get(k, ()))) for k, (s, _) in enumerate(compiled)]
    _check_inplace(block, steps, c.last_use, feeds, c.reads)
    updates = {k: u for k, (_, u) in enumerate(compiled) if u is not None}
    runners = [k for k, op in enumerate(block.ops) if REGISTRY[op.type].runs_blocks]
    return Plan(
        nslots=len(c.slots), steps=steps, feeds=feeds, fetch=fetch, reads=c.reads,
        writes=_dedup(c.written), random=[k for k, s in enumerate(steps)
                                          if s.extra and k not in runners],
        runners=runners, block_idx=block_idx, updates=updates,
        targets=frozenset(i for k, u in updates.items()
                          for i, m in zip(steps[k].outs, u.mask) if m),
        ignored=ignored)


def _in_place_update(opdef, op, owned: set):
    """For an optimizer update op (an OpDef with `update` and `updated`, see ops/optim.py)
    some of whose outputs `<x>_out` are written back to their own input `<x>` (static
    minimize does this for the parameter and its persistable state) while that input holds
    an array of the scope or of a bound tensor (not fed, not a constant, not computed by an
    earlier op of this plan except another such update): (update, updated input positions,
    per position whether it is updated in place). The Executor then runs `update` on those
    arrays in place, and on copies of the others, instead of `compute`, which copies all."""
    updated = getattr(opdef, "updated", None)
    if not updated or getattr(opdef, "update", None) is None or opdef.has_variadic:
        return None
    mask = []
    for out_slot, i in zip(opdef.outputs, updated):
        names = op.inputs.get(opdef.input_names[i]) or []
        mask.append(len(names) == 1 and op.outputs.get(out_slot) == names
                    and names[0] in owned)
    names = [op.inputs[opdef.input_names[i]][0] for i, m in zip(updated, mask) if m]
    if not names or len(set(names)) != len(names):
        return None
    return Update(opdef.update, tuple(updated), tuple(mask))


def _check_inplace(block, steps, last_use, feeds, reads) -> None:
    """An op's `inplace` attr (set by the inplace pass: index of a flattened input whose
    buffer may hold the result) is kept only where that input is an intermediate of this
    plan that dies at the op (not fed, read, fetched, persistable); else it becomes -1."""
    read = None
    for k, op in enumerate(block.ops):
        idx = steps[k].attrs.get("inplace", -1)
        if type(idx) is not int or idx < 0:
            continue
        if read is None:
            read = {n for _, n in reads}
        opdef = REGISTRY[op.type]
        flat = [n for s in opdef.input_names for n in (op.inputs.get(s) or [])]
        n = flat[idx] if idx < len(flat) else None
        if n is None or last_use.get(n) != k or n in feeds or n in read or flat.count(n) > 1:
            steps[k].attrs["inplace"] = -1


def _dedup(pairs: list) -> list:
    seen = {}
    for idx, name in pairs:
        seen[name] = idx
    return [(idx, name) for name, idx in seen.items()]


def _data_names(program: Program) -> list:
    return [v.name for v in program.global_block().vars.values() if v.is_data]


def _need_value(program, block, name: str, op) -> None:
    """`name` is read before any op defines it: it must be a constant, bound or
    persistable (scope) variable; a data variable must be fed."""
    var = block._find_var(name)
    where = f" (read by op '{op.type}')" if op is not None else ""
    if var is None:
        raise ValueError(f"Executor: variable {name!r}{where} is not defined in the program")
    if name in program._consts or name in program._bound or var.persistable:
        return
    if var.is_data and "@LOD" in name:  # a LoD companion (static/lod.py)
        base = name.split("@LOD")[0]
        raise ValueError(f"Executor.run: {base!r}{where} does not contain LoD information: it "
                         f"is declared with lod_level > 0, so feed it as a LoDTensor "
                         f"(paddle.base.create_lod_tensor(data, recursive_seq_lens, place)) "
                         f"rather than a plain array")
    if var.is_data:
        raise ValueError(f"Executor.run: data variable {name!r}{where} must be fed; "
                         f"pass feed={{{name!r}: array}}")
    raise ValueError(f"Executor: variable {name!r}{where} is neither fed, persistable nor "
                     f"computed by an earlier op")

"""Executor, Scope, global_scope, scope_guard: run a Program's global block.

A Block is compiled once into a plan (resolved kernels, integer slots for variables, the
step after which each intermediate is freed) cached per (program, version, feed, fetch);
a run only executes the plan. No op-specific code here. Imports `framework`, `ops` and
`static.program`.

Sub-blocks (control flow): an OpDef whose class sets `runs_blocks = True` receives, at run
time only, the extra keyword `_run_block` (never stored in the Program): a callable
`_run_block(block_idx, feed: {var name: array}, fetch: [var names]) -> [arrays]` that runs
block `block_idx` of the same Program (compiled once into a cached plan like the global
block) in the same scope, starting from `feed` only (sub-blocks are closed: every outer value
they read is an explicit op input). See sampan/ops/control_flow.py.
"""
from __future__ import annotations

import contextlib
import zlib

import numpy as np

from ..backend import numpy_ as _xp
from ..framework.random import next_seed
from ..framework.tensor import Tensor, to_array, wrap
from ..ops.opdef import REGISTRY
from .program import Program, default_main_program
from .variable import check_feed_array

_ND = np.ndarray
_asarray = np.asarray


class Scope:
    """Holds the values of persistable variables (parameters, optimizer state) by name."""

    def __init__(self) -> None:
        self._vars: dict = {}

    def get(self, name: str, default=None):
        return self._vars.get(name, default)

    def set(self, name: str, value) -> None:
        """Store a copy of `value` (Paddle copies into the scope's tensor; optimizer ops
        later update the stored array in place)."""
        self._vars[name] = np.array(value._data if isinstance(value, Tensor) else value)

    def find_var(self, name: str):
        return _ScopeVar(self, name) if name in self._vars else None

    def var(self, name: str):
        return _ScopeVar(self, name)

    def local_var_names(self) -> list:
        return list(self._vars)

    def __contains__(self, name: str) -> bool:
        return name in self._vars

    def drop_kids(self) -> None:
        pass


class _ScopeVar:
    """Paddle's scope.find_var(name): get_tensor() and set(value, place)."""

    def __init__(self, scope: Scope, name: str) -> None:
        self._scope = scope
        self._name = name

    def get_tensor(self) -> Tensor:
        arr = self._scope._vars.get(self._name)
        if arr is None:
            raise ValueError(f"Scope: variable {self._name!r} holds no value yet")
        return wrap(arr)

    def set(self, value, place=None) -> None:
        self._scope.set(self._name, value)


_SCOPES = [Scope()]


def global_scope() -> Scope:
    """The scope Executor.run uses when none is given."""
    return _SCOPES[-1]


@contextlib.contextmanager
def scope_guard(scope: Scope):
    """Make `scope` the global scope inside the block."""
    if not isinstance(scope, Scope):
        raise TypeError(f"scope_guard: scope must be a Scope, got {type(scope).__name__}")
    _SCOPES.append(scope)
    try:
        yield
    finally:
        _SCOPES.pop()


class _Plan:
    """A compiled block: steps over integer slots."""

    __slots__ = ("nslots", "steps", "feeds", "fetch", "reads", "writes", "random", "runners",
                 "block_idx", "updates", "targets")


def _compile(program: Program, feed_names: tuple, fetch_names: tuple,
             block_idx: int = 0) -> _Plan:
    block = program.block(block_idx)
    slots: dict = {}

    def slot(name):
        idx = slots.get(name)
        if idx is None:
            idx = slots[name] = len(slots)
        return idx

    defined = set()
    feeds = {}
    owned = set()   # names whose current value is a scope/bound array an update may overwrite
    for name in feed_names:
        var = block.vars.get(name)
        if var is None:
            raise ValueError(f"Executor.run: feed name {name!r} is not a variable of the "
                             f"program (data variables: {_data_names(program)})")
        feeds[name] = (slot(name), var)
        defined.add(name)
    reads = []      # (slot, name) of values taken from the program/scope at run start
    steps = []
    last_use: dict = {}
    written = []
    for k, op in enumerate(block.ops):
        opdef = REGISTRY.get(op.type)
        if opdef is None:
            raise ValueError(f"Executor: no operator named {op.type!r} is registered")
        args = []
        for slot_name, variadic in zip(opdef.input_names, opdef.variadic):
            names = op.inputs.get(slot_name) or []
            for n in names:
                if n not in defined:
                    _need_value(program, block, n, op)
                    reads.append((slot(n), n))
                    defined.add(n)
                    if n not in program._consts:
                        owned.add(n)
                last_use[n] = k
            if variadic:
                args.append(tuple(slots[n] for n in names))
            else:
                args.append(slots[names[0]] if names else None)
        outs = tuple(slot(n) for n in op.output_arg_names)
        update = _in_place_update(opdef, op, owned)
        for n in op.output_arg_names:
            defined.add(n)
            if update is None:
                owned.discard(n)
            last_use.setdefault(n, k)
            var = block._find_var(n)
            if var is not None and var.persistable:
                written.append((slots[n], n))
        simple = all(type(a) is int for a in args)
        runs = opdef.runs_blocks
        steps.append([opdef.compute, tuple(args), dict(op.attrs), outs, opdef.multi_out,
                      simple, (), opdef.random or runs, runs, update])
    fetch = []
    for name in fetch_names:
        if name not in defined:
            if block._find_var(name) is None:
                raise ValueError(f"Executor.run: cannot fetch {name!r}: the program has no "
                                 f"variable of that name")
            _need_value(program, block, name, None)
            reads.append((slot(name), name))
            defined.add(name)
        fetch.append(slots[name])
        last_use[name] = len(block.ops)
    for _, n in written:
        last_use[n] = len(block.ops)
    frees: dict = {}
    for n, k in last_use.items():
        if k < len(block.ops):
            frees.setdefault(k, []).append(slots[n])
    for k, step in enumerate(steps):
        step[6] = tuple(frees.get(k, ()))
    _check_inplace(block, steps, last_use, feeds, reads)
    plan = _Plan()
    plan.nslots = len(slots)
    plan.steps = [tuple(s) for s in steps]
    plan.feeds = feeds
    plan.fetch = fetch
    plan.reads = reads
    plan.writes = _dedup(written)
    plan.random = [k for k, s in enumerate(steps) if s[7] and not s[8]]
    plan.runners = [k for k, s in enumerate(steps) if s[8]]
    plan.block_idx = block_idx
    plan.updates = {k: s[9] for k, s in enumerate(steps) if s[9] is not None}
    plan.targets = frozenset(i for k, u in plan.updates.items()
                             for i, m in zip(plan.steps[k][3], u[2]) if m)
    plan.steps = [s[:8] for s in plan.steps]
    return plan


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
    return opdef.update, tuple(updated), tuple(mask)


def _check_inplace(block, steps, last_use, feeds, reads) -> None:
    """An op's `inplace` attr (set by the inplace pass: index of a flattened input whose
    buffer may hold the result) is kept only where that input is an intermediate of this
    plan that dies at the op (not fed, read, fetched, persistable); else it becomes -1."""
    read = None
    for k, op in enumerate(block.ops):
        idx = steps[k][2].get("inplace", -1)
        if type(idx) is not int or idx < 0:
            continue
        if read is None:
            read = {n for _, n in reads}
        opdef = REGISTRY[op.type]
        flat = [n for s in opdef.input_names for n in (op.inputs.get(s) or [])]
        n = flat[idx] if idx < len(flat) else None
        if n is None or last_use.get(n) != k or n in feeds or n in read or flat.count(n) > 1:
            steps[k][2]["inplace"] = -1


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
    if var.is_data:
        raise ValueError(f"Executor.run: data variable {name!r}{where} must be fed; "
                         f"pass feed={{{name!r}: array}}")
    raise ValueError(f"Executor: variable {name!r}{where} is neither fed, persistable nor "
                     f"computed by an earlier op")


class Executor:
    """Runs Programs (`paddle.static.Executor`)."""

    def __init__(self, place=None) -> None:
        self.place = place
        self._cache: dict = {}

    def close(self) -> None:
        """Release the compiled plans (the Executor stays usable)."""
        self._cache.clear()

    def flush(self) -> None:
        """Paddle flushes its distributed trainer's buffers here; nothing is buffered in
        sampan (a no-op, kept for API compatibility)."""

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed",
            fetch_var_name="fetch", scope=None, return_numpy=True, use_program_cache=False,
            return_merged=True, use_prune=False):
        program = default_main_program() if program is None else program
        if hasattr(program, "_compiled_for"):  # CompiledProgram: its BuildStrategy's passes
            program = program._compiled_for(fetch_list)
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run: program must be a Program, got "
                            f"{type(program).__name__}")
        scope = global_scope() if scope is None else scope
        feed = {} if feed is None else feed
        if not isinstance(feed, dict):
            raise TypeError(f"Executor.run: feed must be a dict of name -> array, got "
                            f"{type(feed).__name__}")
        single = fetch_list is not None and not isinstance(fetch_list, (list, tuple))
        fetch = [] if fetch_list is None else [fetch_list] if single else list(fetch_list)
        fetch_names = tuple(_fetch_name(f) for f in fetch)
        feed_names = tuple(feed)
        key = (id(program), program._version, feed_names, fetch_names)
        plan = self._cache.get(key)
        if plan is None:
            plan = _compile(program, feed_names, fetch_names)
            self._cache[key] = plan
        outs = _execute(program, plan, feed, scope, self._cache)
        if return_numpy:
            return outs
        return [wrap(o) for o in outs]


def _fetch_name(f) -> str:
    if isinstance(f, str):
        return f
    if getattr(f, "_is_variable", False):
        return f.name
    raise TypeError(f"Executor.run: fetch_list items must be Variables or names, got "
                    f"{type(f).__name__}")


def _execute(program: Program, plan: _Plan, feed: dict, scope: Scope,
             cache: dict | None = None) -> list:
    env = [None] * plan.nslots
    top = plan.block_idx == 0
    for name, value in feed.items():
        idx, var = plan.feeds[name]
        arr = value._data if isinstance(value, Tensor) else value
        if arr.__class__ is not _ND:
            arr = to_array(arr, var.dtype)
        if top:
            check_feed_array(var, arr)
        env[idx] = arr
    consts, bound = program._consts, program._bound
    for idx, name in plan.reads:
        arr = consts.get(name)
        if arr is None:
            t = bound.get(name)
            arr = t._data if t is not None else scope._vars.get(name)
            if arr is None:
                raise RuntimeError(f"Executor.run: persistable variable {name!r} has no value "
                                   f"in the scope; run the startup program first "
                                   f"(exe.run(paddle.static.default_startup_program()))")
        env[idx] = arr
    extra = _seeds(program, plan)  # step -> attrs added at run time (seed, _run_block)
    if plan.runners:
        runner = {"_run_block": block_runner(program, scope, cache)}
        for k in plan.runners:
            extra[k] = runner
    xp = _xp
    updates = plan.updates
    for k, (compute, args, attrs, outs, multi, simple, frees, rnd) in enumerate(plan.steps):
        if rnd:
            attrs = {**attrs, **extra[k]}
        if simple:
            vals = [env[i] for i in args]
        else:
            vals = [env[a] if type(a) is int else None if a is None else [env[i] for i in a]
                    for a in args]
        if updates and k in updates and _writable(vals, updates[k]):
            update, updated, mask = updates[k]
            for j, m in zip(updated, mask):
                if not m:
                    vals[j] = vals[j].copy()
            try:
                update(xp, *vals, **attrs)
            except Exception as err:
                raise type(err)(f"Executor: op #{k} ({program.block(plan.block_idx).ops[k].type}) "
                                f"failed: {err}") from err
            for i, j in zip(outs, updated):
                env[i] = vals[j]
            for i in frees:
                env[i] = None
            continue
        try:
            out = compute(xp, *vals, **attrs)
        except Exception as err:
            where = f"block {plan.block_idx} " if plan.block_idx else ""
            raise type(err)(f"Executor: {where}op #{k} ({program.block(plan.block_idx).ops[k].type}) "
                            f"failed: {err}") from err
        if multi:
            for i, o in zip(outs, out):
                env[i] = o if o.__class__ is _ND else _asarray(o)
        else:
            env[outs[0]] = out if out.__class__ is _ND else _asarray(out)
        for i in frees:
            env[i] = None
    for idx, name in plan.writes:
        t = bound.get(name)
        if t is not None:
            arr = env[idx]
            t._data = arr if arr.dtype == t._data.dtype else arr.astype(t._data.dtype)
            t._version += 1
        else:
            scope._vars[name] = env[idx]
    if plan.targets:  # fetched values must not change when a later run updates in place
        return [_unshared(env[i], i, env, plan.targets) for i in plan.fetch]
    return [env[i] for i in plan.fetch]


def _writable(vals: list, update: tuple) -> bool:
    """The arrays an in-place update would overwrite are writeable, own their memory
    (no view of another array: distinct owners cannot overlap) and are all distinct."""
    seen = set()
    for j, m in zip(update[1], update[2]):
        if not m:
            continue
        a = vals[j]
        if a.__class__ is not _ND or a.base is not None or not a.flags.writeable \
                or id(a) in seen:
            return False
        seen.add(id(a))
    return True


def _unshared(arr, idx: int, env: list, targets) -> np.ndarray:
    """A fetched array that is (or may view) an array updated in place: a copy."""
    if idx in targets:
        return arr.copy()
    if arr.__class__ is _ND:
        for i in targets:
            t = env[i]
            if t is not None and np.may_share_memory(arr, t):
                return arr.copy()
    return arr


def _seeds(program: Program, plan: _Plan) -> dict:
    if not plan.random:
        return {}
    if program.random_seed:
        b = f"{plan.block_idx}:" if plan.block_idx else ""
        return {k: {"seed": zlib.crc32(f"{program.random_seed}:{b}{k}".encode()) + 1}
                for k in plan.random}
    return {k: {"seed": next_seed()} for k in plan.random}


def block_runner(program: Program, scope: Scope, cache: dict | None = None):
    """The `_run_block(block_idx, feed, fetch)` callable given to ops with `runs_blocks`
    (plans cached in `cache`, per program version, block, feed and fetch names)."""
    cache = {} if cache is None else cache

    def run_block(block_idx: int, feed: dict, fetch) -> list:
        fetch = tuple(fetch)
        key = (id(program), program._version, block_idx, tuple(feed), fetch)
        plan = cache.get(key)
        if plan is None:
            plan = cache[key] = _compile(program, tuple(feed), fetch, block_idx)
        return _execute(program, plan, feed, scope, cache)
    return run_block

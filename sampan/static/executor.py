"""Executor, Scope, global_scope, scope_guard: run a Program's global block.

A Block is compiled once into a Plan (static/plan.py: resolved kernels, integer slots for
variables, the step after which each intermediate is freed) cached per program (held
weakly), version, feed and fetch; a run only executes the plan. The run state a Program
does not hold (values set before each run, such as an optimizer's learning rate) is
registered here with `set_run_value`. No op-specific code here. Imports `framework`, `ops`
and `static.program`/`static.plan`.

Sub-blocks (control flow): an OpDef whose class sets `runs_blocks = True` receives, at run
time only, the extra keyword `_run_block` (never stored in the Program): a callable
`_run_block(block_idx, feed: {var name: array}, fetch: [var names]) -> [arrays]` that runs
block `block_idx` of the same Program (compiled once into a cached plan like the global
block) in the same scope, starting from `feed` only (sub-blocks are closed: every outer value
they read is an explicit op input). See sampan/ops/control_flow.py.
"""
from __future__ import annotations

import linecache

import contextlib
import warnings
import weakref
from typing import Callable

import numpy as np

from ..backend import numpy_ as _xp
from ..framework import place as _place
from ..framework.random import next_seed
from ..framework.tensor import Tensor, to_array, wrap, is_variable
from ..ops.devices import CPU_ONLY as _CPU_ONLY
from .plan import Plan, compile_block as _compile
from .program import Program, default_main_program
from .scope_tensor import ScopeDenseTensor
from .variable import check_feed_array
from . import lod as _lod

_ND = np.ndarray
_asarray = np.asarray


class Scope:
    """Holds the values of persistable variables (parameters, optimizer state) by name."""

    def __init__(self) -> None:
        self._vars: dict = {}

    def get(self, name: str, default=None):
        """The value of `name` as a host array (a copy when it lives on a device)."""
        arr = self._vars.get(name, default)
        if arr is not None and arr.__class__ is not _ND and _place.is_device_array(arr):
            return _place.backend_of(arr).to_host(arr)
        return arr

    def set(self, name: str, value) -> None:
        """Store a copy of `value` (Paddle copies into the scope's tensor; optimizer ops
        later update the stored array in place). Device arrays stay on their device."""
        arr = value._data if isinstance(value, Tensor) else value
        self._vars[name] = arr.copy() if _place.is_device_array(arr) else np.array(arr)

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

    def get_tensor(self) -> ScopeDenseTensor:
        """The variable's DenseTensor (empty, shape [0], until a value is set)."""
        return ScopeDenseTensor(self._scope, self._name)

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


# --- run state ---------------------------------------------------------------------------------

# Program -> {persistable variable name: provider() -> array or None}: values set in the scope
# at the start of every Executor.run of that Program (held weakly: the Program stays pure
# graph, and a dropped Program is collected).
_RUN_VALUES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def set_run_value(program: Program, name: str, provider: Callable) -> None:
    """Have every `Executor.run(program)` first store `provider()` (unless None) in the
    scope as the persistable variable `name`. The optimizer registers its learning rate
    this way, so an LRScheduler drives static training; the provider must not reference
    `program` (it would then never be collected)."""
    _RUN_VALUES.setdefault(program, {})[name] = provider


def _set_run_values(program: Program, scope: Scope) -> None:
    providers = _RUN_VALUES.get(program)
    if providers:
        for name, provider in providers.items():
            value = provider()
            if value is not None:
                scope._vars[name] = value


class Executor:
    """Runs Programs (`paddle.static.Executor`).

    Compiled plans are cached per Program, held weakly: a Program that is dropped is
    collected without `close()`.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main):
        ...     x = paddle.static.data("x", [2], "float32")
        ...     y, z = x * 2.0, x + 1.0
        >>> exe = paddle.static.Executor()
        >>> exe.run(main, feed={"x": np.array([1., 2.], "float32")}, fetch_list=[[y, z]])
        [array([2., 4.], dtype=float32), array([2., 3.], dtype=float32)]
        >>> paddle.disable_static()
    """

    def __init__(self, place=None) -> None:
        try:
            _place.to_place(place)
        except ValueError:
            raise ValueError(f"Executor: place must be a Place (CPUPlace(), CUDAPlace(n)), "
                             f"'cpu', 'gpu' or 'gpu:N', or None (the current device), got "
                             f"{place!r}") from None
        self.place = place
        self._cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def close(self) -> None:
        """Release the compiled plans (the Executor stays usable)."""
        self._cache.clear()

    def flush(self) -> None:
        """Paddle flushes its distributed trainer's buffers here; nothing is buffered in
        sampan (a no-op, kept for API compatibility)."""

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed",
            fetch_var_name="fetch", scope=None, return_numpy=True, use_program_cache=False,
            return_merged=True, use_prune=False):
        """Run `program` (default: the default main program) and return the values of
        `fetch_list`: Variables or names, where an item may itself be a list/tuple of them
        (its values are returned in place, flattened, as in Paddle). Feed names that are no
        variable of the program are ignored with a warning, as in Paddle."""
        program = default_main_program() if program is None else program
        source = program
        fetch = _flat_fetch(fetch_list)
        if hasattr(program, "_compiled_for"):  # CompiledProgram: its BuildStrategy's passes
            source = program._program
            program = program._compiled_for(fetch)
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run: program must be a Program, got "
                            f"{type(program).__name__}")
        scope = global_scope() if scope is None else scope
        feed = {} if feed is None else feed
        if not isinstance(feed, dict):
            raise TypeError(f"Executor.run: feed must be a dict of name -> array, got "
                            f"{type(feed).__name__}")
        feed = _lod.split_feed(program, feed)  # a LoDTensor feeds data + offsets
        plans = self._cache.get(program)
        if plans is None:
            plans = self._cache[program] = {}
        fetch, values = _eager_fetches(program, fetch)
        lods = _lod.fetch_lods(program, fetch, return_numpy)
        if any(lods):  # a LoD variable's offsets are fetched after the fetch list
            fetch = fetch + [n for names in lods for n in names]
        plan = _top_plan(program, plans, tuple(feed), tuple(fetch))
        _set_run_values(source, scope)
        dev = _Device.of(self.place)
        outs = _execute(program, plan, feed, scope, plans, dev)
        if any(lods):
            outs = _lod.attach_lods(outs, lods)
        if values:  # eager tensors in fetch_list are fetched by value, in their place
            run = iter(outs)
            outs = [next(run) if v is None else v for v in values]
        if return_numpy:
            return [_fetched(o) for o in (outs if dev is None else map(_host, outs))]
        return [o if isinstance(o, _lod.LoDTensor) else wrap(o) for o in outs]

    def train_from_dataset(self, program=None, dataset=None, scope=None, thread=0,
                           debug=False, fetch_list=None, fetch_info=None, print_period=100,
                           fetch_handler=None):
        """Run `program` once per batch of a paddle.distributed InMemoryDataset/QueueDataset
        (one thread; `thread` and `debug` are accepted for compatibility), printing the
        fetch_list values every print_period batches (see dataset_run.py)."""
        from .dataset_run import run_from_dataset
        run_from_dataset(self, "train_from_dataset", program, dataset, scope, fetch_list,
                         fetch_info, print_period, fetch_handler)

    def infer_from_dataset(self, program=None, dataset=None, scope=None, thread=0,
                           debug=False, fetch_list=None, fetch_info=None, print_period=100,
                           fetch_handler=None):
        """Like train_from_dataset, for a program without optimizer ops."""
        from .dataset_run import run_from_dataset
        run_from_dataset(self, "infer_from_dataset", program, dataset, scope, fetch_list,
                         fetch_info, print_period, fetch_handler)

    def split_program_by_device(self, program):
        """The heter section of `program` (see static.heter.split_program_by_device):
        [start, end, send_list, recv_list, pruned program], or None."""
        from .heter import split_program_by_device
        return split_program_by_device(program)

    def start_heter_trainer(self, program=None, scope=None, debug=False, fetch_list=None,
                            fetch_info=None, print_period=100, fetch_handler=None):
        """On a heter worker: serve the heter section of `program` to the trainers until
        all of them stopped (see static.heter.start_heter_trainer)."""
        from .heter import start_heter_trainer
        return start_heter_trainer(self, program, scope, debug, fetch_list, fetch_info,
                                   print_period, fetch_handler)


_LONGLONG = np.dtype(np.longlong)


def _fetched(value):
    """A fetched int64 array as Paddle's Executor hands it: NumPy's `longlong` flavour of
    int64 (a view, same values), which is why Paddle prints `array([1], dtype=int64)`."""
    dt = getattr(value, "dtype", None)
    if type(value) is np.ndarray and dt.char == "l" and dt.itemsize == 8:  # C long = int64
        return value.view(_LONGLONG)
    return value


def _top_plan(program: Program, plans: dict, feed_names: tuple, fetch_names: tuple) -> Plan:
    """The cached plan of the global block (compiled on a miss; plans of an older program
    version are dropped then)."""
    key = (program._version, 0, feed_names, fetch_names)
    plan = plans.get(key)
    if plan is None:
        for old in [k for k in plans if k[0] != program._version]:
            del plans[old]
        plan = plans[key] = _compile(program, feed_names, fetch_names)
        for name in plan.ignored:
            warnings.warn(f"Executor.run: the variable {name!r} is not found in program. It "
                          f"is not declared or is pruned; its fed value is ignored.",
                          stacklevel=3)
    return plan


def _flat_fetch(fetch_list) -> list:
    """fetch_list as variable names: one Variable/name, or a list/tuple whose items are
    Variables/names or lists/tuples of them (flattened one level, as Paddle does)."""
    if fetch_list is None:
        return []
    if not isinstance(fetch_list, (list, tuple)):
        return [_fetch_name(fetch_list, "fetch_list")]
    names = []
    for i, item in enumerate(fetch_list):
        if isinstance(item, (list, tuple)):
            names.extend(_fetch_name(f, f"fetch_list[{i}][{j}]") for j, f in enumerate(item))
        else:
            names.append(_fetch_name(item, f"fetch_list[{i}]"))
    return names


def _eager_fetches(program: Program, fetch: list) -> tuple:
    """(variable names to run, per item: None or the value of an eager Tensor that is not
    a variable of the program); ([names], []) when every item is a name."""
    if all(isinstance(f, str) for f in fetch):
        return fetch, []
    names, values = [], []
    for f in fetch:
        known = None if isinstance(f, str) else program._eager_ids.get(id(f))
        if isinstance(f, str) or known is not None:
            names.append(f if isinstance(f, str) else known[1])
            values.append(None)
        else:
            values.append(_host(f._data).copy())
    return names, values


def _fetch_name(f, where: str):
    if isinstance(f, str):
        return f
    if is_variable(f):
        return f.name
    if isinstance(f, Tensor):   # an eager tensor: fetched by value (Paddle accepts it)
        return f
    raise TypeError(f"Executor.run: {where} must be a Variable or a variable name (or a "
                    f"list/tuple of them), got {type(f).__name__}")


class _Device:
    """The device place an Executor computes on: its backend (`xp`) and array moves."""

    __slots__ = ("place", "xp")

    def __init__(self, place) -> None:
        self.place = place
        self.xp = place.backend()

    @staticmethod
    def of(place) -> "_Device | None":
        """None for the host (CPU, pinned memory), else the device of `place` (a Place,
        'gpu:N' or None: the current device, as set by paddle.set_device)."""
        place = _place.to_place(place)
        if place.backend_module is None:
            return None
        return _Device(place)

    def put(self, arr):
        """`arr` on this device (moved when it is elsewhere)."""
        if arr.__class__ is self.xp.ndarray and _place.place_of(arr) == self.place:
            return arr
        return _place.move(arr, self.place)


def _host(arr):
    """A NumPy array of `arr` (copied from its device when it lives on one)."""
    if arr.__class__ is _ND or not _place.is_device_array(arr):
        return arr
    return _place.backend_of(arr).to_host(arr)


def _execute(program: Program, plan: Plan, feed: dict, scope: Scope,
             cache: dict | None = None, dev: _Device | None = None) -> list:
    env = [None] * plan.nslots
    top = plan.block_idx == 0
    feeds = plan.feeds
    for name, value in feed.items():
        spec = feeds.get(name)
        if spec is None:  # ignored (warned when the plan was compiled)
            continue
        arr = value._data if isinstance(value, Tensor) else value
        if arr.__class__ is not _ND and not _place.is_device_array(arr):
            arr = to_array(arr, spec.dtype)
        if top:
            check_feed_array(spec, arr)
        env[spec.slot] = arr if dev is None else dev.put(arr)
    _read_values(program, plan, scope, env, dev)
    extra = _seeds(program, plan)  # step -> attrs added at run time (seed, _run_block)
    if plan.runners:
        runner = {"_run_block": block_runner(program, scope, cache, dev)}
        for k in plan.runners:
            extra[k] = runner
    _run_steps(program, plan, env, extra, dev)
    bound = program._bound
    for idx, name in plan.writes:
        t = bound.get(name)
        if t is not None:
            arr = env[idx]
            t._data = arr if arr.dtype == t._data.dtype else arr.astype(t._data.dtype)
            t._version += 1
        else:
            scope._vars[name] = env[idx]
    if plan.targets:  # fetched values must not change when a later run updates in place
        xp = _xp if dev is None else dev.xp
        return [_unshared(xp, env[i], i, env, plan.targets) for i in plan.fetch]
    return [env[i] for i in plan.fetch]


def _read_values(program: Program, plan: Plan, scope: Scope, env: list,
                 dev: _Device | None = None) -> None:
    """Persistable values into `env`; on a device, host values are moved there (scope
    values stay moved: parameters live on the device after the first run)."""
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
        if dev is not None and arr.__class__ is not dev.xp.ndarray:
            arr = _moved_const(program, name, arr, dev) if name in consts else dev.put(arr)
            if scope._vars.get(name) is not None:
                scope._vars[name] = arr
        env[idx] = arr


# Program -> {(const name, place): (host array, its device copy)}: constants are moved once
_CONSTS_ON: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _moved_const(program: Program, name: str, arr, dev: _Device):
    cache = _CONSTS_ON.setdefault(program, {})
    hit = cache.get((name, dev.place))
    if hit is None or hit[0] is not arr:
        hit = cache[(name, dev.place)] = (arr, dev.put(arr))
    return hit[1]


def _run_steps(program: Program, plan: Plan, env: list, extra: dict,
               dev: _Device | None = None) -> None:
    if dev is not None:
        return _run_device_steps(program, plan, env, extra, dev)
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
        try:
            if updates and k in updates and _writable(vals, updates[k]):
                fn, updated, mask = updates[k]
                for j, m in zip(updated, mask):
                    if not m:
                        vals[j] = vals[j].copy()
                fn(xp, *vals, **attrs)
                for i, j in zip(outs, updated):
                    env[i] = vals[j]
            elif multi:
                for i, o in zip(outs, compute(xp, *vals, **attrs)):
                    env[i] = o if o.__class__ is _ND else _asarray(o)
            else:
                out = compute(xp, *vals, **attrs)
                env[outs[0]] = out if out.__class__ is _ND else _asarray(out)
        except Exception as err:
            _reraise(err, program.block(plan.block_idx), k)
        for i in frees:
            env[i] = None


def _run_device_steps(program: Program, plan: Plan, env: list, extra: dict,
                      dev: _Device) -> None:
    """_run_steps on a device: kernels get the device's `xp`; ops without array inputs
    (creation, random) compute on the host and move their outputs, as eager dispatch does,
    and so do CPU-only kernels (ops/devices.py, the backend's list): their inputs are
    copied to the host, so a Program holding one still runs on the GPU."""
    xp, adopt, updates = dev.xp, dev.xp.adopt, plan.updates
    ops = program.block(plan.block_idx).ops
    host_only = _CPU_ONLY | getattr(xp, "CPU_ONLY", frozenset())
    for k, (compute, args, attrs, outs, multi, simple, frees, rnd) in enumerate(plan.steps):
        if rnd:
            attrs = {**attrs, **extra[k]}
        vals = [env[a] if type(a) is int else None if a is None else [env[i] for i in a]
                for a in args]
        try:
            if updates and k in updates and _writable(vals, updates[k], xp):
                fn, updated, mask = updates[k]
                for j, m in zip(updated, mask):
                    if not m:
                        vals[j] = vals[j].copy()
                fn(xp, *vals, **attrs)
                for i, j in zip(outs, updated):
                    env[i] = vals[j]
                continue
            if any(v is not None for v in vals) and ops[k].type not in host_only:
                res = compute(xp, *vals, **attrs)
                res = tuple(adopt(o, ops[k].type) for o in (res if multi else (res,)))
            else:
                vals = [None if v is None else [_host(a) for a in v] if v.__class__ is list
                        else _host(v) for v in vals]
                res = compute(_xp, *vals, **attrs)
                res = tuple(dev.put(_asarray(o)) for o in (res if multi else (res,)))
            for i, o in zip(outs, res):
                env[i] = o
        except Exception as err:
            _reraise(err, program.block(plan.block_idx), k)
        for i in frees:
            env[i] = None


def _reraise(err: Exception, block, k: int):
    """Re-raise a kernel error naming the op and the user's line that built it."""
    op = block.ops[k]
    where = f"block {block.idx} " if block.idx else ""
    msg = f"Executor: {where}op #{k} ({op.type}) failed: {err}"
    if op.loc:
        source = linecache.getline(op.loc[0], op.loc[1]).strip()
        msg += f"\n  the op was built at {op.loc[0]}, line {op.loc[1]}" + (
            f":\n    {source}" if source else "")
    try:
        new = type(err)(msg)
    except Exception:  # an exception type whose constructor takes other arguments
        new = RuntimeError(msg)
    raise new from err


def _writable(vals: list, update: tuple, xp=_xp) -> bool:
    """The arrays an in-place update would overwrite are writeable, own their memory
    (no view of another array: distinct owners cannot overlap) and are all distinct.
    Device arrays (`xp.ndarray`, no `writeable` flag) need only the last two."""
    seen = set()
    for j, m in zip(update[1], update[2]):
        if not m:
            continue
        a = vals[j]
        if a.__class__ is _ND:
            if not a.flags.writeable:
                return False
        elif a.__class__ is not xp.ndarray:
            return False
        if a.base is not None or id(a) in seen:
            return False
        seen.add(id(a))
    return True


def _unshared(xp, arr, idx: int, env: list, targets) -> np.ndarray:
    """A fetched array that is (or may view) an array updated in place: a copy."""
    if idx in targets:
        return arr.copy()
    if arr.__class__ is _ND or arr.__class__ is xp.ndarray:
        for i in targets:
            t = env[i]
            if t is not None and t.__class__ is arr.__class__ and \
                    xp.may_share_memory(arr, t):
                return arr.copy()
    return arr


def _seeds(program: Program, plan: Plan) -> dict:
    """Run-time seeds: each random op built without a fixed seed (seed 0) draws one from the
    global generator at every run; ops with a fixed seed keep it (framework/random.py)."""
    if not plan.random:
        return {}
    steps = plan.steps
    return {k: {} if steps[k].attrs.get("seed") else {"seed": next_seed()}
            for k in plan.random}


def block_runner(program: Program, scope: Scope, cache: dict | None = None,
                 dev: _Device | None = None):
    """The `_run_block(block_idx, feed, fetch)` callable given to ops with `runs_blocks`
    (plans cached in `cache`, this program's plan dict, per version, block, feed and fetch
    names)."""
    cache = {} if cache is None else cache

    def run_block(block_idx: int, feed: dict, fetch) -> list:
        fetch = tuple(fetch)
        key = (program._version, block_idx, tuple(feed), fetch)
        plan = cache.get(key)
        if plan is None:
            plan = cache[key] = _compile(program, tuple(feed), fetch, block_idx)
        return _execute(program, plan, feed, scope, cache, dev)
    return run_block

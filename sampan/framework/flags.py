"""FLAGS_* settings (set_flags/get_flags) and the mutable state dispatch reads.

`STATE` is per thread (a Predictor clone, a DataLoader thread or a served request never sees
another thread's mode): grad mode, the saved-tensor hooks, and the dispatch chain — one *build
target* (None: eager; else the static builder appending to a Block) plus an ordered tuple of
*wrappers* (AMP cast, profiler record, ...) that each see a call and pass it on. The chain is
composed here once per change; dispatch only reads `STATE.intercept`. Imports nothing.
"""
from __future__ import annotations

import contextlib
import threading


class _Hot:
    """Process-wide counts that let dispatch skip the thread-local state on the plain path:
    `active`, threads whose dispatch chain is non-empty; `quirk`, threads whose grad mode is
    off or that have saved-tensor hooks. While both are 0 the eager path reads no
    thread-local attribute."""
    __slots__ = ("active", "quirk")

    def __init__(self) -> None:
        self.active = 0
        self.quirk = 0


HOT = _Hot()
_HOT_LOCK = threading.Lock()


class _State(threading.local):
    def __init__(self) -> None:
        self._grad = True
        # (pack_hook, unpack_hook) of the innermost autograd.saved_tensors_hooks, or None
        self._hooks = None
        self._quirky = False
        # callable (op, inputs, attrs, nxt) that builds ops into a static Block when it
        # decides to (else calls nxt); None in dynamic mode
        self.target = None
        # callables (op, inputs, attrs, nxt), outermost first
        self.wrappers = ()
        # the composed chain (op, inputs, attrs) -> outputs; None when target and wrappers
        # are both empty. Derived: written only by `_recompose`.
        self.intercept = None

    # grad mode and saved hooks are properties so that every write keeps HOT.quirk true
    @property
    def grad_enabled(self) -> bool:
        return self._grad

    @grad_enabled.setter
    def grad_enabled(self, mode: bool) -> None:
        self._grad = mode
        self._requirk()

    @property
    def saved_hooks(self):
        return self._hooks

    @saved_hooks.setter
    def saved_hooks(self, hooks) -> None:
        self._hooks = hooks
        self._requirk()

    def _requirk(self) -> None:
        quirky = not self._grad or self._hooks is not None
        if quirky != self._quirky:
            self._quirky = quirky
            with _HOT_LOCK:
                HOT.quirk += 1 if quirky else -1


STATE = _State()

# Set by ops.dispatch at import: the eager end of every chain (framework imports no op).
EAGER = [None]


def _link(fn, nxt):
    return lambda op, inputs, attrs: fn(op, inputs, attrs, nxt)


def _recompose() -> None:
    state = STATE
    was = state.intercept is not None
    chain = None
    if state.target is not None or state.wrappers:
        chain = EAGER[0]
        if state.target is not None:
            chain = _link(state.target, chain)
        for wrapper in reversed(state.wrappers):
            chain = _link(wrapper, chain)
    state.intercept = chain
    if was != (chain is not None):
        with _HOT_LOCK:
            HOT.active += 1 if chain is not None else -1


def in_dynamic_mode() -> bool:
    """The one mode predicate: False while this thread builds a static Program (after
    `paddle.enable_static()`, or while to_static traces)."""
    return STATE.target is None


def set_target(target) -> object:
    """Make `target` (None: eager) this thread's build target; return the previous one."""
    old = STATE.target
    STATE.target = target
    _recompose()
    return old


@contextlib.contextmanager
def target_guard(target):
    """Build into `target` (None: run eagerly) for the duration, in this thread."""
    old = set_target(target)
    try:
        yield
    finally:
        set_target(old)


@contextlib.contextmanager
def dispatch_wrapper(wrapper):
    """Install `wrapper(op, inputs, attrs, nxt)` innermost among this thread's wrappers (it
    sees calls after the outer wrappers, before the build target)."""
    old = STATE.wrappers
    STATE.wrappers = old + (wrapper,)
    _recompose()
    try:
        yield
    finally:
        STATE.wrappers = old
        _recompose()


@contextlib.contextmanager
def without_wrappers(drop):
    """Run without this thread's wrappers `w` for which `drop(w)` is true (an inner
    `auto_cast(enable=False)` turns the outer contexts' casting off); restored on exit."""
    old = STATE.wrappers
    kept = tuple(w for w in old if not drop(w))
    if len(kept) == len(old):
        yield
        return
    STATE.wrappers = kept
    _recompose()
    try:
        yield
    finally:
        STATE.wrappers = old
        _recompose()


def trace_key() -> tuple:
    """What this thread's wrappers change in a traced Program (each wrapper's `trace_key`
    attribute, e.g. AMP's level and lists; recorders such as the profiler have none): part
    of to_static's program cache key, so a Program traced under auto_cast is not reused
    outside it and vice versa."""
    return tuple(key for key in (getattr(w, "trace_key", None) for w in STATE.wrappers)
                 if key is not None)


@contextlib.contextmanager
def dispatch_bypass():
    """Run ops eagerly with no wrapper or target in this thread for the duration (parameter
    initial values computed in dynamic mode, kernels of wrappers themselves)."""
    old_target, old_wrappers = STATE.target, STATE.wrappers
    STATE.target, STATE.wrappers = None, ()
    _recompose()
    try:
        yield
    finally:
        STATE.target, STATE.wrappers = old_target, old_wrappers
        _recompose()


_FLAGS: dict = {
    "FLAGS_check_nan_inf": False,
    "FLAGS_cudnn_deterministic": False,
    "FLAGS_use_mkldnn": False,
    "FLAGS_eager_delete_tensor_gb": 0.0,
    "FLAGS_fraction_of_gpu_memory_to_use": 0.92,
    "FLAGS_allocator_strategy": "auto_growth",
    "FLAGS_embedding_deterministic": 0,
}


def set_flags(flags: dict) -> None:
    """Set FLAGS_* values. Unknown flags are accepted and stored (most have no CPU effect)."""
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags: flags must be a dict, got {type(flags).__name__}")
    for key, value in flags.items():
        if not str(key).startswith("FLAGS_"):
            raise ValueError(f"set_flags: flag names start with 'FLAGS_', got {key!r}")
        _FLAGS[key] = value


def get_flags(flags) -> dict:
    """Return {name: value} for a flag name or a list of names."""
    names = [flags] if isinstance(flags, str) else list(flags)
    out = {}
    for key in names:
        if key not in _FLAGS:
            raise ValueError(f"get_flags: unknown flag {key!r}")
        out[key] = _FLAGS[key]
    return out

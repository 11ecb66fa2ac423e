"""auto_cast: mixed precision as ONE dispatch wrapper (eager, static building and to_static alike).

Each OpDef's `amp` attribute says how the op is treated: "low" (Paddle's white list: computes in
float16/bfloat16), "float32" (black list at O1), "float32_always" (black list at O1 and O2),
"keep" (never cast: optimizer updates), None (grey: promote). Casts are dispatched `cast` ops,
so they are recorded on the tape or appended to the Program being built.
"""
from __future__ import annotations

import contextlib
import warnings

from ..framework import dtype as _dt
from ..framework import flags as _flags
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY
from . import support

_CAST = REGISTRY["cast"]
_F32 = _dt.float32
_LEVELS = ("O0", "OD", "O1", "O2")
_CPU_WARNING = ("amp_guard can only be enabled on CUDAPlace, XPUPlace, and CustomPlace, "
                "current place is Place(cpu), so it makes no effect.")
_BF16_WARNING = ("amp_guard: bfloat16 is not supported on this GPU backend (CuPy has no "
                 "bfloat16 kernels), so it makes no effect; use dtype='float16'.")


_LIST_CACHE: dict = {}


def _ops_with(kinds: tuple) -> frozenset:
    """Names of the registered ops whose OpDef.amp is in `kinds` (cached per registry size)."""
    key = (kinds, len(REGISTRY))
    names = _LIST_CACHE.get(key)
    if names is None:
        names = frozenset(n for n, op in REGISTRY.items() if getattr(op, "amp", None) in kinds)
        _LIST_CACHE[key] = names
    return names


def _black(level: str) -> frozenset:
    # Paddle: O2 keeps only the extra list (embedding, scatter) in float32; OD none
    if level == "OD":
        return frozenset()
    return _ops_with(("float32_always",) if level == "O2" else ("float32", "float32_always"))


def white_list() -> dict:
    """{dtype: {level: op names run in low precision}} (OpDef.amp == "low"), as Paddle's.

    Examples:
        >>> import sampan as paddle
        >>> 'matmul' in paddle.amp.white_list()['bfloat16']['O1']
        True
    """
    low = set(_ops_with(("low",)))
    return {d: {lv: set(low) for lv in ("OD", "O1", "O2")} for d in ("float16", "bfloat16")}


def black_list() -> dict:
    """{dtype: {level: op names kept in float32}}, as Paddle's (O2: only embedding, scatter).

    Examples:
        >>> import sampan as paddle
        >>> sorted(paddle.amp.black_list()['bfloat16']['O2'])
        ['embedding', 'scatter']
    """
    return {d: {lv: set(_black(lv)) for lv in ("OD", "O1", "O2")}
            for d in ("float16", "bfloat16")}


class AmpState:
    """The settings of one auto_cast context (read by its wrapper)."""

    def __init__(self, level: str, low, white: set, black: set, use_promote: bool) -> None:
        self.level = level
        self.low = low
        self.white = white
        self.black = black
        self.use_promote = use_promote

    def target(self, op, inputs) -> object:
        """The dtype `op`'s float inputs are cast to, or None (leave them)."""
        kind = getattr(op, "amp", None)
        if kind == "keep" or op is _CAST:
            return None
        name = op.name
        if name in self.black:
            return _F32
        if name in self.white:
            return self.low
        if self.level == "OD":
            return _F32
        if self.use_promote or self.level == "O1":
            # grey op: float32 if any float input is float32, else run as the inputs are
            return _F32 if any(d is _F32 for d in _float_dtypes(inputs)) else None
        return self.low


def _float_dtypes(inputs):
    for value in inputs:
        if isinstance(value, (list, tuple)):
            yield from _float_dtypes(value)
        elif value is not None and hasattr(value, "dtype") and hasattr(value, "stop_gradient"):
            dtype = _dt.convert_dtype(value.dtype)
            if dtype.kind == "f":
                yield dtype


def _cast_value(value, target):
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_value(v, target) for v in value)
    if value is None or not (hasattr(value, "dtype") and hasattr(value, "stop_gradient")):
        return value
    dtype = _dt.convert_dtype(value.dtype)
    if dtype is target or dtype.name not in ("float16", "bfloat16", "float32"):
        return value
    return dispatch(_CAST, (value,), {"dtype": target.name})


def make_wrapper(state: AmpState):
    """The dispatch wrapper of one auto_cast context. Its own casts re-enter the chain from
    the top (profiler, static builder) and pass straight through it."""
    low = state.low

    def amp_wrapper(op, inputs, attrs, nxt):
        if op is _CAST:
            return nxt(op, inputs, attrs)
        target = state.target(op, inputs)
        if target is None:
            return nxt(op, inputs, attrs)
        out = nxt(op, tuple(_cast_value(v, target) for v in inputs), attrs)
        if target is low:  # a kernel that widened (float32 accumulation) still yields low
            out = _cast_value(out, low)
        return out

    amp_wrapper.trace_key = ("amp", state.level, state.low.name, frozenset(state.white),
                             frozenset(state.black), state.use_promote)
    return amp_wrapper


def _is_amp(wrapper) -> bool:
    return getattr(wrapper, "trace_key", (None,))[0] == "amp"


def _check(level, dtype, custom_white_list, custom_black_list):
    if level not in _LEVELS:
        raise ValueError(f"paddle.amp.auto_cast: level must be one of {list(_LEVELS)}, "
                         f"got {level!r}")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"paddle.amp.auto_cast: dtype must be 'float16' or 'bfloat16', "
                         f"got {dtype!r}")
    white = set(custom_white_list or ())
    black = set(custom_black_list or ())
    both = white & black
    if both:
        raise ValueError(f"paddle.amp.auto_cast: custom_white_list and custom_black_list "
                         f"both contain {sorted(both)}")
    return white, black


@contextlib.contextmanager
def auto_cast(enable: bool = True, custom_white_list=None, custom_black_list=None,
              level: str = "O1", dtype: str = "float16", use_promote: bool = True):
    """Run the ops inside the context in mixed precision.

    White-list ops (matmul, conv, linear, einsum) compute in `dtype`, black-list ops (exp,
    log, softmax, losses, reductions, layer_norm, ...) in float32, other ops promote. On CPU,
    float16 is unsupported: as in Paddle 3.3.1 the context warns and keeps float32.
    bfloat16 computes for real (ml_dtypes); Paddle 3.3.1 turns it off on CPU.

    Args:
        enable (bool, optional): turn auto_cast on. Default True.
        custom_white_list (set|list, optional): op names moved to low precision.
        custom_black_list (set|list, optional): op names kept in float32.
        level (str, optional): 'O1' (lists) or 'O2' (all but the black list low; use with
            decorate). 'O0' is off, 'OD' only the white list. Default 'O1'.
        dtype (str, optional): 'float16' or 'bfloat16'. Default 'float16'.
        use_promote (bool, optional): grey ops with a float32 input compute in float32.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.ones([2, 3]); w = paddle.ones([3, 4])
        >>> with paddle.amp.auto_cast(dtype='bfloat16'):
        ...     y = paddle.matmul(x, w)
        ...     z = paddle.exp(y)
        >>> y.dtype, z.dtype
        (paddle.bfloat16, paddle.float32)
    """
    white, black = _check(level, dtype, custom_white_list, custom_black_list)
    off = not enable or level == "O0"
    if not off and dtype == "float16" and not support.is_float16_supported():
        warnings.warn(_CPU_WARNING, UserWarning, stacklevel=3)
        off = True
    if not off and dtype == "bfloat16" and not support.is_bfloat16_supported():
        warnings.warn(_BF16_WARNING, UserWarning, stacklevel=3)
        off = True
    if off:  # also inside an outer auto_cast: this context computes without casts
        with _flags.without_wrappers(_is_amp):
            yield
        return
    if dtype == "float16":
        support.warn_fp16_without_scaler()
    state = AmpState(level, _dt.convert_dtype(dtype), (_ops_with(("low",)) | white) - black,
                     (_black(level) | black) - white, bool(use_promote))
    with _flags.dispatch_wrapper(make_wrapper(state)):
        yield


amp_guard = auto_cast

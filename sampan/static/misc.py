"""Smaller paddle.static APIs: ExponentialMovingAverage, device_guard, save_to_file,
load_from_file, xpu_places.

Imports `framework`, `ops` and `static`.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..ops.dispatch import call
from ..ops.opdef import REGISTRY
from ..utils import unique_name
from .builder import append_op, build_into, building_active
from .executor import global_scope
from .input import static_mode_error
from .program import default_main_program, default_startup_program, device_scope
from ..framework.tensor import is_variable


def xpu_places(device_ids=None) -> list:
    """XPUs are not available: an empty list."""
    return []


def save_to_file(path: str, content: bytes) -> None:
    """Write `content` (bytes, e.g. from serialize_program/serialize_persistables) to
    `path`."""
    if not isinstance(content, bytes):
        raise ValueError("save_to_file: 'content' type should be bytes, got "
                         f"{type(content).__name__}")
    with open(path, "wb") as f:
        f.write(content)


def load_from_file(path: str) -> bytes:
    """The bytes stored in `path` (see save_to_file)."""
    with open(path, "rb") as f:
        return f.read()


@contextlib.contextmanager
def device_guard(device=None):
    """Place the static ops built inside on `device`: each records it as its `op_device`
    attr (`op.attr("op_device")`; None or '' record "" as outside any guard).

    Args:
        device (str|None): 'cpu', 'gpu', 'gpu:0', 'xpu', 'dcu', '' or None.

    The Executor runs every op on the CPU whatever its device; the attr drives
    `Executor.split_program_by_device` and the heterogeneous parameter server.

    Examples:
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main, startup = paddle.static.Program(), paddle.static.Program()
        >>> with paddle.static.program_guard(main, startup):
        ...     x = paddle.static.data("x", [2], "float32")
        ...     with paddle.static.device_guard("gpu:0"):
        ...         y = x + 1.0
        ...     z = y * 2.0
        >>> [op.attr("op_device") for op in main.global_block().ops]
        ['gpu:0', '']
        >>> paddle.disable_static()
    """
    name, index = device, None
    if device is not None and not isinstance(device, str):
        raise TypeError(f"device_guard: device must be a str or None, got "
                        f"{type(device).__name__}")
    if device and ":" in device:
        name, index = device.split(":", 1)
        if name == "cpu":
            raise ValueError("device_guard: should not set device id for cpu, got "
                             f"{device!r}")
        if not index.isdigit():
            raise ValueError(f"device_guard: the device id in {device!r} must be an int")
    if name not in ("cpu", "gpu", "dcu", "xpu", "", None):
        raise ValueError(f"device_guard: the Attr(device) should be 'cpu', 'xpu', 'dcu', "
                         f"'gpu', and it can also be empty string or None when there is no "
                         f"need to specify device. But received {device!r}")
    with device_scope(device or ""):
        yield


# --- ExponentialMovingAverage -----------------------------------------------------------------

def _persistable(program, name: str, shape, dtype: str, value: float):
    var = program.global_block().create_var(name, list(shape), dtype, persistable=True,
                                            stop_gradient=True)
    with build_into(default_startup_program().global_block()):
        append_op(REGISTRY["full"], (), {"shape": list(shape), "fill_value": value,
                                         "dtype": dtype}, out_names=[name]).persistable = True
    return var


def _assign_to(dst, value) -> None:
    """Append `dst = value` (dst a persistable Variable: the op writes it in place)."""
    block = dst.block
    tmp = append_op(REGISTRY["assign"], (value,), {}, block=block)
    del block.vars[tmp.name]
    block.ops[-1].outputs["out"] = [dst.name]
    block.program._bump()


class ExponentialMovingAverage:
    """Shadow copies of the parameters, `ema = decay * ema + (1 - decay) * param` after each
    step (static graph only).

    Args:
        decay (float): the decay rate. Default 0.999.
        thres_steps (Variable, optional): a step counter; the decay used is then
            min(decay, (1 + steps) / (10 + steps)).
        name (str, optional): prefix of the EMA variables.

    Call `update()` after the optimizer's minimize (while building the main program); then
    `with ema.apply(exe): ...` evaluates with the bias-corrected averages
    (ema / (1 - decay ** steps), as Paddle) and restores the parameters on exit (`restore(exe)` when
    need_restore=False).
    """

    def __init__(self, decay: float = 0.999, thres_steps=None, name=None) -> None:
        if not building_active():
            raise static_mode_error("paddle.static.ExponentialMovingAverage")
        if isinstance(decay, bool) or not isinstance(decay, (int, float)) \
                or not 0.0 <= decay <= 1.0:
            raise ValueError(f"ExponentialMovingAverage: decay must be a float in [0, 1], got "
                             f"{decay!r}")
        if thres_steps is not None and not is_variable(thres_steps):
            raise TypeError(f"ExponentialMovingAverage: thres_steps must be a Variable or "
                            f"None, got {type(thres_steps).__name__}")
        self._decay = float(decay)
        self._thres_steps = thres_steps
        self._name = name or ""
        self._program = None
        self._pairs: list = []   # (param Variable, ema Variable)
        self._decay_now = None   # persistable: the decay used by the last step
        self._step = None        # persistable int64 step counter
        self._backup: dict = {}

    def update(self) -> None:
        """Append the EMA update of every trainable parameter to the main program."""
        if not building_active():
            raise static_mode_error("paddle.static.ExponentialMovingAverage.update")
        program = default_main_program()
        if self._program is not None and self._program is not program:
            raise RuntimeError("ExponentialMovingAverage.update: already updating another "
                               "program")
        params = [p for p in program.global_block().vars.values()
                  if p.is_parameter and getattr(p, "trainable", True)
                  and getattr(p, "do_model_average", None) is not False]
        if not params:
            raise ValueError("ExponentialMovingAverage.update: the main program has no "
                             "trainable parameters")
        self._program = program
        prefix = self._name + "_" if self._name else ""
        with build_into(program.global_block()):
            if self._decay_now is None:   # Paddle: scheduled_ema_decay_rate, @EMA_STEP_COUNTER@
                self._decay_now = _persistable(program, unique_name.generate(
                    prefix + "scheduled_ema_decay_rate"), [1], "float32", self._decay)
                self._step = _persistable(program, unique_name.generate(
                    prefix + "@EMA_STEP_COUNTER@"), [1], "int64", 0)
            _assign_to(self._step, self._step + 1)
            if self._thres_steps is not None:
                steps = call("cast", call("reshape", self._thres_steps, shape=[1]),
                             dtype="float32")
                _assign_to(self._decay_now, call("minimum", (steps + 1.0) / (steps + 10.0),
                                                 call("full", shape=[1], fill_value=self._decay,
                                                      dtype="float32")))
            decay = self._decay_now
            for p in params:
                ema = _persistable(program, unique_name.generate(f"{prefix}{p.name}_ema"),
                                   p.shape, p.dtype.name, 0.0)
                d = decay if p.dtype.name == "float32" else decay.astype(p.dtype)
                _assign_to(ema, ema * d + p * (1.0 - d))
                self._pairs.append((p, ema))

    # --- applying the averages (run-time, on the scope's values) ---
    def _value(self, name: str, scope):
        bound = self._program._bound.get(name)
        arr = bound._data if bound is not None else scope.get(name)
        if arr is None:
            raise RuntimeError(f"ExponentialMovingAverage: {name!r} has no value; run the "
                               f"startup program and some training steps first")
        return arr

    def _set(self, name: str, arr, scope) -> None:
        bound = self._program._bound.get(name)
        if bound is not None:
            bound._data = np.array(arr, dtype=bound._data.dtype)
            bound._version += 1
        else:
            scope.set(name, arr)

    @contextlib.contextmanager
    def apply(self, executor=None, need_restore: bool = True):
        """Inside, the parameters hold their bias-corrected moving averages."""
        if self._program is None:
            raise RuntimeError("ExponentialMovingAverage.apply: call update() while building "
                               "the program first")
        scope = global_scope()
        step = float(np.asarray(self._value(self._step.name, scope)).reshape(-1)[0])
        decay = np.asarray(self._value(self._decay_now.name, scope)).reshape(-1)[0]
        # Paddle's bias correction: ema / (1 - decay ** steps) once a step ran
        denom = np.float32(1.0) - np.float32(decay) ** np.float32(step) if step > 0 else None
        for p, ema in self._pairs:
            value = self._value(p.name, scope)
            self._backup[p.name] = np.array(value)
            avg = self._value(ema.name, scope)
            new = avg / denom if denom is not None else avg
            self._set(p.name, np.asarray(new).astype(value.dtype), scope)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor=None) -> None:
        """Put back the parameter values saved by apply()."""
        scope = global_scope()
        for name, arr in self._backup.items():
            self._set(name, arr, scope)
        self._backup = {}

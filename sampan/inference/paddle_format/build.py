"""Turn a reader-neutral `PModel` into a sampan static Program by translating every Paddle op
through the table in `table.py` onto sampan's public functions (which append OpDefs).

Values during translation are sampan Variables, NumPy constants (Paddle's fill/full ops and
shape arithmetic on known dims), `SymShape`s / `Dim`s (shapes with run-time dims),
`LazyFill`s (fills of such shapes) or lists (PIR's builtin.combine).
Imports `static` (Program building), `tensor` and its package.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...framework.tensor import is_variable
from ...static.builder import building, program_guard
from ...static.program import Program
from ... import tensor as T
from .ir import PModel, POp


class Unsupported(ValueError):
    """A model uses something the translator cannot express (named in the message)."""


@dataclass
class Dim:
    """A run-time dim: dim `axis` of Variable `var`."""
    var: object
    axis: int


@dataclass
class SymShape:
    """A 1-D integer shape vector whose entries are ints or `Dim`s."""
    dims: list


@dataclass
class LazyFill:
    """A fill (value, dtype) whose shape has run-time dims; the rnn translator makes its
    zero states from its own input, other consumers get it broadcast (`fill_var`)."""
    value: float
    dtype: str
    dims: list


class Ctx:
    """Translation state: `env` maps Paddle value names to translated values."""

    def __init__(self, model: PModel, path: str) -> None:
        self.model, self.path, self.env = model, path, {}

    def has(self, op: POp, slot: str) -> bool:
        return bool(op.inputs.get(slot))

    def value(self, name: str):
        if name not in self.env:
            raise Unsupported(f"paddle.inference: {self.path!r}: value {name!r} is used "
                              f"before any op defines it")
        return self.env[name]

    def var(self, op: POp, slot: str, idx: int = 0):
        """Input `slot`[idx] as a Variable (constants become program constants)."""
        names = op.inputs.get(slot) or []
        if idx >= len(names):
            raise Unsupported(f"paddle.inference: {self.path!r}: op {op.type} has no input "
                              f"{slot!r}")
        return self.as_var(self.value(names[idx]), op, slot)

    def opt(self, op: POp, slot: str):
        return self.var(op, slot) if self.has(op, slot) else None

    def values(self, op: POp, slot: str) -> list:
        """Input `slot`'s values, PIR vectors (lists) flattened."""
        out = []
        for name in op.inputs.get(slot) or []:
            v = self.value(name)
            out.extend(v if isinstance(v, list) else [v])
        return out

    def vars(self, op: POp, slot: str) -> list:
        return [self.as_var(v, op, slot) for v in self.values(op, slot)]

    def as_var(self, v, op: POp, slot: str):
        if isinstance(v, list) and len(v) == 1:
            v = v[0]
        if is_variable(v):
            return v
        if isinstance(v, (np.ndarray, np.generic)):
            return T.to_tensor(np.asarray(v))
        if isinstance(v, SymShape):
            return shape_var(v)
        if isinstance(v, LazyFill):
            return fill_var(v)
        raise Unsupported(f"paddle.inference: {self.path!r}: op {op.type} input {slot!r} is "
                          f"a {type(v).__name__} with run-time dims "
                          f"({getattr(v, 'dims', '')}), which sampan cannot build here")

    def const(self, op: POp, slot: str):
        """Input `slot` as a NumPy value known at load time."""
        v = self.value(op.inputs[slot][0])
        if isinstance(v, list):
            v = [self._scalar(x, op, slot) for x in v]
            return np.asarray(v)
        if isinstance(v, SymShape) and all(isinstance(d, int) for d in v.dims):
            return np.asarray(v.dims, np.int64)
        if isinstance(v, (np.ndarray, np.generic)):
            return np.asarray(v)
        raise Unsupported(f"paddle.inference: {self.path!r}: op {op.type} needs input "
                          f"{slot!r} at load time, but it is computed at run time")

    def _scalar(self, x, op, slot):
        if isinstance(x, (np.ndarray, np.generic)) and np.size(x) == 1:
            return np.asarray(x).reshape(()).item()
        raise Unsupported(f"paddle.inference: {self.path!r}: op {op.type} input {slot!r} "
                          f"holds a run-time value")


def shape_var(s: SymShape):
    """A run-time shape vector as an int64 Variable (each Dim read by `shape`)."""
    parts = [T.to_tensor(np.asarray([d], np.int64)) if isinstance(d, int) else
             T.cast(T.slice(T.shape(d.var), [0], [d.axis], [d.axis + 1]), "int64")
             for d in s.dims]
    return T.concat(parts, 0)


# operands that PIR made of legacy attrs and that name one number, not a list
_SCALAR_ATTRS = ("scale", "min", "max", "dropout_prob", "axis", "k", "value", "depth")


# "=name" operands that may be computed at run time, and the legacy input slot they go to
_RUNTIME_SLOTS = {"shape": "Shape"}


def _constant_attrs(c: Ctx, op: POp) -> None:
    """PIR operands written "=name" (see pir_json.PIR_OPS) become the legacy attr `name`
    (or, for a run-time shape, the legacy input slot that carries it)."""
    for slot in [s for s in op.inputs if s.startswith("=")]:
        try:
            arr = c.const(op, slot)
        except Unsupported:
            if slot[1:] not in _RUNTIME_SLOTS:
                raise
            op.inputs[_RUNTIME_SLOTS[slot[1:]]] = op.inputs.pop(slot)
            continue
        value = arr.item() if arr.ndim == 0 else arr.tolist()
        name = slot[1:]
        if name in _SCALAR_ATTRS and isinstance(value, list) and len(value) == 1:
            value = value[0]
        op.attrs[name] = value
        del op.inputs[slot]


def fill_var(f: LazyFill):
    """A fill with run-time dims: a constant with the known dims (1 elsewhere) broadcast
    against, per run-time dim, a zero vector as long as that dim of its source Variable."""
    out = T.full([d if isinstance(d, int) else 1 for d in f.dims], f.value, f.dtype)
    for i, d in enumerate(f.dims):
        if isinstance(d, Dim):
            others = [k for k in range(len(d.var.shape)) if k != d.axis]
            line = T.slice(d.var, others, [0] * len(others), [1] * len(others)) if (
                others) else d.var
            zeros = T.zeros_like(T.reshape(line, [-1]), f.dtype)
            shape = [1] * len(f.dims)
            shape[i] = -1
            out = out + T.reshape(zeros, shape)
    return out


def _assign(c: Ctx, op: POp, result: dict) -> None:
    for slot, value in result.items():
        names = op.outputs.get(slot) or []
        if not names:
            continue
        if len(names) == 1:  # NOTE: a PIR vector result stays one list value
            c.env[names[0]] = value
        else:
            for n, v in zip(names, value):
                c.env[n] = v


def build_program(model: PModel, params: dict, path: str, table: dict) -> tuple:
    """(Program, feed names, fetch names): data Variables for the feeds, persistable
    Variables for `params`, then every op translated in order (the caller has checked
    that `table` maps every op type)."""
    program, c = Program(), Ctx(model, path)
    with program_guard(program, Program()), building():
        block = program.global_block()
        for name in model.feeds:
            pv = model.vars[name]
            v = block.create_var(name, [-1 if d is None else d for d in pv.shape], pv.dtype)
            v.is_data = True
            c.env[name] = v
        for name, arr in params.items():
            c.env[name] = block.create_var(name, arr.shape, str(arr.dtype), persistable=True)
        for op in model.ops:
            try:
                _constant_attrs(c, op)
                _assign(c, op, table[op.type](c, op))
            except Unsupported as e:
                if repr(path) in str(e):
                    raise
                raise Unsupported(f"paddle.inference: {path!r}: Paddle op {op.type}: "
                                  f"{e}") from None
            except Exception as e:  # noqa: BLE001 - re-raised with the op named
                raise Unsupported(f"paddle.inference: {path!r}: translating Paddle op "
                                  f"{op.type} (inputs {op.inputs}) failed: "
                                  f"{type(e).__name__}: {e}") from e
        fetches = [_fetch(c, block, name, model.aliases.get(name, name))
                   for name in model.fetches]
    return program, list(model.feeds), fetches


def _fetch(c: Ctx, block, name: str, alias: str) -> str:
    """The fetched Variable, renamed to Paddle's output name where that name is free."""
    v = c.env.get(name)
    if not is_variable(v) or v.persistable or v.is_data:
        v = T.assign(c.as_var(v, POp("fetch", {"X": [name]}, {}, {}), "X"))
    if v.name != alias and not block.has_var(alias):
        block.rename_var(v.name, alias)
    return v.name

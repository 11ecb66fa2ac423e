"""The static IR: Program -> Blocks -> Operators and Variables, the current-program pointers
(per thread), name_scope and the stable text form.

Graph data only: imports `framework`, `utils.unique_name` and the OpDef registry (attr defaults
for printing, `test_attrs` for clone), never dispatch or its users. Methods that need the
Executor or the serializer (`state_dict`, `set_state_dict`, `parse_from_string`, `verify`) are
bound onto Program by `static.io` and `static.verify`. Operators refer to variables by name.
"""
from __future__ import annotations

import contextlib
import copy
import json
import os
import sys
import threading

from ..framework import random as _random
from ..ops.opdef import REGISTRY
from ..utils import unique_name
from .variable import Parameter, Variable


class Operator:
    """One op: type (OpDef name), inputs {slot: [var names]}, outputs {name: [var names]},
    attrs (defaults merged, JSON-serializable)."""

    __slots__ = ("block", "type", "inputs", "outputs", "attrs", "namescope", "loc",
                 "op_device")

    def __init__(self, block, type: str, inputs: dict, outputs: dict, attrs: dict,
                 namescope: str | None = None, loc: tuple | None = None,
                 op_device: str | None = None) -> None:
        self.block = block
        self.type = type
        self.inputs = inputs
        self.outputs = outputs
        self.attrs = attrs
        # static.name_scope at creation ("/enc/inner/"); Paddle's op_namescope attr, kept
        # outside `attrs` (those are the kernel's arguments)
        self.namescope = current_name_scope() if namescope is None else namescope
        # (file, line) of the user code that built the op, for run-time error messages
        self.loc = loc
        # static.device_guard at creation ("cpu", "gpu:0"; "" outside a guard): Paddle's
        # op_device attr, read by Executor.split_program_by_device (heterogeneous PS); every
        # op still runs on the CPU here
        self.op_device = current_device() if op_device is None else op_device

    def input(self, slot: str) -> list:
        return list(self.inputs.get(slot, []))

    def output(self, name: str) -> list:
        return list(self.outputs.get(name, []))

    @property
    def input_arg_names(self) -> list:
        return [n for names in self.inputs.values() for n in names]

    @property
    def output_arg_names(self) -> list:
        return [n for names in self.outputs.values() for n in names]

    def attr(self, name: str):
        if name not in self.attrs:
            if name == "op_namescope":
                return self.namescope
            if name == "op_device":
                return self.op_device
        return self.attrs[name]

    def has_attr(self, name: str) -> bool:
        return name in self.attrs or name in ("op_namescope", "op_device")

    def _set_attr(self, name: str, value) -> None:
        """Set attr `name` (op_device and op_namescope are kept beside the kernel attrs)."""
        if name == "op_device" and name not in self.attrs:
            if not isinstance(value, str):
                raise TypeError(f"Operator._set_attr: op_device must be a str, got "
                                f"{type(value).__name__}")
            self.op_device = value
        elif name == "op_namescope" and name not in self.attrs:
            self.namescope = value
        else:
            self.attrs[name] = value
        self.block.program._bump()

    def to_string(self) -> str:
        """`%out = type(slot=%var, list=[%a, %b], attr=value)`; attrs equal to the OpDef
        default are left out."""
        opdef = REGISTRY.get(self.type)
        defaults = opdef.attrs if opdef is not None else {}
        variadic = {n for n, v in zip(opdef.input_names, opdef.variadic) if v} if opdef else ()
        outs = ", ".join(f"%{n}" for n in self.output_arg_names)
        args = []
        for slot, names in self.inputs.items():
            if slot in variadic:
                args.append(f"{slot}=[{', '.join('%' + n for n in names)}]")
            elif not names:
                args.append(f"{slot}=None")
            else:
                args.append(f"{slot}=%{names[0]}")
        for key in sorted(self.attrs):
            value = self.attrs[key]
            if key in defaults and defaults[key] == value:
                continue
            args.append(f"{key}={json.dumps(value, default=str)}")
        if self.op_device:
            args.append(f"op_device={json.dumps(self.op_device)}")
        return f"{outs} = {self.type}({', '.join(args)})"

    def __repr__(self) -> str:
        return self.to_string()




class Block:
    """An ordered list of Operators and the Variables they define (block 0 is global)."""

    def __init__(self, program: "Program", idx: int, parent_idx: int = -1) -> None:
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.vars: dict = {}
        self.ops: list = []

    def var(self, name: str) -> Variable:
        v = self._find_var(name)
        if v is None:
            raise ValueError(f"Block {self.idx}: no variable named {name!r}")
        return v

    def has_var(self, name: str) -> bool:
        return self._find_var(name) is not None

    def _find_var(self, name: str):
        block = self
        while block is not None:
            v = block.vars.get(name)
            if v is not None:
                return v
            block = block.program.blocks[block.parent_idx] if block.parent_idx >= 0 else None
        return None

    def create_var(self, name=None, shape=(), dtype="float32", persistable=False,
                   stop_gradient=True, cls=Variable, **kwargs) -> Variable:
        name = name or unique_name.generate("tmp")
        if name in self.vars:
            raise ValueError(f"Block {self.idx}: a variable named {name!r} already exists")
        v = cls(self, name, shape, dtype, persistable=persistable,
                stop_gradient=stop_gradient, **kwargs) if cls is Variable else cls(
            self, name, shape, dtype, **kwargs)
        self.vars[name] = v
        self.program._bump()
        return v

    def create_parameter(self, name, shape, dtype, trainable=True, **kwargs) -> Parameter:
        return self.create_var(name, shape, dtype, cls=Parameter, trainable=trainable,
                               **kwargs)

    def append_op(self, type: str, inputs: dict, outputs: dict, attrs: dict) -> Operator:
        op = Operator(self, type, inputs, outputs, attrs, loc=user_location())
        self.ops.append(op)
        self.program._bump()
        return op

    def all_parameters(self) -> list:
        return [v for v in self.vars.values() if v.is_parameter]

    def rename_var(self, old: str, new: str) -> Variable:
        """Rename a variable and every reference to it in this block's ops."""
        v = self.vars.pop(old)
        v.name = new
        self.vars[new] = v
        for op in self.ops:
            for table in (op.inputs, op.outputs):
                for names in table.values():
                    if names:
                        for i, n in enumerate(names):
                            if n == old:
                                names[i] = new
        self.program._bump()
        return v

    def to_string(self) -> str:
        lines = [f"block {self.idx}" + (f" (parent {self.parent_idx})"
                                        if self.parent_idx >= 0 else "") + ":"]
        defined = {n for op in self.ops for n in op.output_arg_names}
        for v in self.vars.values():
            if v.name in defined and not v.persistable:
                continue
            kind = ("param" if v.is_parameter else "data" if v.is_data else
                    "const" if v.name in self.program._consts else
                    "persist" if v.persistable else "var")
            lines.append(f"  {kind} %{v.name}: {_spec_text(v)}")
        for op in self.ops:
            specs = ", ".join(_spec_text(self._find_var(n)) for n in op.output_arg_names)
            lines.append(f"  {op.to_string()}  # {specs}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.to_string()


def _spec_text(v) -> str:
    if v is None:
        return "?"
    return f"{v.dtype.name}[{', '.join(map(str, v._shape))}]"


class Program:
    """A static computation: blocks of Operators over Variables (`paddle.static.Program`)."""

    def __init__(self) -> None:
        self.blocks = [Block(self, 0)]
        self._current_block_idx = 0
        self._seed = _SEED[0]
        self._version = 0
        self._consts: dict = {}    # name -> ndarray for constant Variables
        self._bound: dict = {}     # name -> eager Tensor backing a persistable Variable
        self._eager_ids: dict = {}  # id(eager tensor) -> var name (met while building)
        self._is_test = False

    def _bump(self) -> None:
        self._version += 1

    # --- random seed -----------------------------------------------------------------
    @property
    def random_seed(self) -> int:
        """The seed initializers and dropout take when they are built into this Program
        (0: they draw at every run; other random ops ignore it, framework/random.py); new
        Programs start from the seed set by `global_seed`."""
        return self._seed

    @random_seed.setter
    def random_seed(self, seed: int) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"Program.random_seed's input seed must be an integer, but "
                             f"received {type(seed).__name__}")
        self._seed = seed
        self._bump()

    def global_seed(self, seed: int = 0) -> None:
        """Set this program's random seed and the default seed of Programs created later."""
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"Program.global_seed: seed must be an integer, got "
                             f"{type(seed).__name__}")
        _SEED[0] = seed
        self.random_seed = seed

    # --- structure -------------------------------------------------------------------
    def global_block(self) -> Block:
        return self.blocks[0]

    def block(self, index: int) -> Block:
        return self.blocks[index]

    def current_block(self) -> Block:
        return self.blocks[self._current_block_idx]

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    def _create_block(self, parent_idx: int | None = None) -> Block:
        parent = self._current_block_idx if parent_idx is None else parent_idx
        block = Block(self, len(self.blocks), parent)
        self.blocks.append(block)
        self._current_block_idx = block.idx
        self._bump()
        return block

    def _rollback(self) -> None:
        self._current_block_idx = self.current_block().parent_idx

    def list_vars(self):
        for block in self.blocks:
            yield from block.vars.values()

    def all_parameters(self) -> list:
        return [p for block in self.blocks for p in block.all_parameters()]

    # --- copies ----------------------------------------------------------------------
    def clone(self, for_test: bool = False) -> "Program":
        """A copy of the program (shared constants and bound tensors); for_test marks it as
        inference: each OpDef's `test_attrs` are applied (dropout off, batch_norm on its
        running statistics)."""
        new = Program()
        new._seed = self._seed
        new._consts = dict(self._consts)
        new._bound = dict(self._bound)
        new._eager_ids = dict(self._eager_ids)
        new.blocks = []
        for block in self.blocks:
            nb = Block(new, block.idx, block.parent_idx)
            for v in block.vars.values():
                nv = Variable.__new__(type(v))
                nv.__dict__.update(v.__dict__)
                nv.block = nb
                nb.vars[v.name] = nv
            for op in block.ops:
                attrs = copy.deepcopy(op.attrs)
                if for_test:
                    opdef = REGISTRY.get(op.type)
                    if opdef is not None:
                        attrs.update(opdef.test_attrs)
                nb.ops.append(Operator(nb, op.type, _copy_slots(op.inputs),
                                       _copy_slots(op.outputs), attrs, op.namescope, op.loc,
                                       op.op_device))
            new.blocks.append(nb)
        new._is_test = for_test or self._is_test
        return new

    def __repr__(self) -> str:
        return self.to_string()

    __str__ = __repr__

    def to_string(self, throw_on_error: bool = False, with_details: bool = False) -> str:
        return "\n".join(b.to_string() for b in self.blocks)



_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_location(depth: int = 2) -> tuple | None:
    """(file, line) of the innermost caller outside sampan (the user's code that built an
    op), or None. Build time only: it walks the stack."""
    frame = sys._getframe(depth)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(_PACKAGE_DIR) and not name.startswith("<"):
            return name, frame.f_lineno
        frame = frame.f_back
    return None


def _copy_slots(table: dict) -> dict:
    return {k: (None if v is None else list(v)) for k, v in table.items()}


# --- the current programs -------------------------------------------------------------------

_SEED = [0]   # Program.global_seed: the random_seed new Programs start with


class _Defaults:
    """The process-wide default programs (what a thread sees until it switches)."""
    main = Program()
    startup = Program()
    scope_counts: dict = {}     # (parent path, prefix) -> times opened (Paddle's _1, _2...)


class _Local(threading.local):
    """Per-thread program pointers (program_guard in one thread never moves another's)."""

    def __init__(self) -> None:
        self.main = None        # None: the process-wide default
        self.startup = None
        self.name_scopes = []   # the open name_scope paths, innermost last
        self.devices = []       # the open device_guard devices, innermost last


_Current = _Local()


def current_name_scope() -> str:
    """The innermost open name_scope path ("/" outside any)."""
    return _Current.name_scopes[-1] if _Current.name_scopes else "/"


def current_device() -> str:
    """The device of the innermost open static.device_guard ("" outside any, or inside
    device_guard(None))."""
    return _Current.devices[-1] if _Current.devices else ""


@contextlib.contextmanager
def device_scope(device: str):
    """Record `device` on the Operators built inside (the state under static.device_guard;
    append_backward gives each gradient op its forward op's device)."""
    _Current.devices.append(device)
    try:
        yield
    finally:
        _Current.devices.pop()


def default_main_program() -> Program:
    """The Program that static-mode operators are appended to."""
    main = _Current.main
    return _Defaults.main if main is None else main


def default_startup_program() -> Program:
    """The Program holding parameter initialisers."""
    startup = _Current.startup
    return _Defaults.startup if startup is None else startup


def switch_main_program(program: Program) -> Program:
    old = default_main_program()
    _Current.main = program
    return old


def switch_startup_program(program: Program) -> Program:
    old = default_startup_program()
    _Current.startup = program
    return old


def _seed_default_programs(seed: int) -> None:
    """framework.random._manual_program_seed: the default Programs' and new Programs' seed."""
    default_main_program().random_seed = seed
    default_startup_program().random_seed = seed
    _SEED[0] = seed


_random.program_seed_setters.append(_seed_default_programs)


@contextlib.contextmanager
def name_scope(prefix: str | None = None):
    """Group the ops built inside under `prefix`: each Operator records the path of open
    scopes as `op.attr("op_namescope")` ("/enc/inner/"); reopening a name under the same
    parent gets "_1", "_2"... as in Paddle. Variable names are unaffected (as in Paddle)."""
    if prefix is not None and not isinstance(prefix, str):
        raise TypeError(f"name_scope: prefix must be a str or None, got "
                        f"{type(prefix).__name__}")
    parent = current_name_scope()
    if prefix:
        n = _Defaults.scope_counts.get((parent, prefix), 0)
        _Defaults.scope_counts[(parent, prefix)] = n + 1
        path = f"{parent}{prefix if n == 0 else f'{prefix}_{n}'}/"
    else:
        path = parent
    _Current.name_scopes.append(path)
    try:
        yield
    finally:
        _Current.name_scopes.pop()

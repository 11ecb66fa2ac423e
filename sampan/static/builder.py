"""The static builder: the build target that appends Operators to the current Block,
program_guard, enable_static/disable_static, and the Tensor API bound onto Variable.

Imports `framework`, `ops`, `tensor` and `static.program`.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ..framework import dtype as _dt
from ..framework.flags import STATE, in_dynamic_mode, set_target, target_guard
from ..framework.random import PROGRAM_SEED
from ..framework.tensor import Parameter as EagerParameter, Tensor, to_array, is_variable
from ..ops.dispatch import promote_inputs
from ..ops.opdef import REGISTRY, TensorSpec
from ..utils import unique_name
from . import program as _prog
from .program import Program, Variable, default_main_program

_DIFF_KINDS = "fc"


# --- appending operators ---------------------------------------------------------------------

def current_block():
    return default_main_program().current_block()


def append_op(op, inputs: tuple, attrs: dict, block=None, out_names=None):
    """Append `op` applied to `inputs` (Variables, eager Tensors, arrays, scalars, None;
    lists for variadic slots) to `block`; return its output Variable(s)."""
    block = block if block is not None else current_block()
    if len(inputs) != len(op.inputs):
        raise TypeError(f"{op.name}: expected {len(op.inputs)} inputs "
                        f"{list(op.input_names)}, got {len(inputs)}")
    values = []
    for slot, value, variadic in zip(op.input_names, inputs, op.variadic):
        if variadic:
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"{op.name}: {slot} must be a list or tuple of Tensors, got "
                                f"{type(value).__name__}")
            values.append([to_variable(block, op.name, slot, v) for v in value])
        else:
            values.append(None if value is None else to_variable(block, op.name, slot, value))
    if op.promote:
        with build_into(block):
            values = promote_inputs(op, values)
    full = {**op.attrs, **attrs}  # copied: `op.attrs` and callers' dicts may be shared
    if op.random and full.get("seed") == PROGRAM_SEED:  # framework/random.py: op_seed
        full["seed"] = block.program.random_seed
    specs = [None if v is None else [_spec(x) for x in v] if isinstance(v, list) else _spec(v)
             for v in values]
    out_specs = op.infer(*specs, **full)
    if not op.multi_out:
        out_specs = (out_specs,)
    needs = any(not x.stop_gradient for v in values if v is not None
                for x in (v if isinstance(v, list) else (v,)))
    differentiable = needs and op.vjp is not None
    outs = []
    for i, spec in enumerate(out_specs):
        name = out_names[i] if out_names else unique_name.generate("tmp")
        if spec is None:
            spec = TensorSpec((-1,), "float32")
        diff = differentiable and spec.dtype.kind in _DIFF_KINDS and i not in op.nondiff_outputs
        outs.append(block.create_var(name, spec.shape, spec.dtype, stop_gradient=not diff))
    in_table = {slot: ([x.name for x in v] if isinstance(v, list) else
                       [] if v is None else [v.name])
                for slot, v in zip(op.input_names, values)}
    if op.multi_out and len(op.outputs) == 1:  # "*out": a variable number of outputs
        out_table = {op.outputs[0].lstrip("*"): [o.name for o in outs]}
    else:
        out_table = {n: [o.name] for n, o in zip(op.outputs, outs)}
    block.append_op(op.name, in_table, out_table, full)
    return tuple(outs) if op.multi_out else outs[0]


def _spec(v: Variable) -> TensorSpec:
    return TensorSpec(v._shape, v._dtype)


def to_variable(block, api: str, slot: str, value) -> Variable:
    """A slot value as a Variable of `block`'s program: eager Parameters (and persistable
    tensors) become persistable Variables backed by the tensor; other eager values become
    constants."""
    if is_variable(value):
        if value.block.program is not block.program:
            raise ValueError(f"{api}: {slot} is Variable '{value.name}' of another Program; "
                             f"build everything under one program_guard")
        return value
    program = block.program
    if isinstance(value, Tensor):
        known = program._eager_ids.get(id(value))
        if known is not None:
            return program.global_block().vars[known[1]]
        glob = program.global_block()
        if isinstance(value, EagerParameter) or value.persistable:
            name = value.name
            if name in glob.vars:
                name = unique_name.generate(name)
            var = glob.create_var(name, value._data.shape, _dt.from_numpy(value._data.dtype),
                                  persistable=True, stop_gradient=value.stop_gradient)
            if isinstance(value, EagerParameter):
                var.is_parameter = True
                var.trainable = value.trainable
                for key in ("optimize_attr", "regularizer", "need_clip"):
                    setattr(var, key, getattr(value, key, None))
            program._bound[name] = value
        else:
            var = _constant(program, value._data)
        program._eager_ids[id(value)] = (value, var.name)
        return var
    try:
        arr = to_array(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{api}: {slot} must be a Tensor or Variable, got "
                        f"{type(value).__name__} ({e})") from None
    return _constant(program, arr)


def _constant(program, arr: np.ndarray) -> Variable:
    name = unique_name.generate("const")
    var = program.global_block().create_var(name, arr.shape, _dt.from_numpy(arr.dtype),
                                            persistable=True, stop_gradient=True)
    program._consts[name] = arr
    return var


# --- the build target ----------------------------------------------------------------------

def _has_variable(inputs) -> bool:
    for v in inputs:
        if is_variable(v):
            return True
        if v.__class__ in (list, tuple) and any(is_variable(x) for x in v):
            return True
    return False


def static_target(op, inputs, attrs, nxt):
    """The build target of static mode: a call on Variables (or a creation op, which has no
    inputs) appends an Operator to the current Block; anything else runs on (`nxt`)."""
    if not op.inputs or _has_variable(inputs):
        return append_op(op, inputs, attrs)
    return nxt(op, inputs, attrs)


def building_active() -> bool:
    """True while this thread builds a Program (the negation of `in_dynamic_mode`)."""
    return not in_dynamic_mode()


@contextlib.contextmanager
def building():
    """Build into the current main program in this thread for the duration (a no-op in
    static mode, which already does)."""
    if STATE.target is not None:
        yield
        return
    with target_guard(static_target):
        yield


@contextlib.contextmanager
def build_into(block):
    """Build into `block` (of the current main program) for the duration."""
    program = block.program
    old = _prog.switch_main_program(program)
    old_idx = program._current_block_idx
    program._current_block_idx = block.idx
    try:
        with building():
            yield
    finally:
        program._current_block_idx = old_idx
        _prog.switch_main_program(old)


@contextlib.contextmanager
def program_guard(main_program: Program, startup_program: Program | None = None):
    """Make `main_program` (and `startup_program`) this thread's default programs inside.

    As in Paddle, this does not switch the mode: ops are appended to `main_program` only in
    static mode (`paddle.enable_static()`); in dynamic mode `paddle.static.data` raises.
    """
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard: main_program must be a Program, got "
                        f"{type(main_program).__name__}")
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError(f"program_guard: startup_program must be a Program, got "
                        f"{type(startup_program).__name__}")
    old_main = _prog.switch_main_program(main_program)
    old_startup = _prog.switch_startup_program(startup_program) if startup_program else None
    try:
        yield
    finally:
        _prog.switch_main_program(old_main)
        if old_startup is not None:
            _prog.switch_startup_program(old_startup)


def enable_static() -> None:
    """Switch this thread to static graph mode: tensor API calls build Programs."""
    if STATE.target is None:
        set_target(static_target)


def disable_static(place=None) -> None:
    """Back to dynamic (eager) mode in this thread."""
    set_target(None)


# --- Tensor API on Variable ---------------------------------------------------------------------

def rebind(x: Variable, result: Variable) -> Variable:
    """End of an in-place op on a Variable: a persistable x is overwritten by an assign op;
    otherwise the handle x now names the result (SSA: the old value keeps its old name)."""
    if x.persistable:
        append_op(REGISTRY["assign"], (result,), {}, block=current_block(), out_names=None)
        op = current_block().ops[-1]
        tmp = op.outputs["out"][0]
        del current_block().vars[tmp]
        op.outputs["out"] = [x.name]
        return x
    block = x.block
    old = Variable.__new__(type(x))
    old.__dict__.update(x.__dict__)
    if block.vars.get(x.name) is x:
        block.vars[x.name] = old
    x.__dict__.update(result.__dict__)
    result.block.vars[result.name] = x
    return x


def _static_inplace(fn, api: str):
    def inplace(x, *args, **kwargs):
        if not is_variable(x):
            raise TypeError(f"{api}: x must be a Variable, got {type(x).__name__}")
        result = fn(x, *args, **kwargs)
        if result.dtype is not x.dtype:
            result = result.astype(x.dtype)
        return rebind(x, result)
    inplace.__name__ = api
    return inplace


def _bind_variable_methods() -> None:
    """Give Variable every function sampan.tensor bound on Tensor (methods and operators)."""
    from .. import tensor as _tensor
    own = set()
    for cls in Variable.__mro__[:-1]:
        own.update(cls.__dict__)
    for name, fn in list(Tensor.__dict__.items()):
        if name in own or not callable(fn) or not getattr(fn, "__module__", "").startswith(
                "sampan.tensor"):
            continue
        if name.endswith("_") and not name.startswith("__") and name[:-1] in _tensor.FUNCTIONS:
            fn = _static_inplace(_tensor.FUNCTIONS[name[:-1]], name)
        setattr(Variable, name, fn)
    Variable.__hash__ = lambda self: id(self)
    if "cast" in _tensor.FUNCTIONS:
        Variable.astype = _tensor.FUNCTIONS["cast"]


_bind_variable_methods()

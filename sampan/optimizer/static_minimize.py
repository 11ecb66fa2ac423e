"""Static `optimizer.minimize(loss)`: append_backward, grad clipping, regularization and the
optimizer's own update-rule OpDef appended once per parameter.

The eager optimizers describe their rule per parameter through `Optimizer._entry` (state
tensors, attrs, lr multiplier, regularizer) built by `_prepare`; here the same methods run
with `_add_accumulator` redirected to persistable Variables that the startup program fills,
so eager and static training apply one rule. An update op's outputs `<x>_out` are written
back to the variables of its inputs `<x>` (the parameter and its state), which the Executor
stores in the scope (or in the Layer's Parameter).

The Program keeps only the graph. What training needs beyond it stays with the optimizer
(`optimizer._static_state`: per Program, held weakly, the learning-rate variable's name and
each parameter's rule entry with its state variables by name) and with the Executor's run
state: the learning rate is a persistable variable that the startup program initialises and
that every `Executor.run` of the Program sets from the optimizer's current value (its float
lr or LRScheduler), as Paddle writes its learning-rate variable before each run. Imports
`framework`, `ops`, `static` and `optimizer.lr`.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..framework import dtype as _dt
from ..ops.opdef import REGISTRY
from ..static.backward import append_backward
from ..static.builder import append_op, build_into
from ..static.executor import set_run_value
from ..static.program import default_startup_program
from ..utils import unique_name
from ..framework.tensor import is_variable


class StaticState:
    """What one optimizer keeps per Program it was minimized into: the learning-rate
    variable's name and, per parameter name, `_entry`'s tuple with its state Variables
    replaced by their names (so the optimizer holds no reference to the Program)."""

    __slots__ = ("lr_name", "entries")

    def __init__(self) -> None:
        self.lr_name: str | None = None
        self.entries: dict = {}


class _LRValue:
    """The optimizer's current learning rate as a 0-D array of the LR variable's dtype
    (the Executor calls it at every run). Holds the optimizer weakly: once the optimizer is
    gone it returns None and the scope keeps the last value."""

    def __init__(self, optimizer, dtype) -> None:
        self._optimizer = weakref.ref(optimizer)
        self._np = dtype.np

    def __call__(self):
        optimizer = self._optimizer()
        return None if optimizer is None else np.array(optimizer.get_lr(), self._np)


class _ParamProxy:
    """What `_prepare`/`_entry` read from a parameter: name, `_data` (shape and dtype only:
    a zero-strided array), the optimize/regularization attributes."""

    def __init__(self, var) -> None:
        self.name = var.name
        self._data = np.broadcast_to(np.zeros((), var.dtype.np), tuple(var.shape))
        self.shape = var.shape
        self.dtype = var.dtype
        self.optimize_attr = getattr(var, "optimize_attr", None) or {"learning_rate": 1.0}
        self.regularizer = getattr(var, "regularizer", None)
        self.need_clip = getattr(var, "need_clip", True)
        self.trainable = True
        self.stop_gradient = False


def minimize(optimizer, loss, startup_program=None, parameters=None, no_grad_set=None):
    """Append the backward pass and `optimizer`'s update ops for `loss` to its program.

    Args:
        optimizer (Optimizer): supplies the update rule, state, lr, clipping and decay.
        loss (Variable): a one-element Variable of the program to train.
        startup_program (Program, optional): where the optimizer state is initialised;
            default the default startup program.
        parameters (list, optional): Parameters (Variables, eager Parameters or names) to
            train; default the optimizer's parameters, or every trainable parameter of the
            program when it has none.
        no_grad_set (set, optional): Variables (or names) that get no gradient.

    Returns:
        tuple: (the appended update operators, list of (parameter, gradient) pairs).
    """
    program = loss.block.program
    block = program.global_block()
    startup = startup_program if startup_program is not None else default_startup_program()
    api = f"{type(optimizer).__name__}.minimize"
    if optimizer._opdef is None:
        raise NotImplementedError(f"{api}: {type(optimizer).__name__} has no update OpDef "
                                  f"and cannot be used in static mode")
    wanted = list(parameters) if parameters is not None else optimizer._all_params()
    wanted = [p for p in wanted if _known(program, p)] if wanted else None
    if wanted == []:
        raise ValueError(f"{api}: none of the optimizer's parameters is used by the program "
                         f"of the loss")
    params_grads = [(p, g) for p, g in append_backward(loss, wanted, no_grad_set)
                    if g is not None]
    first = len(block.ops)
    groups = _groups_by_name(program, optimizer)
    state = optimizer._static_state.get(program)
    if state is None:
        state = optimizer._static_state[program] = StaticState()
    with build_into(block):
        lr_var = _lr_variable(program, startup, optimizer, state, params_grads)
        by_group: dict = {}
        for p, g in params_grads:
            by_group.setdefault(id(groups.get(p.name, optimizer._groups[0])), []).append((p, g))
        for group in optimizer._groups:
            pairs = by_group.pop(id(group), None)
            if pairs:
                _apply(optimizer, state, startup, group, pairs, lr_var)
        for pairs in by_group.values():  # parameters of no group: the first group's options
            _apply(optimizer, state, startup, optimizer._groups[0], pairs, lr_var)
    return block.ops[first:], params_grads


def _known(program, p) -> bool:
    if isinstance(p, str):
        return program.global_block().has_var(p)
    if is_variable(p):
        return p.block.program is program
    return id(p) in program._eager_ids


def _groups_by_name(program, optimizer) -> dict:
    """Parameter variable name -> the optimizer's parameter group holding it."""
    out = {}
    for group in optimizer._groups:
        for p in group["params"]:
            if isinstance(p, str):
                out[p] = group
            elif is_variable(p):
                out[p.name] = group
            else:
                known = program._eager_ids.get(id(p))
                if known is not None:
                    out[known[1]] = group
    return out


def _lr_variable(program, startup, optimizer, state: StaticState, params_grads):
    """The persistable 0-D learning-rate variable of `optimizer` in `program` (made once,
    "learning_rate_0" as in Paddle): initialised by the startup program, set by the
    Executor before every run, saved with the optimizer state by static.save."""
    block = program.global_block()
    if state.lr_name is not None:
        return block.var(state.lr_name)
    dtype = params_grads[0][0].dtype if params_grads else _dt.convert_dtype("float32")
    name = unique_name.generate("learning_rate")
    var = block.create_var(name, [], dtype, persistable=True, stop_gradient=True)
    _fill_in_startup(startup, name, [], dtype, float(optimizer.get_lr()))
    set_run_value(program, name, _LRValue(optimizer, dtype))
    state.lr_name = name
    return var


def _apply(optimizer, state: StaticState, startup, group, pairs, lr_var) -> None:
    clip = group.get("grad_clip", optimizer._grad_clip)
    if clip is not None:
        pairs = clip(pairs)
    opdef = optimizer._opdef
    block = lr_var.block
    for param, grad in pairs:
        if grad is None:
            continue
        _, states, attrs, mult, reg = _entry(optimizer, state, startup, param, group)
        if reg is not None:
            grad = grad + reg(param, grad)
        if grad.dtype is not param.dtype:
            grad = grad.astype(param.dtype)
        lr = lr_var if mult == 1.0 else lr_var * mult
        given = {"param": param, "grad": grad, "learning_rate": lr}
        rest = iter(block.var(s) if isinstance(s, str) else s._data for s in states)
        inputs = tuple(given[n] if n in given else next(rest) for n in opdef.input_names)
        outs = append_op(opdef, inputs, attrs)
        _write_back(block, opdef, outs if opdef.multi_out else (outs,), lr_var.name)


def _entry(optimizer, state: StaticState, startup, param, group) -> tuple:
    """optimizer._entry for a parameter Variable, with its accumulators as persistable
    Variables (kept by name per program, so the op sees the same state in every minimize)."""
    entry = state.entries.get(param.name)
    if entry is None:
        program = param.block.program

        def add_accumulator(name, p, fill_value=0.0, shape=None, dtype=None):
            return _accumulator(optimizer, program, startup, name, p, fill_value, shape, dtype)
        optimizer._add_accumulator = add_accumulator
        try:
            proxy, states, attrs, mult, reg = optimizer._entry(_ParamProxy(param), group)
        finally:
            del optimizer._add_accumulator
        names = tuple(s.name if is_variable(s) else s for s in states)
        entry = state.entries[param.name] = (proxy, names, attrs, mult, reg)
    return entry


def _accumulator(optimizer, program, startup, name, param, fill_value, shape, dtype):
    """A persistable state Variable named like the eager accumulator
    ("fc_0.w_0_moment1_0"), filled with `fill_value` by the startup program."""
    if optimizer._name is not None:
        name = f"{optimizer._name}_{name}"
    var_name = unique_name.generate(f"{param.name}_{name}")
    dims = list(param._data.shape if shape is None else shape)
    dt = param.dtype if dtype is None else _dt.convert_dtype(dtype)
    var = program.global_block().create_var(var_name, dims, dt, persistable=True,
                                            stop_gradient=True)
    _fill_in_startup(startup, var_name, dims, dt, fill_value)
    return var


def _fill_in_startup(startup, name: str, dims: list, dtype, value) -> None:
    with build_into(startup.global_block()):
        append_op(REGISTRY["full"], (), {"shape": dims, "fill_value": value,
                                         "dtype": dtype.name},
                  out_names=[name]).persistable = True


def _write_back(block, opdef, outs, lr_name: str) -> None:
    """Make the last op write each `<x>_out` into the variable of its input `<x>` (when that
    input is persistable state, not a constant nor the learning rate) instead of a fresh
    temporary."""
    op = block.ops[-1]
    program = block.program
    for slot, out in zip(opdef.outputs, outs):
        target = op.inputs[slot[:-4]][0]
        var = block._find_var(target)
        if not var.persistable or target in program._consts or target == lr_name:
            continue
        op.outputs[slot] = [target]
        del block.vars[out.name]
    program._bump()

"""Static autograd: append_backward and gradients.

Walks the forward ops in reverse and calls each OpDef's own `vjp` with a context whose values
are Variables, under the builder, so gradient ops are ordinary ops (`x@GRAD`). Several
contributions to one gradient are summed with `add_n`. Imports `framework`, `ops`,
`autograd` and `static`.
"""
from __future__ import annotations

from ..ops.dispatch import call
from ..ops.opdef import REGISTRY
from ..ops.vjp_context import fill_missing, flatten_grads, make_ctx, unbroadcast
from .builder import append_op, build_into, to_variable
from .control_flow_grad import StaticBlocks
from .program import Variable, device_scope
from ..framework.tensor import is_variable


def _names(value, api: str) -> list:
    """The names in a no_grad_set: a set, list or tuple of Variables or names (Paddle)."""
    if value is None:
        return []
    if isinstance(value, Variable):  # one Variable, as sampan has accepted
        return [value.name]
    if not isinstance(value, (list, tuple, set, frozenset)):
        raise TypeError(f"{api}: no_grad_set must be a set, list or tuple of Variables or "
                        f"names, got {type(value).__name__}")
    for v in value:
        if not isinstance(v, (Variable, str)):
            raise TypeError(f"{api}: no_grad_set members must be Variables or names, got "
                            f"{type(v).__name__} {v!r}")
    return [v.name if isinstance(v, Variable) else v for v in value]


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None,
                    checkpoints=None) -> list:
    """Append the gradient ops of `loss` to its program.

    Args:
        loss (Variable): the Variable to differentiate; a loss of several elements is
            seeded with ones (the gradient of its sum), as in Paddle.
        parameter_list (list, optional): Parameters (or names) to differentiate; default
            every trainable parameter of the program.
        no_grad_set (set, optional): Variables (or names) that get no gradient.

    Returns:
        list of (Parameter, gradient Variable) pairs: one per trainable parameter that
        reaches the loss, or, with `parameter_list`, one per given parameter (gradient None
        where it does not reach the loss).

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main, startup = paddle.static.Program(), paddle.static.Program()
        >>> with paddle.static.program_guard(main, startup):
        ...     x = paddle.static.data("x", [2, 3], "float32")
        ...     w = paddle.static.create_parameter([3, 1], "float32", name="w_doc")
        ...     loss = paddle.matmul(x, w).sum()
        ...     pairs = paddle.static.append_backward(loss)
        >>> [(p.name, g.name) for p, g in pairs]
        [('w_doc', 'w_doc@GRAD')]
        >>> exe = paddle.static.Executor()
        >>> _ = exe.run(startup)
        >>> exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[pairs[0][1]])[0]
        array([[2.],
               [2.],
               [2.]], dtype=float32)
        >>> paddle.disable_static()
    """
    if not is_variable(loss):
        _dynamic_mode_check("paddle.static.append_backward")
        raise TypeError(f"append_backward: loss must be a static Variable, got "
                        f"{type(loss).__name__}")
    block = loss.block
    program = block.program
    if parameter_list is None:
        params = [p for p in program.global_block().vars.values()
                  if p.is_parameter and not p.stop_gradient]
    else:
        params = [_param_var(program, p) for p in parameter_list]
    # NOTE: Variables are compared by name, never with `in`/`==` (Variable == builds an op)
    param_names = {p.name for p in params}
    # Paddle also names the gradients of data and of Variables the user marked
    # stop_gradient=False (`x.grad_name`), so those get `@GRAD` variables too
    leaves = [v for v in block.vars.values() if not v.stop_gradient
              and (v.is_data or v._sg_explicit) and v.name not in param_names]
    skip = set(_names(no_grad_set, "append_backward"))
    producers = [op for op in block.ops if loss.name in op.output_arg_names]
    with build_into(block), device_scope(producers[-1].op_device if producers else ""):
        seed = append_op(REGISTRY["full_like"], (loss,), {"fill_value": 1.0, "dtype": None},
                         out_names=[_grad_name(block, loss.name)])
        grads = _backward(block, [loss], [seed], params + leaves, skip)
    if parameter_list is None:
        return [(p, g) for p, g in zip(params, grads) if g is not None]
    return list(zip(params, grads))  # as Paddle 3: one pair per given parameter (or None)


def _dynamic_mode_check(api: str) -> None:
    """An eager Tensor given outside static building: Paddle's static-only error."""
    from .builder import building_active
    from .input import static_mode_error
    if not building_active():
        raise static_mode_error(api)


def _param_var(program, p) -> Variable:
    """A parameter_list item (Variable, name, or an eager Parameter used while building)."""
    if isinstance(p, Variable):
        return p
    if isinstance(p, str):
        return program.global_block().var(p)
    known = program._eager_ids.get(id(p))
    if known is None:
        raise ValueError(f"append_backward: parameter {getattr(p, 'name', p)!r} is not used "
                         f"by the program")
    return program.global_block().var(known[1])


def gradients(targets, inputs, target_gradients=None, no_grad_set=None) -> list:
    """Gradients of sum(targets * target_gradients) w.r.t. each of `inputs` (Variables),
    appended as ops to the targets' program; None where an input does not reach a target."""
    targets = list(targets) if isinstance(targets, (list, tuple)) else [targets]
    single = not isinstance(inputs, (list, tuple))
    inputs = [inputs] if single else list(inputs)
    for v in targets + inputs:
        if not is_variable(v):
            _dynamic_mode_check("paddle.static.gradients")
            raise TypeError(f"gradients: targets and inputs must be static Variables, got "
                            f"{type(v).__name__}")
    block = targets[0].block
    if target_gradients is None:
        target_gradients = [None] * len(targets)
    elif not isinstance(target_gradients, (list, tuple)):
        target_gradients = [target_gradients]
    if len(target_gradients) != len(targets):
        raise ValueError(f"gradients: got {len(target_gradients)} target_gradients for "
                         f"{len(targets)} targets")
    skip = set(_names(no_grad_set, "gradients"))
    with build_into(block):
        seeds = [append_op(REGISTRY["full_like"], (t,), {"fill_value": 1.0, "dtype": None},
                           out_names=[_grad_name(block, t.name)]) if g is None else g
                 for t, g in zip(targets, target_gradients)]
        return _backward(block, targets, seeds, inputs, skip)


def _grad_name(block, name: str) -> str:
    base = f"{name}@GRAD"
    new, k = base, 0
    while block.has_var(new):
        k += 1
        new = f"{base}@{k}"
    return new


def _flat_inputs(op, opdef) -> list:
    """Input names in the order of the vjp's flattened grads (None for empty slots)."""
    flat = []
    for slot, variadic in zip(opdef.input_names, opdef.variadic):
        names = op.inputs.get(slot) or []
        flat.extend(names if variadic else [names[0] if names else None])
    return flat


def _requires(ops, block, inputs, no_grad) -> set:
    """Names of variables through which a gradient w.r.t. `inputs` flows."""
    req = {v.name for v in inputs} - no_grad
    for op in ops:
        opdef = REGISTRY[op.type]
        if opdef.vjp is None or not any(n in req for n in op.input_arg_names):
            continue
        # as in eager mode: an integer input that needs a gradient makes every output
        # differentiable, whatever its dtype (Paddle)
        int_in = any(n in req and block._find_var(n).dtype.kind not in "fc"
                     for n in op.input_arg_names)
        for i, n in enumerate(op.output_arg_names):
            var = block._find_var(n)
            if ((var.dtype.kind in "fc" or int_in) and i not in opdef.nondiff_outputs
                    and n not in no_grad and not (var._sg_explicit and var.stop_gradient)):
                req.add(n)
    return req


def _backward(block, targets, seeds, inputs, no_grad) -> list:
    ops = list(block.ops)
    forward = set(block.vars)
    req = _requires(ops, block, inputs, no_grad)
    needed = {t.name for t in targets if t.name in req}
    path = []
    for op in reversed(ops):
        if any(n in needed for n in op.output_arg_names):
            ins = [n for n in op.input_arg_names if n in req]
            if ins and REGISTRY[op.type].vjp is not None:
                path.append(op)
                needed.update(ins)
    state = _GradState(block, forward)
    for t, g in zip(targets, seeds):
        state.taken.add(g.name)
        state.add(t.name, g)
    for op in path:
        with device_scope(op.op_device):   # as Paddle: a grad op runs where its op ran
            _backprop_op(op, block, state, req)
    return [state.final_for_input(v.name) for v in inputs]


class _GradState:
    """Gradient contributions per variable name, summed when the variable's op is reached."""

    def __init__(self, block, forward: set) -> None:
        self.block = block
        self.forward = forward
        self.contrib: dict = {}
        self.final: dict = {}
        self.taken: set = set()   # names that must not be renamed (finalized gradients)

    def add(self, name: str, g: Variable) -> None:
        self.contrib.setdefault(name, []).append(g)

    def fresh(self, g: Variable) -> bool:
        return g.name not in self.forward and g.name not in self.taken

    def get(self, name: str):
        if name in self.final:
            return self.final[name]
        gs = self.contrib.pop(name, None)
        if not gs:
            return None
        if len(gs) == 1:
            g = gs[0]
            if self.fresh(g):
                self.block.rename_var(g.name, _grad_name(self.block, name))
        else:
            g = append_op(REGISTRY["add_n"], (gs,), {}, out_names=[
                _grad_name(self.block, name)])
        self.taken.add(g.name)
        self.final[name] = g
        return g

    def final_for_input(self, name: str):
        g = self.get(name)
        if g is None or g.name.startswith(f"{name}@GRAD"):
            return g
        with build_into(self.block):
            return append_op(REGISTRY["assign"], (g,), {},
                             out_names=[_grad_name(self.block, name)])


def _backprop_op(op, block, state: _GradState, req: set) -> None:
    opdef = REGISTRY[op.type]
    out_names = op.output_arg_names
    grads = [state.get(n) for n in out_names]
    if all(g is None for g in grads):
        return
    grads = fill_missing(opdef, grads, lambda i: append_op(
        REGISTRY["full_like"], (block._find_var(out_names[i]),),
        {"fill_value": 0.0, "dtype": None}))
    flat_names = _flat_inputs(op, opdef)
    ctx = _op_ctx(op, opdef, block, flat_names, req)
    in_grads = flatten_grads(opdef, opdef.vjp(ctx, *grads))
    for name, g in zip(flat_names, in_grads):
        if name is None or g is None or name not in req:
            continue
        g = to_variable(block, f"vjp of {op.type}", name, g)
        var = block.var(name)
        g = unbroadcast(g, var.shape)
        if g.dtype is not var.dtype:
            g = call("cast", g, dtype=var.dtype.name)
        state.add(name, g)


def _op_ctx(op, opdef, block, flat_names: list, req: set):
    """The op's VjpContext (ops/vjp_context.py): its inputs and outputs as Variables; the
    fused (non-differentiable) gradient kernels are used (create_graph False); ops that run
    sub-blocks get the Program's block builder."""
    values, counts = {}, {}
    for slot, variadic in zip(opdef.input_names, opdef.variadic):
        names = op.inputs.get(slot) or []
        if variadic:
            values[slot] = [block.var(n) for n in names]
            counts[slot] = len(names)
        else:
            values[slot] = block.var(names[0]) if names else None
    out_names = op.output_arg_names
    if not opdef.outputs[0].startswith("*"):
        values.update((name, block.var(n)) for name, n in zip(opdef.outputs, out_names))
    else:
        values[opdef.outputs[0].lstrip("*")] = [block.var(n) for n in out_names]
    flat_needs = [n is not None and n in req for n in flat_names]
    in_shapes = [tuple(block.var(n).shape) if need else None
                 for n, need in zip(flat_names, flat_needs)]
    blocks = StaticBlocks(block.program, _backward) if opdef.runs_blocks else None
    return make_ctx(opdef, dict(op.attrs), values, flat_needs, in_shapes, False, counts,
                    blocks)

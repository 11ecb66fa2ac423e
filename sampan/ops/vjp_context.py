"""The backward rulebook every engine shares: the context a vjp rule sees, which output
gradients a rule receives as None, how its returned gradients are flattened and reduced to
the input's shape.

The eager engine (autograd/engine.py, tape of Tensors), the static backward
(static/backward.py, Variables of a Program) and fused_elementwise's chain vjp all build
their contexts and reduce broadcast gradients here, so a vjp rule sees the same thing under
every engine. Lives in `ops` (the OpDef contract) so that each of them can import it.
Imports `framework`, `backend` and `ops.dispatch`/`ops.opdef`.

`grad_call` runs a rule's gradient arithmetic straight on the kernels when nothing would be
recorded (eager backward without create_graph): the forward hot path's trick for backward.
"""
from __future__ import annotations

import numpy as np

from ..backend import numpy_ as _xp
from ..framework.flags import HOT
from ..framework.tensor import Parameter, Tensor
from .dispatch import _check, call
from .opdef import REGISTRY

_call = call

_ND = np.ndarray
_new = object.__new__
_asarray = np.asarray


def grad_call(ctx, name: str, *inputs, **attrs):
    """`call(name, *inputs, **attrs)` for a vjp rule's gradient arithmetic.

    When the result is not recorded (`ctx.create_graph` False: the eager engine runs the rule
    with grad mode off), no dispatch wrapper or static build target is installed and the
    inputs are Tensors on host arrays (or None), the op's kernel runs on the arrays directly:
    the compute eager dispatch would run, without its per-call bookkeeping. Anything else
    (Variables, device arrays, promotion, a kernel error to explain) goes through dispatch;
    an op that checks its inputs with `infer` is checked as dispatch checks it.
    """
    if ctx.create_graph or HOT.active:
        return call(name, *inputs, **attrs)
    return direct(name, inputs, attrs)


def _direct(name: str, *inputs, **attrs):
    return direct(name, inputs, attrs)


def direct(name: str, inputs: tuple, attrs: dict):
    """The kernel of op `name` on host Tensors, wrapped without a tape node; dispatch where
    that is not the same thing (see grad_call). Only for results that are not recorded."""
    op = REGISTRY[name]
    if op.multi_out:
        return call(name, *inputs, **attrs)
    arrays = []
    for t in inputs:
        cls = t.__class__
        if cls is Tensor or cls is Parameter:
            data = t._data
            if data.__class__ is not _ND:
                return call(name, *inputs, **attrs)
            arrays.append(data)
        elif t is None:
            arrays.append(None)
        else:
            return call(name, *inputs, **attrs)
    if op.promote and arrays[0].dtype is not arrays[-1].dtype:
        return call(name, *inputs, **attrs)
    if op.check:
        _check(op, arrays, attrs)
    try:
        out = op.compute(_xp, *arrays, **attrs)
    except Exception:   # dispatch runs it again and explains the error
        return call(name, *inputs, **attrs)
    t = _new(Tensor)
    t._data = out if out.__class__ is _ND else _asarray(out)
    return t


class VjpContext:
    """What `OpDef.vjp(ctx, *grads)` sees.

    - every attr by name (defaults filled in) and `ctx.attrs`, the dict;
    - the inputs and outputs the op `saves`, by name (Tensors in eager mode, Variables in a
      Program; a list for a variadic slot);
    - `needs`: per input slot, whether it needs a gradient (a tuple of bools for a variadic
      slot);
    - `in_shapes`: per flattened input, its shape where it needs a gradient, else None (a
      rule that only needs an input's shape can leave the input out of `saves`);
    - `create_graph`: True when the gradients must themselves be differentiable (eager
      backward with create_graph=True). A rule may call a fused kernel that has no vjp of
      its own (`_batch_norm_vjp`) only when it is False; never read grad mode instead;
    - `blocks`: for ops with `runs_blocks`, the engine's sub-block builder (the protocol is
      in ops/control_flow.py), None where the engine running the vjp cannot build blocks.
    """

    def __init__(self, attrs: dict, needs: tuple, in_shapes: list, create_graph: bool,
                 blocks=None) -> None:
        self.__dict__.update(attrs)
        self.attrs = attrs
        self.needs = needs
        self.in_shapes = in_shapes
        self.create_graph = create_graph
        self.blocks = blocks


def make_ctx(op, attrs: dict, values: dict, flat_needs, in_shapes: list,
             create_graph: bool, counts: dict | None = None, blocks=None) -> VjpContext:
    """The one context builder.

    attrs: the op's attrs with defaults merged in. values: {input/output name: value}.
    flat_needs: per flattened input, whether it needs a gradient. counts: {variadic slot:
    number of inputs} (default: whatever the other slots leave over)."""
    ctx = _new(VjpContext)   # VjpContext.__init__'s fields, set without the call
    d = ctx.__dict__
    d.update(attrs)
    d["attrs"] = attrs
    d["needs"] = group_needs(op, flat_needs, counts) if op.has_variadic else tuple(flat_needs)
    d["in_shapes"] = in_shapes
    d["create_graph"] = create_graph
    d["blocks"] = blocks
    if values:
        d.update(values)
    return ctx


def group_needs(op, flat_needs, counts: dict | None = None) -> tuple:
    """Per input slot: a bool, or a tuple of bools for a variadic slot."""
    if not op.has_variadic:
        return tuple(flat_needs)
    needs = []
    pos = 0
    for variadic, name in zip(op.variadic, op.input_names):
        if variadic:
            count = counts.get(name) if counts else None
            if count is None:
                count = len(flat_needs) - (len(op.input_names) - 1)
            needs.append(tuple(flat_needs[pos:pos + count]))
            pos += count
        else:
            needs.append(flat_needs[pos])
            pos += 1
    return tuple(needs)


def fill_missing(op, grads: list, zeros) -> list:
    """The output gradients a rule receives: where an output got none, zeros (`zeros(i)`
    makes them), except None for outputs in `op.nondiff_outputs`, and None for every output
    when `op.none_grads` (the rule skips their terms: no full-size zeros allocated and
    multiplied, e.g. the unused softmax output of softmax_with_cross_entropy)."""
    if op.none_grads:
        return grads
    nondiff = op.nondiff_outputs
    return [g if g is not None or i in nondiff else zeros(i) for i, g in enumerate(grads)]


def flatten_grads(op, grads) -> list:
    """A rule's result (one entry per input slot, a list for a variadic slot) flattened to
    one gradient per flattened input."""
    if not isinstance(grads, (tuple, list)):
        grads = (grads,)
    if len(grads) != len(op.input_names):
        raise RuntimeError(f"vjp of '{op.name}' returned {len(grads)} gradients for "
                           f"{len(op.input_names)} inputs")
    if not op.has_variadic:
        return list(grads)
    flat = []
    for g, variadic in zip(grads, op.variadic):
        if variadic:
            flat.extend(g)
        else:
            flat.append(g)
    return flat


def unbroadcast(grad, shape, recorded: bool = True):
    """Sum `grad` (Tensor or Variable) over the dims broadcasting added or expanded to reach
    `shape`; -1 (unknown) dims are left as they are. `recorded` False (eager backward
    without create_graph): the sums may run on the kernels directly (see grad_call)."""
    gshape = list(grad.shape)
    shape = list(shape)
    if gshape == shape:
        return grad
    call = _call if recorded or HOT.active else _direct
    lead = len(gshape) - len(shape)
    if lead > 0:
        grad = call("sum", grad, axis=list(range(lead)), keepdim=False, dtype=None)
        gshape = gshape[lead:]
    axes = [i for i, (d, gd) in enumerate(zip(shape, gshape)) if d == 1 and gd != 1]
    if axes:
        grad = call("sum", grad, axis=axes, keepdim=True, dtype=None)
        gshape = [1 if i in axes else d for i, d in enumerate(gshape)]
    if gshape != shape and -1 not in shape:
        grad = call("reshape", grad, shape=shape)
    return grad

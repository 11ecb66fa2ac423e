"""PyLayer: user-defined forward/backward pairs recorded on the same tape as OpDefs.

Eager: a PyLayer call becomes one GradNode whose op is a small per-class OpDef whose `vjp`
calls the user's `backward`; written in sampan ops it is differentiable again (create_graph).
Static (to_static, Programs): the call is one `py_layer` op (static_py_layer.py) that keeps
the class's forward and backward.
"""
from __future__ import annotations

import numpy as np

from ..framework.flags import STATE, in_dynamic_mode
from ..framework.node import GradNode
from ..framework.tensor import Tensor, is_variable, wrap
from ..ops.opdef import OpDef
from .py_layer_context import PyLayerContext
from .static_py_layer import static_apply


class _PyLayerOp(OpDef):
    inputs = ("*xs",)
    saves = ()
    none_grads = True  # vjp materializes the missing output grads itself (or not)
    user_grads = True  # its grads are the user's tensors: a leaf's .grad keeps their flag

    def __init__(self, layer_cls, user_ctx, outs: list, inputs: list) -> None:
        self.name = f"py_layer:{layer_cls.__name__}"
        self.outputs = tuple(f"out{i}" for i in range(len(outs)))
        super().__init__()
        self.layer_cls = layer_cls
        self.user_ctx = user_ctx
        # backward receives one gradient per Tensor output, as in Paddle
        self.tensor_outs = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        self.out_meta = [(outs[i]._data.shape, outs[i]._data.dtype) for i in self.tensor_outs]
        self.in_dtypes = [t.dtype for t in inputs]

    def vjp(self, ctx, *grads):
        grads = [grads[i] for i in self.tensor_outs]
        if self.user_ctx.materialize_grads:
            grads = [g if g is not None else _zeros(meta)
                     for g, meta in zip(grads, self.out_meta)]
        result = self.layer_cls.backward(self.user_ctx, *grads)
        if not isinstance(result, (tuple, list)):
            result = (result,)
        expected = len(ctx.needs[0])
        name = self.layer_cls.__name__
        if len(result) != expected:
            raise ValueError(f"{name}.backward returned {len(result)} gradients but forward "
                             f"received {expected} Tensor inputs")
        out = []
        for g, dtype in zip(result, self.in_dtypes):
            if g is not None and not isinstance(g, Tensor):
                raise ValueError(f"{name}.backward must return Tensors (or None), got "
                                 f"{type(g).__name__}")
            out.append(g if g is None or g.dtype == dtype else g.astype(dtype))
        return (out,)


def _zeros(meta):
    shape, dtype = meta
    return wrap(np.zeros(shape, dtype))


def _check_outputs(cls, outs) -> None:
    items = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    if not any(isinstance(o, Tensor) for o in items):
        raise ValueError(f"{cls.__name__}.forward must return at least one Tensor, got "
                         f"{type(outs).__name__}")


class _MissingBackward(NotImplementedError, OSError):
    """A PyLayer without backward (Paddle raises OSError here)."""


def _check_inplace_output(cls, ctx, t) -> None:
    """An input returned as it is counts as modified in place (Paddle), which a leaf that
    needs a gradient refuses unless forward called ctx.mark_not_inplace on it."""
    if id(t) not in ctx._not_inplace and t._node is None and not t.stop_gradient:
        raise ValueError(f"{cls.__name__}.forward returns its input leaf Tensor ({t.name}) "
                         f"that doesn't stop gradient as it is, which is an in-place use; "
                         f"call ctx.mark_not_inplace(x) or return a new Tensor")


class PyLayer:
    """Subclass with static `forward(ctx, ...)` and `backward(ctx, *grads)`; call `.apply`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses must define forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grads):
        raise _MissingBackward("PyLayer subclasses must define backward(ctx, *grads)")

    @classmethod
    def apply(cls, *args, **kwargs):
        if not in_dynamic_mode() and any(is_variable(a) for a in (*args, *kwargs.values())):
            return static_apply(cls, args, kwargs)
        ctx = PyLayerContext()
        prev = STATE.grad_enabled
        STATE.grad_enabled = False
        try:
            outs = cls.forward(ctx, *args, **kwargs)
        finally:
            STATE.grad_enabled = prev
        _check_outputs(cls, outs)
        inputs = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        if not prev or all(t.stop_gradient for t in inputs):
            return outs
        single = isinstance(outs, Tensor)
        out_list = [outs] if single else list(outs)
        op = _PyLayerOp(cls, ctx, out_list, inputs)
        edges = [None if t.stop_gradient else (t if t._node is None else (t._node, t._out_idx))
                 for t in inputs]
        node = GradNode(op, {}, edges)
        node.out_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), None)
                         for o in out_list]
        input_ids = {id(t) for t in inputs}
        linked = []
        for i, o in enumerate(out_list):
            if isinstance(o, Tensor) and id(o) not in ctx._non_diff:
                if id(o) in input_ids:
                    _check_inplace_output(cls, ctx, o)
                    o = o._alias()
                o._node = node
                o._out_idx = i
                o.stop_gradient = False
            linked.append(o)
        return linked[0] if single else type(outs)(linked) if isinstance(outs, tuple) else linked

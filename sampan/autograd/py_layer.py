"""PyLayer: user-defined forward/backward pairs recorded on the same tape as OpDefs.

Eager: a PyLayer call becomes one GradNode whose op is a small per-class OpDef whose `vjp`
calls the user's `backward`; written in sampan ops it is differentiable again (create_graph).
Static (to_static, Programs): the call is one `py_layer` op (static_py_layer.py) that keeps
the class's forward and backward.
"""
from __future__ import annotations

from ..framework.flags import STATE, in_dynamic_mode
from ..framework.node import GradNode
from ..framework.tensor import Tensor, is_variable
from ..ops.opdef import OpDef
from .py_layer_context import PyLayerContext
from .static_py_layer import static_apply


class _PyLayerOp(OpDef):
    inputs = ("*xs",)
    saves = ()

    def __init__(self, layer_cls, user_ctx, n_out: int) -> None:
        self.name = f"py_layer:{layer_cls.__name__}"
        self.outputs = tuple(f"out{i}" for i in range(n_out))
        super().__init__()
        self.layer_cls = layer_cls
        self.user_ctx = user_ctx

    def vjp(self, ctx, *grads):
        result = self.layer_cls.backward(self.user_ctx, *grads)
        if not isinstance(result, (tuple, list)):
            result = (result,)
        expected = len(ctx.needs[0])
        if len(result) != expected:
            raise ValueError(f"{self.layer_cls.__name__}.backward returned {len(result)} "
                             f"gradients but forward received {expected} Tensor inputs")
        return (list(result),)


class PyLayer:
    """Subclass with static `forward(ctx, ...)` and `backward(ctx, *grads)`; call `.apply`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses must define forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("PyLayer subclasses must define backward(ctx, *grads)")

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
        inputs = [a for a in list(args) + list(kwargs.values()) if isinstance(a, Tensor)]
        if not prev or all(t.stop_gradient for t in inputs):
            return outs
        single = isinstance(outs, Tensor)
        out_list = [outs] if single else list(outs)
        op = _PyLayerOp(cls, ctx, len(out_list))
        edges = [None if t.stop_gradient else (t if t._node is None else (t._node, t._out_idx))
                 for t in inputs]
        node = GradNode(op, {}, edges)
        node.out_meta = [(o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), None)
                         for o in out_list]
        input_ids = {id(t) for t in inputs}
        linked = []
        for i, o in enumerate(out_list):
            if isinstance(o, Tensor) and id(o) not in ctx._non_diff and o.dtype.kind in "fc":
                if id(o) in input_ids:
                    o = o._alias()
                o._node = node
                o._out_idx = i
                o.stop_gradient = False
            linked.append(o)
        return linked[0] if single else type(outs)(linked) if isinstance(outs, tuple) else linked

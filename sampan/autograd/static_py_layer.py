"""The `py_layer` op: a PyLayer call in a static Program (to_static, jit.save) as one op that
keeps the class's forward and backward. Its attrs name the class ("module:qualname", found
again by import in a fresh process) and the non-tensor arguments (JSON); compute runs the
forward eagerly, and the vjp is a second py_layer op (backward=True) that reruns the forward
for its ctx and calls the user's backward. Imports `framework` and `ops`.
"""
from __future__ import annotations

import importlib

from ..framework.flags import STATE, dispatch_bypass
from ..framework.tensor import Tensor, is_variable, wrap
from ..ops.dispatch import call, dispatch
from ..ops.opdef import OpDef, TensorSpec, register
from .py_layer_context import PyLayerContext

_CLASSES: dict = {}   # "module:qualname" -> PyLayer subclass (classes traced in this process)
_CONST = (type(None), bool, int, float, str)


def _key(cls) -> str:
    key = f"{cls.__module__}:{cls.__qualname__}"
    _CLASSES[key] = cls
    return key


def _resolve(key: str):
    cls = _CLASSES.get(key)
    if cls is not None:
        return cls
    module, _, qualname = key.partition(":")
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise RuntimeError(f"py_layer: the PyLayer class {key!r} cannot be found in this "
                           f"process ({e}); define it at module level in an importable "
                           f"module") from None
    _CLASSES[key] = obj
    return obj


def _layout(cls, args, kwargs) -> tuple:
    """(the tensor arguments, JSON layout of all arguments: ["t", k] or ["c", value])."""
    tensors, layout = [], []
    for name, value in [(None, a) for a in args] + list(kwargs.items()):
        if is_variable(value) or isinstance(value, Tensor):
            layout.append([name, "t", len(tensors)])
            tensors.append(value)
        elif isinstance(value, _CONST) or (isinstance(value, (list, tuple)) and
                                           all(isinstance(v, _CONST) for v in value)):
            layout.append([name, "c", list(value) if isinstance(value, tuple) else value])
        else:
            raise TypeError(f"{cls.__name__}.apply in a static graph: argument "
                            f"{name or len(layout)} of type {type(value).__name__} is neither "
                            f"a Tensor nor a JSON constant")
    return tensors, layout


def _rebuild(layout, tensors) -> tuple:
    args, kwargs = [], {}
    for name, kind, value in layout:
        value = tensors[value] if kind == "t" else value
        if name is None:
            args.append(value)
        else:
            kwargs[name] = value
    return args, kwargs


def _as_list(outs) -> list:
    return [outs] if not isinstance(outs, (list, tuple)) else list(outs)


def _trace_outputs(cls, args, kwargs, var) -> tuple:
    """(forward's output Variables, whether it returned one Tensor), traced into a scratch
    block that is then dropped: only their shapes and dtypes are kept."""
    program = var.block.program
    block = program._create_block()
    prev, STATE.grad_enabled = STATE.grad_enabled, False
    try:
        outs = cls.forward(PyLayerContext(), *args, **kwargs)
    finally:
        STATE.grad_enabled = prev
        program._rollback()
        if program.blocks[-1] is block:
            program.blocks.pop()
    single = not isinstance(outs, (list, tuple))
    outs = _as_list(outs)
    for k, o in enumerate(outs):
        if not is_variable(o):
            raise TypeError(f"{cls.__name__}.forward in a static graph must return Tensors, "
                            f"output {k} is {type(o).__name__}")
    return outs, single


def static_apply(cls, args, kwargs):
    """PyLayer.apply while building a static graph: one py_layer op."""
    tensors, layout = _layout(cls, args, kwargs)
    var = next(t for t in tensors if is_variable(t))
    outs, single = _trace_outputs(cls, args, kwargs, var)
    result = dispatch(PY_LAYER, (tensors,), {
        "layer": _key(cls), "layout": layout, "n_inputs": len(tensors), "backward": False,
        "out_shapes": [list(o.shape) for o in outs],
        "out_dtypes": [o.dtype.name for o in outs]})
    result = list(result)
    return result[0] if single else tuple(result)


def _run_user(attrs: dict, arrays: list):
    """Run the forward (and, for backward=True, the backward) eagerly on arrays."""
    cls = _resolve(attrs["layer"])
    n = attrs["n_inputs"]
    tensors = [wrap(a) for a in arrays[:n]]
    args, kwargs = _rebuild(attrs["layout"], tensors)
    ctx = PyLayerContext()
    with dispatch_bypass():
        prev, STATE.grad_enabled = STATE.grad_enabled, False
        try:
            outs = _as_list(cls.forward(ctx, *args, **kwargs))
            if not attrs["backward"]:
                return outs
            grads = cls.backward(ctx, *[wrap(a) for a in arrays[n:]])
        finally:
            STATE.grad_enabled = prev
    grads = _as_list(grads)
    if len(grads) != n:
        raise ValueError(f"{cls.__name__}.backward returned {len(grads)} gradients but "
                         f"forward received {n} Tensor inputs")
    return [t * 0 if g is None else g for g, t in zip(grads, tensors)]


@register
class PyLayerOp(OpDef):
    """outs = cls.forward(ctx, *args) of a PyLayer class named by attr `layer`; with
    backward=True, inputs are (tensor inputs, output gradients) and outputs the input
    gradients from cls.backward. Not differentiable twice (the backward op has no vjp)."""
    name = "py_layer"
    inputs = ("*xs",)
    outputs = ("*out",)
    attrs = {"layer": "", "layout": [], "n_inputs": 0, "backward": False, "out_shapes": [],
             "out_dtypes": []}
    saves = ("xs",)
    side_effects = True

    def infer(self, xs, **attrs):
        attrs = {**self.attrs, **attrs}
        if attrs["backward"]:
            return tuple(TensorSpec(s.shape, s.dtype) for s in xs[:attrs["n_inputs"]])
        return tuple(TensorSpec(s, d) for s, d in zip(attrs["out_shapes"],
                                                       attrs["out_dtypes"]))

    def compute(self, xp, xs, **attrs):
        attrs = {**self.attrs, **attrs}
        outs = _run_user(attrs, list(xs))
        return tuple(xp.asarray(getattr(o, "_data", o)) for o in outs)

    def vjp(self, ctx, *grads):
        if ctx.attrs["backward"]:
            return ([None] * len(ctx.xs),)
        gx = call("py_layer", list(ctx.xs) + list(grads), **{**ctx.attrs, "backward": True})
        return ([g if need else None for g, need in zip(gx, ctx.needs[0])],)


PY_LAYER = PyLayerOp

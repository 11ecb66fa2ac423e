"""sampan.onnx.load: an ONNX model as a sampan Layer (runs, fine-tunes, re-exports) and
sampan.onnx.load_program: the same graph traced into a static Program.

The Layer interprets the graph node by node with public sampan ops (import_ops.OPS), so one
definition serves eager runs, autograd and static tracing. Floating-point initializers become
trainable Parameters; other initializers stay constants. If/Loop run through
static.nn.cond / while_loop. Imports `framework`, `tensor`, `static`, `nn` and `onnx` lazily.
"""
from __future__ import annotations

import os
import re

import numpy as np

from .. import tensor as T
from ..nn import Layer
from ..nn.initializer import Assign
from ..static import nn as static_nn
from .import_ops import OPS, concrete, tensor


def _read(path_or_model):
    import onnx
    if isinstance(path_or_model, onnx.ModelProto):
        model = path_or_model
    else:
        if not isinstance(path_or_model, str) or not os.path.isfile(path_or_model):
            raise FileNotFoundError(f"onnx.load: no ONNX file at {path_or_model!r}")
        try:
            model = onnx.load(path_or_model)
            onnx.checker.check_model(model)
        except Exception as e:   # noqa: BLE001 (protobuf and checker errors alike)
            raise ValueError(f"onnx.load: {path_or_model!r} is not a valid ONNX model: "
                             f"{e}") from None
    for imp in model.opset_import:
        if imp.domain not in ("", "ai.onnx"):
            raise ValueError(f"onnx.load: operator domain {imp.domain!r} is not supported "
                             f"(only ai.onnx)")
    missing = sorted(_op_types(model.graph) - set(OPS) - {"If", "Loop"})
    if missing:
        raise NotImplementedError(f"onnx.load: {len(missing)} ONNX operator type(s) are not "
                                  f"supported: {', '.join(missing)}")
    return model


def _op_types(graph) -> set:
    types = set()
    for node in graph.node:
        types.add(node.op_type)
        for a in node.attribute:
            if a.g.node:
                types |= _op_types(a.g)
    return types


class _Ctx:
    def __init__(self, n_out: int) -> None:
        self.n_out = n_out


class ONNXModel(Layer):
    """A Layer that runs an imported ONNX graph; forward(*inputs) in graph-input order returns
    one Tensor or a list (several outputs)."""

    def __init__(self, model) -> None:
        super().__init__()
        from onnx import numpy_helper
        self._graph = model.graph
        self._consts: dict = {}
        self._param_names: dict = {}
        for init in model.graph.initializer:
            arr = numpy_helper.to_array(init)
            if arr.dtype.kind == "f" and arr.ndim > 0:
                attr = "p_" + re.sub(r"\W", "_", init.name)
                p = self.create_parameter(list(arr.shape), str(arr.dtype),
                                          default_initializer=Assign(arr))
                self.add_parameter(attr, p)
                self._param_names[init.name] = attr
            else:
                self._consts[init.name] = arr
        known = {i.name for i in model.graph.initializer}
        self.input_names = [i.name for i in model.graph.input if i.name not in known]
        self.output_names = [o.name for o in model.graph.output]

    def forward(self, *inputs):
        if len(inputs) != len(self.input_names):
            raise ValueError(f"ONNXModel: expected {len(self.input_names)} inputs "
                             f"{self.input_names}, got {len(inputs)}")
        env = dict(self._consts)
        env.update((n, getattr(self, a)) for n, a in self._param_names.items())
        env.update(zip(self.input_names, inputs))
        outs = [tensor(v) for v in self._run(self._graph, env)]
        return outs[0] if len(outs) == 1 else outs

    def _run(self, graph, env: dict) -> list:
        for node in graph.node:
            self._node(node, env)
        return [env[o.name] for o in graph.output]

    def _node(self, node, env: dict) -> None:
        from onnx import helper
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in attrs.items()}
        ins = [env[n] if n else None for n in node.input]
        try:
            if node.op_type == "If":
                outs = self._if(ins[0], attrs, env, len(node.output))
            elif node.op_type == "Loop":
                outs = self._loop(ins, attrs, env, len(node.output))
            else:
                outs = OPS[node.op_type](_Ctx(len(node.output)), ins, attrs)
        except (ValueError, TypeError, IndexError) as e:
            raise type(e)(f"onnx.load: node {node.name or node.op_type} ({node.op_type}, "
                          f"outputs {list(node.output)}): {e}") from e
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        for name, v in zip(node.output, outs):
            if name:
                env[name] = v

    def _if(self, cond, attrs, env, n_out):
        def branch(g):
            return lambda: [tensor(v) for v in self._run(g, dict(env))]
        if isinstance(cond, np.ndarray):
            return branch(attrs["then_branch" if cond.reshape(-1)[0] else "else_branch"])()
        pred = T.reshape(T.cast(cond, "bool"), [])
        outs = static_nn.cond(pred, branch(attrs["then_branch"]), branch(attrs["else_branch"]))
        return outs if isinstance(outs, (list, tuple)) else [outs]

    def _loop(self, ins, attrs, env, n_out):
        body = attrs["body"]
        names = [i.name for i in body.input]
        if len(body.output) - 1 != len(ins) - 2:
            raise ValueError("Loop scan outputs are not supported")
        trip = ins[0]
        limit = None if trip is None else T.to_tensor(np.int64(concrete(trip, "Loop M")[0]))
        cond0 = T.to_tensor(np.bool_(True)) if ins[1] is None else \
            T.reshape(T.cast(tensor(ins[1]), "bool"), [])
        start = [T.to_tensor(np.int64(0)), cond0] + [tensor(v) for v in ins[2:]]

        def keep_going(i, c, *xs):
            return c if limit is None else T.logical_and(c, i < limit)

        def step(i, c, *xs):
            local = dict(env)
            local.update(zip(names, [i, c] + list(xs)))
            outs = [tensor(v) for v in self._run(body, local)]
            return [i + 1, T.reshape(T.cast(outs[0], "bool"), [])] + outs[1:]
        return static_nn.while_loop(keep_going, step, start)[2:]


def load(path) -> ONNXModel:
    """Load an ONNX model (a path or an onnx.ModelProto) as a sampan Layer.

    The Layer runs the graph with sampan operators, so it runs eagerly, trains (its
    floating-point initializers are Parameters), converts with paddle.jit.to_static and
    exports again with paddle.onnx.export. Unsupported ONNX operator types are listed in one
    NotImplementedError.

    Args:
        path (str|onnx.ModelProto): the model file (or a loaded model).

    Returns:
        ONNXModel: the Layer; `input_names` / `output_names` name the graph's inputs/outputs.

    Examples:
        >>> import sampan as paddle
        >>> net = paddle.onnx.load("/tmp/doc_onnx/mlp.onnx")  # doctest: +SKIP
    """
    return ONNXModel(_read(path))


def load_program(path) -> tuple:
    """The ONNX model as a static Program: (program, feed names, fetch Variables), with the
    Layer's Parameters bound to it (so it runs with static.Executor)."""
    from ..static import InputSpec
    from ..jit.api import StaticFunction
    model = _read(path)
    layer = ONNXModel(model)
    specs = []
    for inp in model.graph.input:
        if inp.name not in layer.input_names:
            continue
        t = inp.type.tensor_type
        from onnx import helper
        shape = [d.dim_value if d.HasField("dim_value") else -1 for d in t.shape.dim]
        specs.append(InputSpec(shape, str(helper.tensor_dtype_to_np_dtype(t.elem_type)),
                               inp.name))
    concrete_program = StaticFunction(layer.forward).get_concrete_program(*specs)[0]
    return (concrete_program.main_program, [v.name for v in concrete_program.inputs],
            list(concrete_program.outputs))

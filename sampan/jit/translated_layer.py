"""TranslatedLayer: a model loaded by paddle.jit.load, run in dynamic mode without its source.

It owns eager Parameters/buffers made from the saved values, bound to the saved Program and
two run copies of it: the inference copy (eval) and a training copy with the saved training attrs
restored (dropout on, batch_norm on batch statistics), each run through the run_program op,
so it trains and fine-tunes like any Layer. NOTE: TranslatedLayer is an nn.Layer (as in
Paddle), the one import of `nn` from `jit`.
"""
from __future__ import annotations

import numpy as np

from ..framework.flags import in_dynamic_mode
from ..framework.tensor import Parameter, Tensor, is_variable, to_array, wrap
from ..nn.layer.layers import Layer
from ..static.builder import _constant, current_block, to_variable
from ..utils import unique_name
from .pytree import unflatten
from .runner import ProgramRunner


class TranslatedLayer(Layer):
    """The Layer `paddle.jit.load` returns. Call it like the saved layer's forward
    (positional tensor inputs in the saved order); `program()` is the inference Program."""

    def __init__(self, program, meta: dict, values: dict, path: str = "") -> None:
        super().__init__()
        jit = meta.get("jit") or {}
        self.__dict__["_path"] = path
        self.__dict__["_test_program"] = program
        self.__dict__["_eval_program"] = program.clone()
        self.__dict__["_train_program"] = _train_copy(program, jit.get("train_attrs", []))
        self.__dict__["_out_tree"] = _out_tree(jit, program)
        info = jit.get("params", {})
        params = []
        for v in program.list_vars():
            if not v.persistable or v.name in program._consts or v.is_data:
                continue
            entry = info.get(v.name, {})
            key = entry.get("structured", v.name)
            arr = np.array(values[v.name])
            if entry.get("parameter", v.is_parameter):
                t = Parameter(arr, trainable=not entry.get("stop_gradient", not v.trainable))
                t.stop_gradient = bool(entry.get("stop_gradient", not v.trainable))
                self._parameters[key] = t   # state_dict keys = the saved layer's
            else:
                t = wrap(arr)
                t.persistable = True
                self._buffers[key] = t
            t.name = v.name
            for p in (self._test_program, self._eval_program, self._train_program):
                p._bound[v.name] = t
            params.append(t)
        feeds, fetch = program._feed_names, program._fetch_names
        for p in (self._eval_program, self._train_program):
            _accept_any_size(p, feeds)
        where = f"the model loaded from {path!r}"
        written = {n for op in self._train_program.global_block().ops
                   for n in op.output_arg_names}
        inputs = [t for t in params if t.name not in written]
        self.__dict__["_runners"] = {
            False: ProgramRunner(self._eval_program, feeds, fetch, inputs, where),
            True: ProgramRunner(self._train_program, feeds, fetch, inputs, where)}

    def forward(self, *inputs):
        feeds = self._test_program._feed_names
        if len(inputs) != len(feeds):
            raise TypeError(f"TranslatedLayer: the model loaded from {self._path!r} takes "
                            f"{len(feeds)} inputs {feeds}, got {len(inputs)}")
        if not in_dynamic_mode() or any(is_variable(x) for x in inputs):
            return unflatten(self._out_tree, self._inline(inputs))
        tensors = [x if isinstance(x, Tensor) else wrap(to_array(x)) for x in inputs]
        outs = self._runners[bool(self.training)](tensors)
        return unflatten(self._out_tree, outs)

    def _inline(self, inputs) -> list:
        """While a Program is being built (to_static, jit.save of this layer, static mode):
        copy the loaded program's ops into the current block, reading the inputs and this
        layer's Parameters; returns the output Variables."""
        src = self._train_program if self.training else self._eval_program
        if src.num_blocks > 1:
            raise NotImplementedError(f"TranslatedLayer: the model loaded from {self._path!r} "
                                      f"has control flow; it can only run in dynamic mode")
        block = current_block()
        where = "TranslatedLayer"
        names = {f: to_variable(block, where, "input", x if is_variable(x) or isinstance(
            x, Tensor) else wrap(to_array(x))).name
                 for f, x in zip(self._test_program._feed_names, inputs)}
        for name, tensor in src._bound.items():
            names[name] = to_variable(block, where, "param", tensor).name
        for name, arr in src._consts.items():
            names[name] = _constant(block.program, arr).name
        sblock = src.global_block()
        for op in sblock.ops:
            outs = {}
            for slot, args in op.outputs.items():
                for a in args:
                    if a not in names:
                        v = sblock.var(a)
                        names[a] = block.create_var(unique_name.generate(a), v.shape,
                                                    v.dtype).name
                outs[slot] = [names[a] for a in args]
            ins = {slot: [names[a] for a in args] for slot, args in op.inputs.items()}
            block.append_op(op.type, ins, outs, dict(op.attrs))
        return [block.var(names[n]) for n in self._test_program._fetch_names]

    def program(self, method_name: str = "forward"):
        """The loaded inference Program."""
        if method_name != "forward":
            raise ValueError(f"TranslatedLayer.program: the model has no method "
                             f"{method_name!r} (only 'forward')")
        return self._test_program


def _accept_any_size(program, feeds) -> None:
    """As in Paddle, a loaded model takes inputs of other sizes than the saved specs wherever
    its ops allow (a model saved from a batch-16 call runs on one sample): the feed
    Variables' dims become -1 (rank and dtype are still checked)."""
    block = program.global_block()
    for name in feeds:
        var = block.var(name)
        var._shape = [-1] * len(var._shape)
    program._bump()


def _train_copy(program, train_attrs: list):
    """A copy of the inference program with the saved training attrs restored."""
    train = program.clone()
    for b, k, attrs in train_attrs:
        train.block(b).ops[k].attrs.update(attrs)
    train._is_test = False
    train._bump()
    return train


def _out_tree(jit: dict, program):
    from .save_load import tree_from_json
    tree = jit.get("output_structure")
    if tree is not None:
        return tree_from_json(tree)
    from .pytree import Leaf
    n = len(program._fetch_names)
    return Leaf if n == 1 else [Leaf] * n

"""Tracing machinery of static control flow: nested-structure flattening, `_Sub` (a closed
sub-block under construction) and the appenders of the `cond` / `while_loop` ops. Used by
control_flow.py (the public API) and control_flow_grad.py (their gradients).
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, is_variable
from ..ops.opdef import REGISTRY
from .builder import append_op, build_into, current_block


def _is_var(v) -> bool:
    return is_variable(v)


# --- nested structures ------------------------------------------------------------------------

def _flatten(value) -> tuple:
    """Leaves (anything but list/tuple/dict/None) and a structure to rebuild from them."""
    leaves = []

    def walk(v):
        if v is None:
            return None
        if isinstance(v, (list, tuple)):
            return (type(v), [walk(x) for x in v])
        if isinstance(v, dict):
            return (dict, [(k, walk(v[k])) for k in v])
        leaves.append(v)
        return "*"
    return leaves, walk(value)


def _unflatten(struct, leaves):
    it = iter(leaves)

    def build(s):
        if s is None:
            return None
        if s == "*":
            return next(it)
        kind, items = s
        if kind is dict:
            return {k: build(x) for k, x in items}
        built = [build(x) for x in items]
        return built if kind is list else kind(built)
    return build(struct)


def _same_structure(a, b) -> bool:
    if a is None or b is None or a == "*" or b == "*":
        return a == b
    if a[0] is dict or b[0] is dict:
        return (a[0] is b[0] and [k for k, _ in a[1]] == [k for k, _ in b[1]] and
                all(_same_structure(x, y) for (_, x), (_, y) in zip(a[1], b[1])))
    return len(a[1]) == len(b[1]) and all(_same_structure(x, y) for x, y in zip(a[1], b[1]))


# --- sub-blocks under construction ----------------------------------------------------------------

class _Sub:
    """A closed sub-block being built: positional parameters, bound outer values, outputs."""

    def __init__(self, program, parent_idx: int) -> None:
        saved = program._current_block_idx
        self.block = program._create_block(parent_idx)
        program._current_block_idx = saved
        self.program = program
        self.args: list = []     # local names of positional parameters (loop variables)
        self.bound: dict = {}    # outer name -> local name (explicit or captured)
        self.outer: dict = {}    # outer name -> outer Variable
        self.outputs: list = []  # local names handed back

    def _local(self, like, hint: str, stop_gradient=None):
        name = f"{hint}@b{self.block.idx}"
        k = 0
        while name in self.block.vars:
            k += 1
            name = f"{hint}@b{self.block.idx}_{k}"
        sg = like.stop_gradient if stop_gradient is None else stop_gradient
        return self.block.create_var(name, like._shape, like._dtype, stop_gradient=sg)

    def arg(self, like, shape=None, stop_gradient=None):
        """A positional parameter shaped like Variable `like` (or `shape`)."""
        v = self._local(like, like.name.split("@")[0] + "@arg", stop_gradient)
        if shape is not None:
            v._shape = list(shape)
        self.args.append(v.name)
        return v

    def bind(self, outer):
        """The block-local placeholder of outer Variable `outer` (created once)."""
        local = self.bound.get(outer.name)
        if local is None:
            local = self._local(outer, outer.name.split("@b")[0]).name
            self.bound[outer.name] = local
            self.outer[outer.name] = outer
        return self.block.vars[local]

    def trace(self, fn, *args):
        with build_into(self.block):
            return fn(*args)

    def set_outputs(self, values, api: str) -> None:
        """Hand back `values` (Variables, Tensors, numbers); outer ones are captured."""
        names = []
        for k, v in enumerate(values):
            if _is_var(v):
                if v.block.program is not self.program:
                    raise ValueError(f"{api}: output {k} is Variable '{v.name}' of another "
                                     f"Program")
                names.append(v.name)   # captured by close()
                continue
            if not isinstance(v, (Tensor, np.ndarray, np.generic, bool, int, float, complex)):
                raise TypeError(f"{api}: the function returned {type(v).__name__} (output "
                                f"{k}); only Tensors, numbers, lists, tuples, dicts and None "
                                f"are supported")
            with build_into(self.block):
                names.append(append_op(REGISTRY["assign"], (v,), {}).name)
        self.outputs = names

    def close(self, api: str) -> None:
        """Rewrite references to outer variables into bound placeholders."""
        block = self.block

        def local(n):
            if n in block.vars:
                return n
            outer = block._find_var(n)
            if outer is None:
                raise ValueError(f"{api}: variable {n!r} used in block {block.idx} is not "
                                 f"visible there (defined in another branch or loop?)")
            return self.bind(outer).name
        for op in block.ops:
            for slot, names in op.inputs.items():
                if names:
                    op.inputs[slot] = [local(n) for n in names]
        self.outputs = [local(n) for n in self.outputs]
        self.program._bump()

    def out_var(self, k: int):
        return self.block.vars[self.outputs[k]]


def _merge_shape(api: str, what: str, a: list, b: list) -> list:
    if len(a) != len(b):
        raise ValueError(f"{api}: {what} has rank {len(a)} in one branch and {len(b)} in the "
                         f"other (shapes {a} vs {b})")
    return [x if x == y else -1 for x, y in zip(a, b)]


def _union(subs) -> tuple:
    """Ordered outer Variables bound by any of `subs`, and each sub's aligned local names."""
    names = []
    for s in subs:
        names.extend(n for n in s.bound if n not in names)
    outer = [next(s.outer[n] for s in subs if n in s.outer) for n in names]
    return outer, [[s.bound.get(n) for n in names] for s in subs]


def _append_cond(pred, tsub, fsub, api: str = "cond"):
    ins, (t_in, f_in) = _union([tsub, fsub])
    shapes, dtypes = [], []
    for k in range(len(tsub.outputs)):
        tv, fv = tsub.out_var(k), fsub.out_var(k)
        if tv.dtype is not fv.dtype:
            raise TypeError(f"{api}: output {k} is {tv.dtype.name} in true_fn but "
                            f"{fv.dtype.name} in false_fn; both branches must return the same "
                            f"dtypes")
        shapes.append(_merge_shape(api, f"output {k}", tv.shape, fv.shape))
        dtypes.append(tv.dtype.name)
    attrs = {"true_block": tsub.block.idx, "false_block": fsub.block.idx,
             "true_inputs": t_in, "false_inputs": f_in, "true_outputs": list(tsub.outputs),
             "false_outputs": list(fsub.outputs), "out_shapes": shapes, "out_dtypes": dtypes}
    outs = append_op(REGISTRY["cond"], (pred, ins), attrs, block=current_block())
    return list(outs)


def _append_while(inits, csub, bsub, shapes, save_states: bool, is_test: bool):
    c, (c_in, b_in) = _union([csub, bsub])
    attrs = {"cond_block": csub.block.idx, "body_block": bsub.block.idx,
             "cond_inputs": csub.args + c_in, "cond_output": csub.outputs[0],
             "body_inputs": bsub.args + b_in, "body_outputs": list(bsub.outputs),
             "out_shapes": [list(s) for s in shapes],
             "out_dtypes": [v.dtype.name for v in inits],
             "save_states": bool(save_states), "is_test": bool(is_test)}
    outs = list(append_op(REGISTRY["while_loop"], (list(inits), c), attrs,
                          block=current_block()))
    for s in outs[len(inits):]:
        s.stop_gradient = True
    return outs[:len(inits)], outs[len(inits):]

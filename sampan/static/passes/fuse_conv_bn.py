"""Inference fusion: batch_norm with global statistics after a convolution is folded into
the convolution's weight and bias (new constants computed at pass time):
  s = weight_bn / sqrt(running_var + epsilon),  W' = W * s (per output channel),
  b' = (b - running_mean) * s + bias_bn.
Needs the parameter values: bound eager tensors, or `scope` (default: the global scope).
Only when the conv output feeds nothing but the batch_norm and the batch_norm's statistic
outputs are unused.
"""
from __future__ import annotations

import numpy as np

from ..program import Program
from . import register_pass
from ._graph import add_const, consumers, drop_unused_vars, protected

_CONVS = {"conv1d", "conv2d", "conv3d"}


def _value(program, scope, name):
    if name in program._consts:
        return program._consts[name]
    t = program._bound.get(name)
    if t is not None:
        return t._data
    return scope.get(name)


def _channels_first(op) -> bool:
    fmt = op.attrs.get("data_format", "NCHW")
    return len(fmt) > 1 and fmt[1] == "C"


@register_pass("fuse_conv_bn")
def fuse_conv_bn(program: Program, keep=(), scope=None) -> Program:
    """Return a copy of `program` with conv + batch_norm(use_global_stats) pairs of its
    global block folded into the conv.

    Args:
        keep: variable names (or Variables) that must stay defined (fetch targets).
        scope: where persistable values are read (default: the global scope).
    """
    from ..executor import global_scope
    scope = global_scope() if scope is None else scope
    new = program.clone()
    block = new.global_block()
    cons = consumers(new)
    prot = protected(new, keep)
    prod = {n: op for op in block.ops for n in op.output_arg_names}
    drop = set()
    dropped_vars = []
    for bn in block.ops:
        if bn.type != "batch_norm" or not bn.attrs.get("use_global_stats"):
            continue
        xname = bn.inputs["x"][0]
        conv = prod.get(xname)
        if conv is None or conv.type not in _CONVS or id(conv) in drop:
            continue
        if xname in prot or [id(c) for c in cons.get(xname, ())] != [id(bn)]:
            continue
        stats = bn.output_arg_names[1:]
        if any(n in prot or cons.get(n) for n in stats):
            continue
        if _channels_first(conv) != _channels_first(bn):
            continue
        w = _value(new, scope, conv.inputs["weight"][0])
        cb = _value(new, scope, conv.inputs["bias"][0]) if conv.inputs.get("bias") else None
        mean = _value(new, scope, bn.inputs["running_mean"][0])
        var = _value(new, scope, bn.inputs["running_var"][0])
        gamma = _value(new, scope, bn.inputs["weight"][0]) if bn.inputs.get("weight") else None
        beta = _value(new, scope, bn.inputs["bias"][0]) if bn.inputs.get("bias") else None
        if w is None or mean is None or var is None or (conv.inputs.get("bias") and cb is None) \
                or (bn.inputs.get("weight") and gamma is None) \
                or (bn.inputs.get("bias") and beta is None):
            continue
        dt = w.dtype
        s = 1.0 / np.sqrt(var.astype(np.float64) + bn.attrs.get("epsilon", 1e-5))
        if gamma is not None:
            s = s * gamma
        w2 = (w * s.reshape((-1,) + (1,) * (w.ndim - 1))).astype(dt)
        b2 = ((0.0 if cb is None else cb) - mean) * s + (0.0 if beta is None else beta)
        wname = conv.inputs["weight"][0]
        conv.inputs["weight"] = [add_const(new, w2, f"{wname}.bn_folded")]
        conv.inputs["bias"] = [add_const(new, np.asarray(b2).astype(dt), f"{wname}.bn_bias")]
        out = bn.output_arg_names[0]
        dropped_vars.append(xname)
        dropped_vars.extend(stats)
        conv.outputs = {k: [out] for k in conv.outputs}
        drop.add(id(bn))
    block.ops = [op for op in block.ops if id(op) not in drop]
    drop_unused_vars(new, dropped_vars)
    new._bump()
    return new

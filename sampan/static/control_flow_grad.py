"""Gradients of the `cond` / `while_loop` ops: the branch/body is replayed into a gradient
sub-block where the ordinary static backward appends its vjp ops (see control_flow.py).
"""
from __future__ import annotations

import copy

from ..ops.dispatch import call
from .builder import build_into
from .control_flow_block import _append_cond, _append_while, _Sub


def _replay(src, sub: _Sub, rename: dict) -> None:
    """Copy `src`'s ops into `sub.block`; `rename` maps src names to sub names (filled in
    with fresh names for every src op output)."""
    dst = sub.block
    for op in src.ops:
        ins = {slot: [rename[n] for n in names] for slot, names in op.inputs.items()}
        outs = {}
        for key, names in op.outputs.items():
            new = []
            for n in names:
                v = src.vars[n]
                nv = sub._local(v, n.split("@b")[0] + "@r")
                rename[n] = nv.name
                new.append(nv.name)
            outs[key] = new
        dst.append_op(op.type, ins, outs, copy.deepcopy(op.attrs))


def _grad_block(sub: _Sub, targets, seeds, wrt):
    """Append to `sub` the gradients of sum(targets * seeds) w.r.t. `wrt` (zeros where no
    path); returns them."""
    from .backward import _backward
    with build_into(sub.block):
        grads = _backward(sub.block, targets, seeds, wrt, set()) if targets else [None] * len(wrt)
        return [g if g is not None else call("full_like", v, fill_value=0.0, dtype=None)
                for g, v in zip(grads, wrt)]


def _prune(sub: _Sub) -> None:
    """Drop replayed ops the gradient does not use (sub-blocks hold pure ops only)."""
    needed = set(sub.outputs)
    live = []
    for op in reversed(sub.block.ops):
        if any(n in needed for n in op.output_arg_names):
            live.append(op)
            needed.update(op.input_arg_names)
    live.reverse()
    dead = {n for op in sub.block.ops if op not in live for n in op.output_arg_names}
    sub.block.ops = live
    for n in dead:
        sub.block.vars.pop(n, None)
    sub.program._bump()


def _float(v) -> bool:
    return v.dtype.kind in "fc"


def cond_vjp(ctx, grads):
    """Gradient of a `cond` op: a `cond` over the branches' gradient blocks."""
    pred, ins, outs = ctx.pred, list(ctx.ins), list(ctx.out)
    needs = ctx.needs[1]
    wrt = [i for i, v in enumerate(ins) if needs[i] and _float(v)]
    result = [None] * len(ins)
    if not wrt:
        return None, result
    gk = [k for k, o in enumerate(outs) if _float(o)]
    program = pred.block.program
    parent = program.current_block()
    subs = []
    for side in ("true", "false"):
        src = program.block(ctx.attrs[f"{side}_block"])
        sub = _Sub(program, parent.idx)
        rename = {local: sub.bind(v).name
                  for v, local in zip(ins, ctx.attrs[f"{side}_inputs"]) if local is not None}
        _replay(src, sub, rename)
        src_outs = ctx.attrs[f"{side}_outputs"]
        targets = [sub.block.vars[rename[src_outs[k]]] for k in gk]
        seeds = [sub.bind(grads[k]) for k in gk]
        sub.set_outputs(_grad_block(sub, targets, seeds, [sub.bind(ins[i]) for i in wrt]),
                        "cond")
        sub.close("cond")
        _prune(sub)
        subs.append(sub)
    for i, g in zip(wrt, _append_cond(pred, *subs, api="cond (gradient)")):
        result[i] = g
    return None, result


def while_vjp(ctx, grads):
    """Gradient of a `while_loop` op: a `while_loop` over the saved iterations in reverse,
    replaying the body at each saved state and accumulating the captured inputs' grads."""
    x, c, outs = list(ctx.x), list(ctx.c), list(ctx.out)
    n = len(x)
    states = outs[n:]
    if not ctx.attrs["save_states"]:
        raise RuntimeError("while_loop: a gradient is needed but the loop saved no iteration "
                           "states (it was built with is_test=True or before any input "
                           "needed a gradient)")
    fx = [j for j in range(n) if _float(x[j])]
    fc = [i for i, v in enumerate(c) if ctx.needs[1][i] and _float(v)]
    gx = [None] * n
    gc = [None] * len(c)
    if not fx:
        return gx, gc
    program = x[0].block.program
    parent = program.current_block()
    k0 = call("shape", states[0])[0] - 1
    inits = [k0] + [grads[j] for j in fx] + [call("full_like", c[i], fill_value=0.0,
                                                  dtype=None) for i in fc]
    shapes = [v.shape for v in inits]
    csub = _Sub(program, parent.idx)
    k = csub.arg(inits[0])
    for v in inits[1:]:
        csub.arg(v)
    csub.set_outputs([csub.trace(lambda: k >= 0)], "while_loop")
    csub.close("while_loop")
    bsub = _Sub(program, parent.idx)
    args = [bsub.arg(v, stop_gradient=True) for v in inits]
    kb, g_x, g_c = args[0], args[1:1 + len(fx)], args[1 + len(fx):]
    xk = [bsub.trace(lambda s: s[kb], bsub.bind(s)) for s in states]
    rename = {}
    body_in = ctx.attrs["body_inputs"]
    for local, v in zip(body_in[:n], xk):
        if local is not None:
            rename[local] = v.name
    for local, v in zip(body_in[n:], c):
        if local is not None:
            rename[local] = bsub.bind(v).name
    _replay(program.block(ctx.attrs["body_block"]), bsub, rename)
    body_out = ctx.attrs["body_outputs"]
    targets = [bsub.block.vars[rename[body_out[j]]] for j in fx]
    wrt = [xk[j] for j in fx] + [bsub.bind(c[i]) for i in fc]
    step = _grad_block(bsub, targets, g_x, wrt)
    with build_into(bsub.block):
        new_c = [a + g for a, g in zip(g_c, step[len(fx):])]
        new_k = kb - 1
    bsub.set_outputs([new_k] + step[:len(fx)] + new_c, "while_loop")
    bsub.close("while_loop")
    _prune(bsub)
    finals, _ = _append_while(inits, csub, bsub, shapes, False, True)
    for j, g in zip(fx, finals[1:1 + len(fx)]):
        gx[j] = g
    for i, g in zip(fc, finals[1 + len(fx):]):
        gc[i] = g
    return gx, gc

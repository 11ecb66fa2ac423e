"""Control-flow operators with sub-blocks: `cond` and `while_loop`, and their gradients.

Sub-block protocol
------------------
A control-flow op's branches/bodies are Blocks 1..n of the same Program (each with a
`parent_idx`), referenced from the op's attrs by index. Sub-blocks are *closed*: a block reads
nothing from outside except its declared local input variables, which the op binds
positionally to its own input slots (`*_inputs` attrs hold the local names, aligned with the
op's inputs; `null` where a block does not use that input), and it hands back the local
variables named in its `*_outputs` attr. Outer Variables a traced Python function captured
(including parameters and constants) are discovered while tracing and become op inputs, so
every value flowing into a sub-block is an explicit input of the op (DCE, renames and
gradients need nothing special). Output specs cannot be inferred from input specs alone, so
the ops carry `out_shapes`/`out_dtypes` attrs (computed when the branches were traced).

Running (compute): an OpDef sets `runs_blocks = True` to receive, at run time only, the
keyword `_run_block` (never stored in the Program): `_run_block(block_idx, feed: {local name:
array}, fetch: [local names]) -> [arrays]`, from the engine that runs it (the static
Executor: block_runner in sampan/static/executor.py).

Building gradient blocks (vjp): likewise, the engine that runs the vjp of a `runs_blocks` op
hands it `ctx.blocks`, a block builder (None where that engine cannot build blocks; the
static backward gives `StaticBlocks` of sampan/static/control_flow_grad.py). So the rule
lives here, with the op, and `ops` never imports `static`:

    blocks.program                 the Program being built
    blocks.new() -> sub            a new closed sub-block under the current block
    sub.bind(outer) -> local       the placeholder of an outer Variable (becomes an op input)
    sub.arg(like, stop_gradient=None) -> local   a positional parameter (loop variable)
    sub.trace(fn, *args)           fn's result, its ops appended to the sub-block
    sub.replay(block_idx, rename)  copy block `block_idx`'s ops in; rename maps its local
                                   names to sub's (filled in for every op output)
    sub.var(name) -> local         a Variable of the sub-block by name
    sub.gradients(targets, seeds, wrt) -> [local]   the static backward inside the
                                   sub-block (zeros where no path)
    sub.finish(outputs, api)       hand back outputs, close over outer values, drop ops
                                   the outputs do not use
    blocks.append_cond(pred, true_sub, false_sub, api) -> [outer outputs]
    blocks.append_while(inits, cond_sub, body_sub, shapes, save_states, is_test)
                                   -> ([final loop values], [saved states])

An op that runs a prebuilt Program instead of sub-blocks (run_program, ops/run_program.py)
carries its runner in its attrs and reaches it through `ctx.attrs` in every engine.

Gradients exist in static Programs only (in dynamic mode static.nn.cond/while_loop run plain
Python, as in Paddle, so the tape sees the branch ops themselves). cond's gradient is a
`cond` over the branches' gradient blocks (each replays its branch and appends its
backward). while_loop saves the loop variables at the start of every iteration
(`save_states`: extra outputs, one stacked [n_iters, ...] array per loop variable) and its
gradient is a `while_loop` that walks the recorded iterations backwards, replaying the body
at each saved state.

Imports only `ops.opdef` and `ops.dispatch`.
"""
from __future__ import annotations

from .dispatch import call
from .opdef import OpDef, TensorSpec, register


def _no_runner(api: str):
    raise RuntimeError(f"{api}: this operator runs sub-blocks of a static Program and can only "
                       f"be executed by static.Executor (in dynamic mode static.nn.{api} runs "
                       f"the Python functions directly)")


def _truth(api: str, arr, what: str) -> bool:
    if arr.size != 1:
        raise ValueError(f"{api}: {what} must have exactly one element, got shape "
                         f"{list(arr.shape)}")
    return bool(arr.reshape(-1)[0])


def _check_pred(api: str, spec: TensorSpec, what: str) -> None:
    if spec.dtype.name != "bool":
        raise TypeError(f"{api}: {what} must be a bool tensor, got {spec.dtype.name}")
    n = 1
    for d in spec.shape:
        n = -1 if d < 0 or n < 0 else n * d
    if n not in (1, -1):
        raise ValueError(f"{api}: {what} must have exactly one element, got shape "
                         f"{list(spec.shape)}")


def _out_specs(api: str, attrs: dict) -> list:
    shapes, dtypes = attrs["out_shapes"], attrs["out_dtypes"]
    if len(shapes) != len(dtypes):
        raise ValueError(f"{api}: out_shapes ({len(shapes)}) and out_dtypes ({len(dtypes)}) "
                         f"differ in length")
    return [TensorSpec(s, d) for s, d in zip(shapes, dtypes)]


def _feed(names, values) -> dict:
    return {n: v for n, v in zip(names, values) if n is not None}


@register
class Cond(OpDef):
    """out = run(true_block if pred else false_block) on the inputs."""
    name = "cond"
    inputs = ("pred", "*ins")
    outputs = ("*out",)
    attrs = {"true_block": -1, "false_block": -1, "true_inputs": [], "false_inputs": [],
             "true_outputs": [], "false_outputs": [], "out_shapes": [], "out_dtypes": []}
    saves = ("pred", "ins")
    runs_blocks = True

    def infer(self, pred, ins, **attrs):
        attrs = {**self.attrs, **attrs}
        _check_pred("cond", pred, "pred")
        for side in ("true", "false"):
            if len(attrs[f"{side}_inputs"]) != len(ins):
                raise ValueError(f"cond: {side}_inputs names {len(attrs[side + '_inputs'])} "
                                 f"variables for {len(ins)} inputs")
            if len(attrs[f"{side}_outputs"]) != len(attrs["out_shapes"]):
                raise ValueError(f"cond: {side}_outputs names {len(attrs[side + '_outputs'])}"
                                 f" variables for {len(attrs['out_shapes'])} outputs")
        return tuple(_out_specs("cond", attrs))

    def compute(self, xp, pred, ins, _run_block=None, **attrs):
        if _run_block is None:
            _no_runner("cond")
        side = "true" if _truth("cond", pred, "pred") else "false"
        outs = _run_block(attrs[f"{side}_block"], _feed(attrs[f"{side}_inputs"], ins),
                          attrs[f"{side}_outputs"])
        return tuple(outs)

    def vjp(self, ctx, *grads):
        return _cond_vjp(ctx, _blocks_of(ctx, "cond"), grads)


@register
class WhileLoop(OpDef):
    """while run(cond_block)(x, c): x = run(body_block)(x, c); out = x (+ saved states)."""
    name = "while_loop"
    inputs = ("*x", "*c")
    outputs = ("*out",)
    attrs = {"cond_block": -1, "body_block": -1, "cond_inputs": [], "cond_output": "",
             "body_inputs": [], "body_outputs": [], "out_shapes": [], "out_dtypes": [],
             "save_states": False, "is_test": False}
    saves = ("x", "c")  # the static backward also hands the vjp every output
    runs_blocks = True

    def infer(self, x, c, **attrs):
        attrs = {**self.attrs, **attrs}
        specs = _out_specs("while_loop", attrs)
        if len(specs) != len(x):
            raise ValueError(f"while_loop: {len(x)} loop variables but {len(specs)} output "
                             f"specs")
        for k, (s, o) in enumerate(zip(x, specs)):
            if s.dtype is not o.dtype:
                raise TypeError(f"while_loop: loop variable {k} is {s.dtype.name} but the "
                                f"body returns {o.dtype.name}")
        for key in ("cond_inputs", "body_inputs"):
            if len(attrs[key]) != len(x) + len(c):
                raise ValueError(f"while_loop: {key} names {len(attrs[key])} variables for "
                                 f"{len(x) + len(c)} inputs")
        if len(attrs["body_outputs"]) != len(x):
            raise ValueError(f"while_loop: body_outputs names {len(attrs['body_outputs'])} "
                             f"variables for {len(x)} loop variables")
        if attrs["save_states"]:
            specs = specs + [TensorSpec((-1,) + s.shape, s.dtype) for s in specs]
        return tuple(specs)

    def compute(self, xp, x, c, _run_block=None, **attrs):
        if _run_block is None:
            _no_runner("while_loop")
        vals = list(x)
        c = list(c)
        save = attrs["save_states"] and not attrs["is_test"]
        states = [[] for _ in vals]
        cond_in, body_in = attrs["cond_inputs"], attrs["body_inputs"]
        cond_out, body_out = [attrs["cond_output"]], attrs["body_outputs"]
        while True:
            pred = _run_block(attrs["cond_block"], _feed(cond_in, vals + c), cond_out)[0]
            if not _truth("while_loop", pred, "the value returned by cond"):
                break
            if save:
                for s, v in zip(states, vals):
                    s.append(v)
            vals = list(_run_block(attrs["body_block"], _feed(body_in, vals + c), body_out))
        if not attrs["save_states"]:
            return tuple(vals)
        stacked = []
        for k, (s, v) in enumerate(zip(states, vals)):
            if not s:
                stacked.append(xp.zeros((0,) + v.shape, v.dtype))
                continue
            if any(a.shape != s[0].shape for a in s):
                raise ValueError(f"while_loop: loop variable {k} changes shape between "
                                 f"iterations ({[list(a.shape) for a in s[:3]]}...); its "
                                 f"gradient needs a fixed shape")
            stacked.append(xp.stack(s))
        return tuple(vals) + tuple(stacked)

    def vjp(self, ctx, *grads):
        return _while_vjp(ctx, _blocks_of(ctx, "while_loop"), grads)


# --- gradients -------------------------------------------------------------------------------

def _blocks_of(ctx, api: str):
    blocks = getattr(ctx, "blocks", None)
    if blocks is None:
        raise RuntimeError(f"{api}: the gradient of this operator builds sub-blocks of a "
                           f"static Program; only the static backward (append_backward, "
                           f"gradients) can run it")
    return blocks


def _float(v) -> bool:
    return v.dtype.kind in "fc"


def _cond_vjp(ctx, blocks, grads):
    """A `cond` over the branches' gradient blocks."""
    pred, ins, outs = ctx.pred, list(ctx.ins), list(ctx.out)
    wrt = [i for i, v in enumerate(ins) if ctx.needs[1][i] and _float(v)]
    result = [None] * len(ins)
    if not wrt:
        return None, result
    gk = [k for k, o in enumerate(outs) if _float(o)]
    subs = []
    for side in ("true", "false"):
        sub = blocks.new()
        rename = {local: sub.bind(v).name
                  for v, local in zip(ins, ctx.attrs[f"{side}_inputs"]) if local is not None}
        sub.replay(ctx.attrs[f"{side}_block"], rename)
        src_outs = ctx.attrs[f"{side}_outputs"]
        targets = [sub.var(rename[src_outs[k]]) for k in gk]
        seeds = [sub.bind(grads[k]) for k in gk]
        sub.finish(sub.gradients(targets, seeds, [sub.bind(ins[i]) for i in wrt]), "cond")
        subs.append(sub)
    for i, g in zip(wrt, blocks.append_cond(pred, *subs, api="cond (gradient)")):
        result[i] = g
    return None, result


def _while_vjp(ctx, blocks, grads):
    """A `while_loop` over the saved iterations in reverse: the body is replayed at each
    saved state and the captured inputs' gradients are accumulated."""
    x, c, outs = list(ctx.x), list(ctx.c), list(ctx.out)
    n = len(x)
    if not ctx.attrs["save_states"]:
        raise RuntimeError("while_loop: a gradient is needed but the loop saved no iteration "
                           "states (it was built with is_test=True or before any input "
                           "needed a gradient)")
    fx = [j for j in range(n) if _float(x[j])]
    fc = [i for i, v in enumerate(c) if ctx.needs[1][i] and _float(v)]
    gx, gc = [None] * n, [None] * len(c)
    if not fx:
        return gx, gc
    states = outs[n:]
    k0 = call("shape", states[0])[0] - 1
    inits = [k0] + [grads[j] for j in fx] + [call("full_like", c[i], fill_value=0.0,
                                                  dtype=None) for i in fc]
    csub = blocks.new()
    k = csub.arg(inits[0])
    for v in inits[1:]:
        csub.arg(v)
    csub.finish([csub.trace(lambda: k >= 0)], "while_loop")
    bsub = _reverse_body(ctx, blocks, inits, states, fx, fc)
    finals, _ = blocks.append_while(inits, csub, bsub, [v.shape for v in inits], False, True)
    for j, g in zip(fx, finals[1:1 + len(fx)]):
        gx[j] = g
    for i, g in zip(fc, finals[1 + len(fx):]):
        gc[i] = g
    return gx, gc


def _reverse_body(ctx, blocks, inits, states, fx: list, fc: list):
    """The body of while_loop's gradient loop: (k, grads of the float loop variables,
    accumulated grads of the captured inputs) -> (k - 1, one step back, accumulated)."""
    n, c = len(ctx.x), list(ctx.c)
    bsub = blocks.new()
    args = [bsub.arg(v, stop_gradient=True) for v in inits]
    kb, g_x, g_c = args[0], args[1:1 + len(fx)], args[1 + len(fx):]
    xk = [bsub.trace(lambda s: s[kb], bsub.bind(s)) for s in states]
    body_in = ctx.attrs["body_inputs"]
    rename = {local: v.name for local, v in zip(body_in[:n], xk) if local is not None}
    rename.update((local, bsub.bind(v).name) for local, v in zip(body_in[n:], c)
                  if local is not None)
    bsub.replay(ctx.attrs["body_block"], rename)
    targets = [bsub.var(rename[ctx.attrs["body_outputs"][j]]) for j in fx]
    wrt = [xk[j] for j in fx] + [bsub.bind(c[i]) for i in fc]
    step = bsub.gradients(targets, g_x, wrt)
    new_c, new_k = bsub.trace(lambda: ([a + g for a, g in zip(g_c, step[len(fx):])], kb - 1))
    bsub.finish([new_k] + step[:len(fx)] + new_c, "while_loop")
    return bsub

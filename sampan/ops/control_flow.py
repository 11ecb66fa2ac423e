"""Control-flow operators with sub-blocks: `cond`, `while_loop`; `print` (static.Print); and
the other static-graph ops: `py_func` (static.py_func) and `auc` (static.auc).

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
gradients need nothing special).

An OpDef sets `runs_blocks = True` to receive, at run time only, the keyword `_run_block`
(never stored in the Program): `_run_block(block_idx, feed: {local name: array},
fetch: [local names]) -> [arrays]`. The static Executor provides it (block_runner in
sampan/static/executor.py); nothing op-specific lives in the Executor. Output specs cannot be
inferred from input specs alone, so the ops carry `out_shapes`/`out_dtypes` attrs (computed
when the branches were traced) and `infer` returns them.

Gradients (static append_backward/gradients only; in dynamic mode static.nn.cond/while_loop
run plain Python, as in Paddle, so the tape sees the branch ops themselves): the vjps live in
sampan/static/control_flow.py (they build new sub-blocks). cond's gradient is a `cond` over
the branches' gradient blocks (each replays its branch and appends its backward). while_loop
saves the loop variables at the start of every iteration (`save_states`: extra outputs, one
stacked [n_iters, ...] array per loop variable) and its gradient is a `while_loop` that walks
the recorded iterations backwards, replaying the body at each saved state.

Imports only `ops.opdef`.
"""
from __future__ import annotations

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
        from ..static.control_flow import cond_vjp
        return cond_vjp(ctx, grads)


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
        from ..static.control_flow import while_vjp
        return while_vjp(ctx, grads)


_PRINTED: dict = {}   # (print_id, is_backward) -> times printed (static.Print first_n)


def _print_count(attrs: dict) -> bool:
    """Whether this run prints: always when first_n < 0, else only the first first_n runs
    of each Print op (forward and backward counted apart)."""
    first_n = attrs["first_n"]
    if first_n is None or first_n < 0:
        return True
    key = (attrs["print_id"], bool(attrs["is_backward"]))
    done = _PRINTED.get(key, 0)
    if done >= first_n:
        return False
    _PRINTED[key] = done + 1
    return True


_PRINT_IDS = [0]


def new_print_id() -> int:
    """A fresh id for a Print op's first_n counter."""
    _PRINT_IDS[0] += 1
    return _PRINT_IDS[0]


@register
class Print(OpDef):
    """Identity that prints its input (static.Print); the gradient is printed too when
    print_phase is 'backward' or 'both'."""
    name = "print"
    attrs = {"message": "", "summarize": 20, "var_name": "", "print_tensor_name": True,
             "print_tensor_type": True, "print_tensor_shape": True, "print_phase": "both",
             "is_backward": False, "first_n": -1, "print_id": -1}

    def infer(self, x, **attrs):
        attrs = {**self.attrs, **attrs}
        if attrs["print_phase"] not in ("forward", "backward", "both"):
            raise ValueError(f"print: print_phase must be 'forward', 'backward' or 'both', "
                             f"got {attrs['print_phase']!r}")
        return x

    def compute(self, xp, x, **attrs):
        attrs = {**self.attrs, **attrs}
        phase = "backward" if attrs["is_backward"] else "forward"
        if attrs["print_phase"] in (phase, "both") and _print_count(attrs):
            lines = []
            if attrs["message"]:
                lines.append(str(attrs["message"]))
            if attrs["print_tensor_name"] and attrs["var_name"]:
                lines.append(f"Variable: {attrs['var_name']}")
            if attrs["print_tensor_type"]:
                lines.append(f"  - dtype: {x.dtype}")
            if attrs["print_tensor_shape"]:
                lines.append(f"  - shape: {list(x.shape)}")
            n = attrs["summarize"]
            flat = x.reshape(-1)
            shown = flat if n is None or n < 0 else flat[:n]
            lines.append(f"  - data: [{' '.join(str(v) for v in shown.tolist())}]")
            print("\n".join(lines), flush=True)
        return x

    def vjp(self, ctx, g):
        from .dispatch import call
        attrs = {k: getattr(ctx, k, v) for k, v in Print.attrs.items()}
        if attrs["print_phase"] == "forward":
            return (g,)
        attrs["is_backward"] = True
        attrs["var_name"] = f"{attrs['var_name']}@GRAD" if attrs["var_name"] else ""
        return (call("print", g, **attrs),)


# --- py_func -------------------------------------------------------------------------------------

class _PyFuncs:
    """Side registry of the Python callables py_func ops run (attrs hold only an integer id,
    since attrs must be JSON). `token` identifies this process's registry: a program dict
    carrying py_func ids is only meaningful in the process that registered them."""
    funcs: dict = {}
    next_id = 0
    token = ""


def register_py_func(func) -> int:
    """Enter `func` in the py_func registry; returns its id (-1 for None)."""
    if func is None:
        return -1
    if not callable(func):
        raise TypeError(f"py_func: func must be callable, got {type(func).__name__}")
    if not _PyFuncs.token:
        import os
        import uuid
        _PyFuncs.token = f"{os.getpid()}-{uuid.uuid4().hex}"
    fid = _PyFuncs.next_id
    _PyFuncs.next_id += 1
    _PyFuncs.funcs[fid] = func
    return fid


def py_func_token() -> str:
    return _PyFuncs.token


def _py_func_callable(fid: int):
    func = _PyFuncs.funcs.get(fid)
    if func is None:
        raise RuntimeError(f"py_func: no Python function is registered under id {fid} in this "
                           f"process (programs with py_func ops cannot be saved and loaded)")
    return func


def _match_shape(shape, want) -> bool:
    return len(shape) == len(want) and all(w < 0 or s == w for s, w in zip(shape, want))


@register
class PyFunc(OpDef):
    """out = func(*x) for a registered Python function (static.py_func). The function gets
    the inputs as Tensors and returns arrays/Tensors (one per output); its gradient op is
    another py_func running `backward_func` on (inputs not skipped, outputs not skipped,
    output gradients)."""
    name = "py_func"
    inputs = ("*x",)
    outputs = ("*out",)
    attrs = {"forward_callable_id": -1, "backward_callable_id": -1, "backward_skip_vars": [],
             "out_shapes": [], "out_dtypes": [], "n_forward_inputs": -1}
    saves = ("x",)
    side_effects = True   # passes never fold, merge or drop it (the function may have effects)

    def infer(self, x, **attrs):
        attrs = {**self.attrs, **attrs}
        if attrs["forward_callable_id"] < 0:
            raise ValueError("py_func: forward_callable_id must name a registered function")
        return tuple(_out_specs("py_func", attrs))

    def compute(self, xp, x, **attrs):
        attrs = {**self.attrs, **attrs}
        from ..framework.tensor import wrap
        func = _py_func_callable(attrs["forward_callable_id"])
        result = func(*[wrap(a) for a in x])
        shapes, dtypes = attrs["out_shapes"], attrs["out_dtypes"]
        if not shapes:
            return ()
        if result is not None and not isinstance(result, (list, tuple)):
            result = [result]
        if result is None or len(result) != len(shapes):
            got = "None" if result is None else f"{len(result)} values"
            raise ValueError(f"py_func: the function must return {len(shapes)} values (one "
                             f"per out variable), got {got}")
        outs = []
        for k, (r, s, d) in enumerate(zip(result, shapes, dtypes)):
            if r is None:  # a gradient function may leave an input without gradient
                if any(n < 0 for n in s):
                    raise ValueError(f"py_func: output {k} is None and its shape {s} is "
                                     f"not fully known")
                outs.append(xp.zeros(s, d))
                continue
            arr = xp.asarray(getattr(r, "_data", r)).astype(d, copy=False)
            if not _match_shape(arr.shape, s):
                raise ValueError(f"py_func: output {k} of the function has shape "
                                 f"{list(arr.shape)}, but the out variable is declared "
                                 f"with shape {list(s)}")
            outs.append(arr)
        return tuple(outs)

    def vjp(self, ctx, *grads):
        from .dispatch import call
        x = list(ctx.x)
        bid = ctx.attrs["backward_callable_id"]
        if bid < 0:
            return ([None] * len(x),)
        out = getattr(ctx, "out", None)
        fwd = {k: ctx.attrs[k] for k in self.attrs}
        if out is None:  # eager tape: outputs are not saved, rerun the forward function
            out = call("py_func", x, **fwd)
            out = list(out) if isinstance(out, (list, tuple)) else [out]
        skip = set(ctx.attrs["backward_skip_vars"])
        names = [getattr(v, "name", None) for v in x + list(out)]
        ins = [v for v, n in zip(x + list(out), names) if n is None or n not in skip]
        ins += list(grads)
        gx = call("py_func", ins, forward_callable_id=bid, backward_callable_id=-1,
                  backward_skip_vars=[], out_shapes=[list(v.shape) for v in x],
                  out_dtypes=[v.dtype.name for v in x])
        gx = list(gx) if isinstance(gx, (list, tuple)) else [gx]
        return ([g if need else None for g, need in zip(gx, ctx.needs[0])],)


# --- auc (static.auc) -----------------------------------------------------------------------------
# Not control flow, but a static-graph op like py_func: it accumulates into persistable stat
# buffers that its outputs overwrite (static.auc retargets the outputs onto the buffers).

def _auc_from_stats(xp, pos, neg):
    """ROC AUC from per-bucket positive/negative counts (trapezoids from the highest
    threshold down, as Paddle's auc kernel)."""
    tp = xp.cumsum(pos[::-1].astype(xp.float64))
    fp = xp.cumsum(neg[::-1].astype(xp.float64))
    tp0 = xp.concatenate([xp.zeros(1), tp[:-1]])
    fp0 = xp.concatenate([xp.zeros(1), fp[:-1]])
    area = float(((fp - fp0) * (tp + tp0) / 2.0).sum())
    tot_pos, tot_neg = float(tp[-1]) if tp.size else 0.0, float(fp[-1]) if fp.size else 0.0
    if tot_pos > 0 and tot_neg > 0:
        return xp.asarray(area / tot_pos / tot_neg, xp.float64)
    return xp.asarray(0.0, xp.float64)


def auc_stat_shape(num_thresholds: int, slide_steps: int) -> list:
    """Shape of Paddle's auc stat buffers: [1, T+1] (global) or a sliding window of
    slide_steps buckets, their sum and a step counter."""
    length = num_thresholds + 1
    return [1, length] if slide_steps == 0 else [(slide_steps + 1) * length + 1]


@register
class Auc(OpDef):
    """auc, stat_pos_out, stat_neg_out = auc(predict, label, stat_pos, stat_neg): bucket the
    positive-class probabilities (last column of predict) into num_thresholds + 1 bins,
    add them to the stats (a sliding window over slide_steps batches, or everything when
    slide_steps is 0) and compute the ROC AUC of the accumulated counts."""
    name = "auc"
    inputs = ("predict", "label", "stat_pos", "stat_neg")
    outputs = ("auc", "stat_pos_out", "stat_neg_out")
    attrs = {"curve": "ROC", "num_thresholds": 4095, "slide_steps": 1}
    check = True

    def infer(self, predict, label, stat_pos, stat_neg, **attrs):
        attrs = {**self.attrs, **attrs}
        t, slide = attrs["num_thresholds"], attrs["slide_steps"]
        if attrs["curve"] not in ("ROC", "PR"):
            raise ValueError(f"auc: curve must be 'ROC' or 'PR', got {attrs['curve']!r}")
        if type(t) is not int or t < 1:
            raise ValueError(f"auc: num_thresholds must be a positive int, got {t!r}")
        if type(slide) is not int or slide < 0:
            raise ValueError(f"auc: slide_steps must be a non-negative int, got {slide!r}")
        if len(predict.shape) != 2:
            raise ValueError(f"auc: input must be 2-D [batch, classes], got shape "
                             f"{list(predict.shape)}")
        if predict.dtype.kind != "f":
            raise TypeError(f"auc: input must be a float tensor, got {predict.dtype.name}")
        if label.dtype.kind not in "iub":
            raise TypeError(f"auc: label must be an integer tensor, got {label.dtype.name}")
        n, m = predict.shape[0], 1
        for d in label.shape:
            m = -1 if d < 0 or m < 0 else m * d
        if n >= 0 and m >= 0 and n != m:
            raise ValueError(f"auc: label (shape {list(label.shape)}) must have one value per "
                             f"row of input (shape {list(predict.shape)})")
        size = 1
        for d in auc_stat_shape(t, slide):
            size *= d
        for arg, spec in (("stat_pos", stat_pos), ("stat_neg", stat_neg)):
            k = 1
            for d in spec.shape:
                k *= d
            if k != size:
                raise ValueError(f"auc: {arg} (shape {list(spec.shape)}) must have "
                                 f"{size} elements for num_thresholds={t}, "
                                 f"slide_steps={slide}")
        return (TensorSpec((), "float64"), TensorSpec(stat_pos.shape, "int64"),
                TensorSpec(stat_neg.shape, "int64"))

    def compute(self, xp, predict, label, stat_pos, stat_neg, **attrs):
        attrs = {**self.attrs, **attrs}
        t, slide = attrs["num_thresholds"], attrs["slide_steps"]
        p = predict[:, -1].astype(xp.float64)
        if p.size and (not (p >= 0).all() or not (p <= 1).all()):
            raise ValueError(f"auc: input probabilities must lie in [0, 1], got values in "
                             f"[{p.min()}, {p.max()}]")
        bins = xp.minimum((p * t).astype(xp.int64), t)
        lab = label.reshape(-1) != 0
        length = t + 1
        pos = xp.bincount(bins[lab], minlength=length).astype(xp.int64)
        neg = xp.bincount(bins[~lab], minlength=length).astype(xp.int64)
        outs = []
        for stat, new in ((stat_pos, pos), (stat_neg, neg)):
            buf = stat.reshape(-1).astype(xp.int64)   # a copy: the inputs stay untouched
            if slide == 0:
                buf[:length] += new
                outs.append(buf)
                continue
            cur = int(buf[-1]) % slide
            total = slice(slide * length, (slide + 1) * length)
            step = slice(cur * length, (cur + 1) * length)
            buf[total] -= buf[step]
            buf[step] = new
            buf[total] += new
            buf[-1] += 1
            outs.append(buf)
        region = slice(0, length) if slide == 0 else slice(slide * length, (slide + 1) * length)
        auc = _auc_from_stats(xp, outs[0][region], outs[1][region])
        return auc, outs[0].reshape(stat_pos.shape), outs[1].reshape(stat_neg.shape)

"""Op database entries for sampan/ops/control_flow.py (cond, while_loop, print).

cond and while_loop run sub-blocks of a Program, so an entry's `fn` has three paths:
- static Variables (tests/ops/test_static_ops.py): static.nn.cond / while_loop build the op;
  its gradients come from the op's vjp (gradient sub-blocks);
- eager Tensors that need a gradient: plain Python, which is what Paddle's dynamic mode does
  (the reference the static gradients are compared with);
- other eager Tensors: the same functions are traced into a one-off Program and its op is
  dispatched eagerly with a `_run_block` runner over that Program, so `compute`/`infer` are
  exercised by the generic eager tests.
"""
import numpy as np

from sampan import static
from sampan.framework.tensor import Tensor, wrap
from sampan.ops import control_flow  # noqa: F401  (registers the ops)
from sampan.ops.py_func import register_py_func
from sampan.ops.dispatch import call, dispatch
from sampan.ops.opdef import REGISTRY
from sampan.static.executor import Scope, block_runner
from sampan.utils import unique_name
from tests.ops.op_db import OpEntry, Sample
from tests.static_util import static_guard


def _tensors(args):
    return [a for a in args if isinstance(a, Tensor)]


def _leaves(value):
    if isinstance(value, dict):
        return [x for v in value.values() for x in _leaves(v)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def via_op(op_name, build):
    """fn(*args) that runs `build(*args)` statically, in Python, or as one eager dispatch
    (the values the op reads come from running the one-off Program; `build` must return
    outputs of its last `op_name` op)."""
    def fn(*args):
        if any(getattr(a, "_is_variable", False) for a in args):
            return build(*args)
        if any(not t.stop_gradient for t in _tensors(args)):
            return build(*args)
        program = static.Program()
        feed, vars_ = {}, []
        with unique_name.guard(), static_guard(program, static.Program()):
            for k, a in enumerate(args):
                if isinstance(a, Tensor):
                    vars_.append(static.data(f"arg{k}", a.shape, a.dtype))
                    feed[f"arg{k}"] = a.numpy()
                else:
                    vars_.append(a)
            result = _leaves(build(*vars_))
        op = [o for o in program.global_block().ops if o.type == op_name][-1]
        opdef = REGISTRY[op_name]
        exe = static.Executor()
        names = list(dict.fromkeys(op.input_arg_names))
        values = dict(zip(names, exe.run(program, feed=feed, fetch_list=names)))
        inputs = []
        for slot, variadic in zip(opdef.input_names, opdef.variadic):
            ns = op.inputs[slot]
            inputs.append([wrap(values[n]) for n in ns] if variadic else wrap(values[ns[0]]))
        outs = dispatch(opdef, tuple(inputs),
                        {**op.attrs, "_run_block": block_runner(program, Scope())})
        by_name = dict(zip(op.output_arg_names, outs))
        got = tuple(by_name[v.name] for v in result)
        return got[0] if len(got) == 1 else got
    return fn


# --- cond ------------------------------------------------------------------------------------

def _cond_build(pred, x, y):
    return static.nn.cond(pred, lambda: x * y + 1.0, lambda: x - y)


def _cond_ref(pred, x, y):
    return x * y + 1.0 if pred.reshape(-1)[0] else x - y


def _cond_samples(rng, dtype):
    x = rng.standard_normal((2, 3)).astype(dtype)
    y = rng.standard_normal((2, 3)).astype(dtype)
    return [Sample((np.array(True), x, y), name="true"),
            Sample((np.array([False]), x, y), name="false"),
            Sample((np.array(True), np.array(x[0, 0]), np.array(y[0, 0])), name="0d"),
            Sample((np.array(False), x[:, ::2], y[:, ::2]), name="noncontiguous"),
            Sample((np.array(True), np.zeros((0, 3), dtype), np.zeros((0, 3), dtype)),
                   name="empty")]


def _cond_multi_build(pred, x, w):
    # dict output, a branch that ignores w, a captured constant and a Python scalar output
    return static.nn.cond(pred, lambda: {"a": (x * w).sum(), "b": [x.exp(), w]},
                          lambda: {"a": x.mean(), "b": [x, x * 2.0]})


def _cond_multi_ref(pred, x, w):
    if pred.reshape(-1)[0]:
        return (x * w).sum(), np.exp(x), w
    return x.mean(), x, x * 2.0


def _cond_multi_fn(pred, x, w):
    return via_op("cond", lambda *a: _leaves(_cond_multi_build(*a)))(pred, x, w)


def _cond_multi_samples(rng, dtype):
    x = rng.standard_normal((2, 2)).astype(dtype)
    w = rng.standard_normal((2, 2)).astype(dtype)
    return [Sample((np.array(True), x, w), name="true"),
            Sample((np.array(False), x, w), name="false")]


# --- while_loop --------------------------------------------------------------------------------

def _while_build(n, x, w):
    i = call("full", shape=[], fill_value=0, dtype="int64")

    def body(i, h):
        return [i + 1, (h * w).tanh() + 0.5 * h]
    return static.nn.while_loop(lambda i, h: i < n, body, [i, x])[1]


def _while_ref(n, x, w):
    h = x
    for _ in range(int(n)):
        h = np.tanh(h * w) + 0.5 * h
    return h


def _while_samples(rng, dtype):
    x = rng.standard_normal((3,)).astype(dtype) * 0.5
    w = rng.standard_normal((3,)).astype(dtype)
    return [Sample((np.array(3), x, w), name="3_iters"),
            Sample((np.array(0), x, w), name="0_iters"),
            Sample((np.array(1), x.reshape(1, 3), w), name="broadcast_w"),
            Sample((np.array(2), np.array(x[0]), np.array(w[0])), name="0d")]


def _while_nested_build(n, x):
    # a cond inside the body, the loop bound a tensor, an accumulator loop variable
    i = call("full", shape=[], fill_value=0, dtype="int64")
    acc = call("full", shape=[], fill_value=0.0, dtype=x.dtype.name)

    def body(i, h, acc):
        h = static.nn.cond(i % 2 == 0, lambda: h * h, lambda: h + 1.0)
        return [i + 1, h, acc + h.sum()]
    _, h, acc = static.nn.while_loop(lambda i, h, acc: i < n, body, [i, x, acc])
    return h, acc


def _while_nested_ref(n, x):
    h, acc = x, 0.0
    for i in range(int(n)):
        h = h * h if i % 2 == 0 else h + 1.0
        acc = acc + h.sum()
    return h, np.array(acc, x.dtype)


def _while_nested_samples(rng, dtype):
    x = (rng.standard_normal((2,)) * 0.5).astype(dtype)
    return [Sample((np.array(3), x), name="3_iters"),
            Sample((np.array(0), x), name="0_iters")]


# --- print ----------------------------------------------------------------------------------------

def _print_fn(x, **kw):
    return call("print", x, **kw)


def _print_samples(rng, dtype):
    x = rng.standard_normal((2, 3)).astype(dtype)
    return [Sample((x,), {"message": "op_db", "print_phase": "forward"}, name="forward"),
            Sample((np.array(x[0, 0]),), {"print_phase": "both"}, name="0d"),
            Sample((np.zeros((0, 2), dtype),), name="empty")]


# --- py_func --------------------------------------------------------------------------------------

def _tanh_fwd(x):
    return np.tanh(np.array(x))


def _tanh_bwd(x, out, dout):
    out = np.array(out)
    return np.array(dout) * (1.0 - out * out)


def _pair_fwd(x, y):
    x, y = np.array(x), np.array(y)
    return [x * y, np.sin(x) + y]


def _pair_bwd(x, y, o1, o2, d1, d2):
    x, y, d1, d2 = (np.array(v) for v in (x, y, d1, d2))
    return [d1 * y + d2 * np.cos(x), d1 * x + d2]


_TANH = (register_py_func(_tanh_fwd), register_py_func(_tanh_bwd))
_PAIR = (register_py_func(_pair_fwd), register_py_func(_pair_bwd))


def _py_func_fn(ids):
    def fn(*xs):
        return call("py_func", list(xs), forward_callable_id=ids[0],
                    backward_callable_id=ids[1], out_shapes=[list(xs[0].shape)] * (len(xs)),
                    out_dtypes=[xs[0].dtype.name] * len(xs))
    return fn


def _py_func_samples(rng, dtype):
    x = rng.standard_normal((2, 3)).astype(dtype)
    return [Sample((x,), name="2d"), Sample((np.array(x[0, 0]),), name="0d"),
            Sample((x[:, ::2],), name="noncontiguous"),
            Sample((np.zeros((0, 3), dtype),), name="empty")]


def _py_func_pair_samples(rng, dtype):
    x = rng.standard_normal((2, 2)).astype(dtype)
    y = rng.standard_normal((2, 2)).astype(dtype)
    return [Sample((x, y), name="2d"), Sample((np.array(x[0, 0]), np.array(y[0, 0])),
                                              name="0d")]


# --- auc ------------------------------------------------------------------------------------------

def _auc_fn(p, label, sp, sn, **kw):
    return call("auc", p, label, sp, sn, **kw)


def _auc_ref(p, label, sp, sn, num_thresholds=4095, slide_steps=1, curve="ROC"):
    t, L = num_thresholds, num_thresholds + 1
    sp, sn = sp.reshape(-1).astype(np.int64), sn.reshape(-1).astype(np.int64)
    pos, neg = np.zeros(L, np.int64), np.zeros(L, np.int64)
    for prob, lab in zip(p[:, -1], label.reshape(-1)):
        b = min(int(prob * t), t)
        if lab:
            pos[b] += 1
        else:
            neg[b] += 1
    if slide_steps == 0:
        sp[:L] += pos
        sn[:L] += neg
        tot_p, tot_n = sp[:L], sn[:L]
    else:
        cur = int(sp[-1]) % slide_steps
        for buf, new in ((sp, pos), (sn, neg)):
            tot = buf[slide_steps * L:(slide_steps + 1) * L]
            tot -= buf[cur * L:(cur + 1) * L]
            buf[cur * L:(cur + 1) * L] = new
            tot += new
            buf[-1] += 1
        tot_p = sp[slide_steps * L:(slide_steps + 1) * L]
        tot_n = sn[slide_steps * L:(slide_steps + 1) * L]
    area, cp, cn = 0.0, 0.0, 0.0
    for i in range(t, -1, -1):
        pp, pn = cp, cn
        cp, cn = cp + tot_p[i], cn + tot_n[i]
        area += (cn - pn) * (cp + pp) / 2.0
    value = area / cp / cn if cp > 0 and cn > 0 else 0.0
    shape = (1, L) if slide_steps == 0 else (-1,)
    return np.array(value), sp.reshape(shape), sn.reshape(shape)


def _auc_samples(rng, dtype):
    q = rng.random((6, 1)).astype(dtype)
    p = np.concatenate([1 - q, q], 1)
    label = np.array([[0], [1], [1], [1], [0], [0]], np.int64)
    w = np.arange(17, dtype=np.int64) % 3
    w[-1] = 5
    return [Sample((p, label, np.zeros(17, np.int64), np.zeros(17, np.int64)),
                   {"num_thresholds": 7}, name="window"),
            Sample((p, label, w, w[::-1].copy()), {"num_thresholds": 7}, name="window_filled"),
            Sample((p, label.reshape(-1), np.arange(8, dtype=np.int64).reshape(1, 8),
                    np.ones((1, 8), np.int64)), {"num_thresholds": 7, "slide_steps": 0},
                   name="global"),
            Sample((p[:0], label[:0], np.zeros((1, 8), np.int64), np.zeros((1, 8), np.int64)),
                   {"num_thresholds": 7, "slide_steps": 0}, name="empty"),
            Sample((p, label, np.zeros(3 * 5 + 1, np.int64), np.zeros(16, np.int64)),
                   {"num_thresholds": 4, "slide_steps": 2}, name="two_steps")]


ENTRIES = [
    OpEntry("cond", via_op("cond", _cond_build), _cond_ref, _cond_samples,
            grad_args=(1, 2), name="cf_cond"),
    OpEntry("cond", _cond_multi_fn, _cond_multi_ref, _cond_multi_samples,
            grad_args=(1, 2), name="cf_cond_multi_output"),
    OpEntry("while_loop", via_op("while_loop", _while_build), _while_ref, _while_samples,
            grad_args=(1, 2), name="cf_while_loop"),
    OpEntry("while_loop", via_op("while_loop", _while_nested_build), _while_nested_ref,
            _while_nested_samples, grad_args=(1,), name="cf_while_nested"),
    OpEntry("print", _print_fn, lambda x, **kw: x, _print_samples, name="cf_print"),
    # the gradient op runs backward_func, which has no gradient of its own
    OpEntry("py_func", _py_func_fn(_TANH), np.tanh, _py_func_samples, double_grad=False,
            name="py_func"),
    OpEntry("py_func", _py_func_fn(_PAIR), lambda x, y: (x * y, np.sin(x) + y),
            _py_func_pair_samples, double_grad=False, name="py_func_two_outputs"),
    OpEntry("auc", _auc_fn, _auc_ref, _auc_samples, grad=False, name="auc"),
]

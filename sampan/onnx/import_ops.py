"""ONNX import: the table from ONNX op types to sampan calls.

Each entry is `fn(ctx, inputs, attrs) -> output or list of outputs`, written in public sampan
ops so that an imported graph runs eagerly (and fine-tunes through autograd) and traces into a
static Program. Values are Tensors/Variables, or NumPy arrays for constants (initializers that
are not parameters, Constant nodes) that shape-like inputs need concretely.
Imports `framework`, `tensor`, `static`, `nn` (functional).
"""
from __future__ import annotations

import numpy as np

from .. import tensor as paddle
from ..nn import functional as F


def concrete(v, what: str) -> list:
    """A shape/axes/pads input as a Python list (must be a constant or an eager value)."""
    if v is None:
        return None
    if isinstance(v, np.ndarray):
        return v.reshape(-1).tolist()
    if getattr(v, "_is_variable", False):
        raise ValueError(f"onnx.load: {what} must be a constant, but it is computed by the "
                         f"graph (a value known only when the model runs)")
    return v.numpy().reshape(-1).tolist()


def tensor(v):
    return paddle.to_tensor(v) if isinstance(v, np.ndarray) else v


def _unary(fn):
    return lambda ctx, ins, a: fn(tensor(ins[0]))


def _binary(fn):
    return lambda ctx, ins, a: fn(tensor(ins[0]), tensor(ins[1]))


def _variadic(fn):
    def run(ctx, ins, a):
        out = tensor(ins[0])
        for v in ins[1:]:
            out = fn(out, tensor(v))
        return out
    return run


def _pads(a: dict, nd: int) -> list:
    if a.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID", "SAME_UPPER"):
        raise ValueError(f"onnx.load: auto_pad {a['auto_pad']!r} is not supported")
    if a.get("auto_pad") == "SAME_UPPER":
        return "SAME"
    if a.get("auto_pad") == "VALID":
        return "VALID"
    p = a.get("pads", [0] * (2 * nd))
    return [x for i in range(nd) for x in (p[i], p[i + nd])]


def _conv(ctx, ins, a):
    x, w = tensor(ins[0]), tensor(ins[1])
    nd = len(w.shape) - 2
    fn = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[nd]
    return fn(x, w, tensor(ins[2]) if len(ins) > 2 else None, stride=a.get("strides", 1),
              padding=_pads(a, nd), dilation=a.get("dilations", 1), groups=a.get("group", 1))


def _conv_transpose(ctx, ins, a):
    x, w = tensor(ins[0]), tensor(ins[1])
    nd = len(w.shape) - 2
    fn = {1: F.conv1d_transpose, 2: F.conv2d_transpose, 3: F.conv3d_transpose}[nd]
    return fn(x, w, tensor(ins[2]) if len(ins) > 2 else None, stride=a.get("strides", 1),
              padding=_pads(a, nd), output_padding=a.get("output_padding", 0),
              dilation=a.get("dilations", 1), groups=a.get("group", 1))


def _gemm(ctx, ins, a):
    x, y = tensor(ins[0]), tensor(ins[1])
    out = paddle.matmul(x, y, transpose_x=bool(a.get("transA", 0)),
                        transpose_y=bool(a.get("transB", 0)))
    if a.get("alpha", 1.0) != 1.0:
        out = out * a["alpha"]
    if len(ins) > 2 and ins[2] is not None:
        c = tensor(ins[2])
        out = out + (c * a["beta"] if a.get("beta", 1.0) != 1.0 else c)
    return out


def _pool(kind):
    def run(ctx, ins, a):
        x = tensor(ins[0])
        nd = len(x.shape) - 2
        if any(d != 1 for d in a.get("dilations", [1])):
            raise ValueError("onnx.load: pooling with dilations is not supported")
        k, ceil = a["kernel_shape"], bool(a.get("ceil_mode", 0))
        stride, pad = a.get("strides", k), _pads(a, nd)
        if kind == "max":
            fn = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[nd]
            return fn(x, k, stride, pad, ceil_mode=ceil)
        fn = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[nd]
        return fn(x, k, stride, pad, ceil_mode=ceil,
                  exclusive=not a.get("count_include_pad", 0))
    return run


def _global_pool(fn):
    def run(ctx, ins, a):
        x = tensor(ins[0])
        return fn(x, axis=list(range(2, len(x.shape))), keepdim=True)
    return run


def _batch_norm(ctx, ins, a):
    x, scale, bias, mean, var = [tensor(v) for v in ins[:5]]
    return F.batch_norm(x, mean, var, scale, bias, training=False,
                        epsilon=a.get("epsilon", 1e-5))


def _layer_norm(ctx, ins, a):
    x = tensor(ins[0])
    axis = a.get("axis", -1) % len(x.shape)
    return F.layer_norm(x, list(x.shape[axis:]), tensor(ins[1]),
                        tensor(ins[2]) if len(ins) > 2 else None, a.get("epsilon", 1e-5))


def _reshape(ctx, ins, a):
    if a.get("allowzero", 0):
        raise ValueError("onnx.load: Reshape allowzero=1 is not supported")
    if isinstance(ins[0], np.ndarray):
        return ins[0].reshape(_resolve_np_shape(ins[0].shape, concrete(ins[1], "shape")))
    return paddle.reshape(ins[0], [int(s) for s in concrete(ins[1], "Reshape shape")])


def _resolve_np_shape(shape, target):
    return [shape[i] if s == 0 else s for i, s in enumerate(target)]


def _transpose(ctx, ins, a):
    x = tensor(ins[0])
    return paddle.transpose(x, a.get("perm", list(range(len(x.shape)))[::-1]))


def _slice(ctx, ins, a):
    x = ins[0]
    starts, ends = concrete(ins[1], "Slice starts"), concrete(ins[2], "Slice ends")
    nd = len(x.shape)
    axes = concrete(ins[3], "Slice axes") if len(ins) > 3 and ins[3] is not None \
        else list(range(len(starts)))
    steps = concrete(ins[4], "Slice steps") if len(ins) > 4 and ins[4] is not None \
        else [1] * len(starts)
    index = [slice(None)] * nd
    big = 2 ** 62
    for s, e, ax, st in zip(starts, ends, axes, steps):
        index[ax % nd] = slice(None if abs(s) >= big else s, None if abs(e) >= big else e, st)
    return x[tuple(index)]


def _gather(ctx, ins, a):
    x, idx = ins
    axis = a.get("axis", 0) % len(x.shape)
    if isinstance(idx, np.ndarray) and idx.ndim == 0:
        return tensor(x)[(slice(None),) * axis + (int(idx),)]
    idx = tensor(idx)
    out = paddle.gather(tensor(x), paddle.reshape(idx, [-1]), axis=axis)
    if len(idx.shape) == 1:
        return out
    shape = list(x.shape[:axis]) + list(idx.shape) + list(x.shape[axis + 1:])
    return paddle.reshape(out, [int(s) for s in shape])


def _flatten(ctx, ins, a):
    x = tensor(ins[0])
    axis = a.get("axis", 1) % (len(x.shape) + 1)
    if axis == 0:
        return paddle.reshape(x, [1, -1])
    if axis == len(x.shape):
        return paddle.unsqueeze(paddle.flatten(x), -1) if axis > 1 else paddle.unsqueeze(x, -1)
    head = paddle.flatten(x, 0, axis - 1)
    return paddle.flatten(head, 1, -1)


def _squeeze(ctx, ins, a):
    axes = concrete(ins[1], "Squeeze axes") if len(ins) > 1 else None
    return paddle.squeeze(tensor(ins[0]), axes)


def _unsqueeze(ctx, ins, a):
    x = tensor(ins[0])
    n = len(x.shape) + len(concrete(ins[1], "Unsqueeze axes"))
    for ax in sorted(int(v) % n for v in concrete(ins[1], "Unsqueeze axes")):
        x = paddle.unsqueeze(x, ax)
    return x


def _constant(ctx, ins, a):
    from onnx import numpy_helper
    if "value" not in a:
        raise ValueError(f"onnx.load: Constant with {sorted(a)} is not supported")
    return numpy_helper.to_array(a["value"])


def _cast(ctx, ins, a):
    from onnx import helper
    dtype = helper.tensor_dtype_to_np_dtype(a["to"])
    if isinstance(ins[0], np.ndarray):
        return ins[0].astype(dtype)
    return paddle.cast(ins[0], dtype.name)


def _shape(ctx, ins, a):
    x = ins[0]
    if isinstance(x, np.ndarray) or -1 not in list(x.shape):
        return np.asarray(x.shape, np.int64)[a.get("start", 0):a.get("end", None)]
    return paddle.cast(paddle.shape(x), "int64")[a.get("start", 0):a.get("end", None)]


def _expand(ctx, ins, a):
    x = tensor(ins[0])
    shape = np.broadcast_shapes(tuple(x.shape), tuple(concrete(ins[1], "Expand shape")))
    return paddle.expand(x, list(shape))


def _reduce(fn, axes_input=False):
    def run(ctx, ins, a):
        axes = a.get("axes")
        if axes_input:
            axes = concrete(ins[1], "reduce axes") if len(ins) > 1 else None
        if not axes and a.get("noop_with_empty_axes", 0):
            return ins[0]
        return fn(tensor(ins[0]), axis=axes or None, keepdim=bool(a.get("keepdims", 1)))
    return run


def _arg(fn):
    def run(ctx, ins, a):
        if a.get("select_last_index", 0):
            raise ValueError("onnx.load: select_last_index=1 is not supported")
        return fn(tensor(ins[0]), axis=a.get("axis", 0), keepdim=bool(a.get("keepdims", 1)))
    return run


def _split(ctx, ins, a):
    x = tensor(ins[0])
    axis = a.get("axis", 0)
    if len(ins) > 1 and ins[1] is not None:
        return paddle.split(x, [int(s) for s in concrete(ins[1], "Split split")], axis)
    return paddle.split(x, ctx.n_out, axis)


def _clip(ctx, ins, a):
    lo = concrete(ins[1], "Clip min")[0] if len(ins) > 1 and ins[1] is not None else None
    hi = concrete(ins[2], "Clip max")[0] if len(ins) > 2 and ins[2] is not None else None
    return paddle.clip(tensor(ins[0]), lo, hi)


def _topk(ctx, ins, a):
    k = int(concrete(ins[1], "TopK k")[0])
    vals, idx = paddle.topk(tensor(ins[0]), k, axis=a.get("axis", -1),
                            largest=bool(a.get("largest", 1)))
    return [vals, paddle.cast(idx, "int64")]


def _rnn_args(ins, a, gates: int):
    """(x time-major, per-direction (W, R, Wb, Rb, h0 [, c0])) of an ONNX LSTM/GRU node."""
    if a.get("activations") or a.get("clip") or a.get("input_forget"):
        raise ValueError("custom activations, clip and input_forget are not supported")
    if len(ins) > 4 and ins[4] is not None:
        raise ValueError("sequence_lens is not supported (pad-free batches only)")
    if len(ins) > 7 and ins[7] is not None:
        raise ValueError("peephole weights (P) are not supported")
    x = tensor(ins[0])
    if a.get("layout", 0):
        x = paddle.transpose(x, [1, 0, 2])
    w, r = tensor(ins[1]), tensor(ins[2])
    dirs, hidden = int(w.shape[0]), int(a["hidden_size"])
    b = tensor(ins[3]) if len(ins) > 3 and ins[3] is not None else \
        paddle.zeros([dirs, 2 * gates * hidden], w.dtype)
    batch = x.shape[1]
    states = []
    for k in (5, 6)[:2 if gates == 4 else 1]:
        v = ins[k] if len(ins) > k else None
        states.append(tensor(v) if v is not None else
                      paddle.zeros([dirs, batch, hidden], w.dtype))
    per_dir = [(w[d], r[d], b[d][:gates * hidden], b[d][gates * hidden:],
                *[st[d] for st in states]) for d in range(dirs)]
    return x, per_dir, a.get("direction", "forward")


def _run_dirs(x, per_dir, direction, cell, layout):
    steps = list(range(x.shape[0]))
    ys, finals = [], []
    for d, args in enumerate(per_dir):
        order = steps[::-1] if direction == "reverse" or d == 1 else steps
        state, outs = args[4:], {}
        for t in order:
            state = cell(x[t], args[:4], state)
            outs[t] = state[0]
        ys.append(paddle.stack([outs[t] for t in steps]))
        finals.append(state)
    y = paddle.stack(ys, axis=1)   # [seq, dirs, batch, hidden]
    result = [y] + [paddle.stack([f[k] for f in finals]) for k in range(len(finals[0]))]
    if layout:
        result = [paddle.transpose(y, [2, 0, 1, 3])] + \
            [paddle.transpose(v, [1, 0, 2]) for v in result[1:]]
    return result


def _lstm(ctx, ins, a):
    x, per_dir, direction = _rnn_args(ins, a, 4)

    def cell(xt, wts, state):
        w, r, wb, rb = wts
        h, c = state
        g = paddle.matmul(xt, w, transpose_y=True) + paddle.matmul(h, r, transpose_y=True) \
            + wb + rb
        i, o, f, cc = paddle.split(g, 4, axis=-1)   # ONNX gate order: i, o, f, c
        c = F.sigmoid(f) * c + F.sigmoid(i) * paddle.tanh(cc)
        return F.sigmoid(o) * paddle.tanh(c), c
    return _run_dirs(x, per_dir, direction, cell, a.get("layout", 0))


def _gru(ctx, ins, a):
    x, per_dir, direction = _rnn_args(ins, a, 3)
    before = bool(a.get("linear_before_reset", 0))

    def cell(xt, wts, state):
        w, r, wb, rb = wts
        h = state[0]
        xz, xr, xh = paddle.split(paddle.matmul(xt, w, transpose_y=True) + wb, 3, axis=-1)
        rz, rr, rh_w = paddle.split(r, 3, axis=0)
        bz, br, bh = paddle.split(rb, 3, axis=-1)
        z = F.sigmoid(xz + paddle.matmul(h, rz, transpose_y=True) + bz)
        rt = F.sigmoid(xr + paddle.matmul(h, rr, transpose_y=True) + br)
        if before:
            hh = paddle.tanh(xh + rt * (paddle.matmul(h, rh_w, transpose_y=True) + bh))
        else:
            hh = paddle.tanh(xh + paddle.matmul(rt * h, rh_w, transpose_y=True) + bh)
        return ((1 - z) * hh + z * h,)
    return _run_dirs(x, per_dir, direction, cell, a.get("layout", 0))


OPS = {
    "Relu": _unary(F.relu), "Sigmoid": _unary(F.sigmoid), "Tanh": _unary(paddle.tanh),
    "Exp": _unary(paddle.exp), "Log": _unary(paddle.log), "Sqrt": _unary(paddle.sqrt),
    "Abs": _unary(paddle.abs), "Neg": _unary(paddle.neg), "Erf": _unary(paddle.erf),
    "Reciprocal": _unary(paddle.reciprocal), "Floor": _unary(paddle.floor),
    "Ceil": _unary(paddle.ceil), "Not": _unary(paddle.logical_not),
    "Identity": lambda ctx, ins, a: ins[0], "Dropout": lambda ctx, ins, a: ins[0],
    "LeakyRelu": lambda ctx, ins, a: F.leaky_relu(tensor(ins[0]), a.get("alpha", 0.01)),
    "Elu": lambda ctx, ins, a: F.elu(tensor(ins[0]), a.get("alpha", 1.0)),
    "Softmax": lambda ctx, ins, a: F.softmax(tensor(ins[0]), a.get("axis", -1)),
    "LogSoftmax": lambda ctx, ins, a: F.log_softmax(tensor(ins[0]), a.get("axis", -1)),
    "Add": _binary(paddle.add), "Sub": _binary(paddle.subtract),
    "Mul": _binary(paddle.multiply), "Div": _binary(paddle.divide), "Pow": _binary(paddle.pow),
    "Equal": _binary(paddle.equal), "Less": _binary(paddle.less_than),
    "Greater": _binary(paddle.greater_than), "LessOrEqual": _binary(paddle.less_equal),
    "GreaterOrEqual": _binary(paddle.greater_equal), "And": _binary(paddle.logical_and),
    "Or": _binary(paddle.logical_or), "Xor": _binary(paddle.logical_xor),
    "Max": _variadic(paddle.maximum), "Min": _variadic(paddle.minimum),
    "Sum": _variadic(paddle.add), "MatMul": _binary(paddle.matmul),
    "Where": lambda ctx, ins, a: paddle.where(tensor(ins[0]), tensor(ins[1]), tensor(ins[2])),
    "Conv": _conv, "ConvTranspose": _conv_transpose, "Gemm": _gemm,
    "MaxPool": _pool("max"), "AveragePool": _pool("avg"),
    "GlobalAveragePool": _global_pool(paddle.mean), "GlobalMaxPool": _global_pool(paddle.max),
    "BatchNormalization": _batch_norm, "LayerNormalization": _layer_norm,
    "Reshape": _reshape, "Transpose": _transpose, "Slice": _slice, "Gather": _gather,
    "Concat": lambda ctx, ins, a: paddle.concat([tensor(v) for v in ins], a["axis"]),
    "Flatten": _flatten, "Squeeze": _squeeze, "Unsqueeze": _unsqueeze,
    "Constant": _constant, "Cast": _cast, "Shape": _shape, "Expand": _expand,
    "ReduceSum": _reduce(paddle.sum, axes_input=True), "ReduceMean": _reduce(paddle.mean),
    "ReduceMax": _reduce(paddle.max), "ReduceMin": _reduce(paddle.min),
    "ReduceProd": _reduce(paddle.prod), "ArgMax": _arg(paddle.argmax),
    "ArgMin": _arg(paddle.argmin), "Split": _split, "Clip": _clip, "TopK": _topk,
    "Einsum": lambda ctx, ins, a: paddle.einsum(a["equation"], *[tensor(v) for v in ins]),
    "LSTM": _lstm, "GRU": _gru,
}

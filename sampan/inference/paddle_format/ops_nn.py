"""Translators of Paddle's neural-network op types (legacy names and slots) onto sampan's
nn.functional: convolution, pooling, normalization, activations, dropout, rnn, embedding,
interpolation. Each translator is `fn(ctx, op) -> {output slot: value}`.
Imports `nn.functional`, `tensor` and its package.
"""
from __future__ import annotations

import numpy as np

from ... import tensor as T
from ...ops.dispatch import call
from ...nn import functional as F
from .build import LazyFill, Unsupported


def _pads(p: list, nd: int = 2):
    """Paddle's paddings attr ([ph, pw] or [top, bottom, left, right]) as sampan padding
    (the same two forms as Paddle's functional API)."""
    p = [int(v) for v in p]
    if len(p) == 2 * nd and all(p[2 * i] == p[2 * i + 1] for i in range(nd)):
        return p[::2]
    return p


def _padding(a: dict, nd: int = 2):
    algo = a.get("padding_algorithm", "EXPLICIT")
    return algo if algo in ("SAME", "VALID") else _pads(a.get("paddings", [0] * nd), nd)


def _fmt(a: dict) -> str:
    f = a.get("data_format", a.get("data_layout", "NCHW"))
    return "NCHW" if f in ("AnyLayout", "NCHW") else f


def conv2d(c, op):
    a = op.attrs
    out = F.conv2d(c.var(op, "Input"), c.var(op, "Filter"), c.opt(op, "Bias"),
                   a.get("strides", [1, 1]), _padding(a), a.get("dilations", [1, 1]),
                   a.get("groups", 1), _fmt(a))
    return {"Output": out}


def conv2d_transpose(c, op):
    a = op.attrs
    size = a.get("output_size") or None
    out = F.conv2d_transpose(c.var(op, "Input"), c.var(op, "Filter"), c.opt(op, "Bias"),
                             a.get("strides", [1, 1]), _padding(a),
                             a.get("output_padding") or 0, a.get("dilations", [1, 1]),
                             a.get("groups", 1), list(size) if size else None, _fmt(a))
    return {"Output": out}


def pool2d(c, op):
    a = op.attrs
    x, fmt = c.var(op, "X"), _fmt(a)
    kind, ksize = a.get("pooling_type", "max"), list(a.get("ksize", [1, 1]))
    if a.get("global_pooling"):
        ksize, a = [1, 1], dict(a, adaptive=True)
    if a.get("adaptive"):
        if kind == "max":
            return {"Out": F.adaptive_max_pool2d(x, ksize)}
        return {"Out": F.adaptive_avg_pool2d(x, ksize, data_format=fmt)}
    stride, pad = a.get("strides", [1, 1]), _padding(a)
    if kind == "max":
        out = F.max_pool2d(x, ksize, stride, pad, ceil_mode=a.get("ceil_mode", False),
                           data_format=fmt)
    else:
        out = F.avg_pool2d(x, ksize, stride, pad, ceil_mode=a.get("ceil_mode", False),
                           exclusive=a.get("exclusive", True), data_format=fmt)
    return {"Out": out}


def batch_norm(c, op):
    a = op.attrs
    y = F.batch_norm(c.var(op, "X"), c.var(op, "Mean"), c.var(op, "Variance"),
                     c.opt(op, "Scale"), c.opt(op, "Bias"), training=False,
                     epsilon=a.get("epsilon", 1e-5), data_format=_fmt(a))
    return {"Y": y}


def layer_norm(c, op):
    """Normalise over the dims from begin_norm_axis on; Paddle's scale/bias are 1-D over
    their product, so those dims are flattened into one first."""
    x = c.var(op, "X")
    begin = op.attrs.get("begin_norm_axis", 1) % max(len(x.shape), 1)
    shape = list(x.shape[begin:])
    if -1 in shape:
        raise Unsupported(f"layer_norm over dims {shape} of unknown size")
    size = int(np.prod(shape))
    flat = T.flatten(x, begin, -1) if len(shape) > 1 else x
    y = F.layer_norm(flat, [size], c.opt(op, "Scale"), c.opt(op, "Bias"),
                     op.attrs.get("epsilon", 1e-5))
    return {"Y": T.reshape(y, [0] * begin + shape) if len(shape) > 1 else y}


def instance_norm(c, op):
    y = F.instance_norm(c.var(op, "X"), weight=c.opt(op, "Scale"), bias=c.opt(op, "Bias"),
                        eps=op.attrs.get("epsilon", 1e-5))
    return {"Y": y}


def group_norm(c, op):
    a = op.attrs
    y = F.group_norm(c.var(op, "X"), a["groups"], a.get("epsilon", 1e-5), c.opt(op, "Scale"),
                     c.opt(op, "Bias"), _fmt(a))
    return {"Y": y}


def dropout(c, op):
    """Inference: identity, or x * (1 - p) in Paddle's 'downgrade_in_infer' mode."""
    x = c.var(op, "X")
    mode = op.attrs.get("dropout_implementation", op.attrs.get("mode", "downgrade_in_infer"))
    if mode == "upscale_in_train":
        return {"Out": x}
    return {"Out": T.scale(x, 1.0 - float(op.attrs.get("dropout_prob", 0.5)))}


def _act(fn, **names):
    """A one-input activation; `names` maps sampan keyword -> (Paddle attr, default)."""
    def translate(c, op):
        kw = {k: op.attrs.get(attr, dflt) for k, (attr, dflt) in names.items()}
        return {"Out": fn(c.var(op, "X"), **kw)}
    return translate


def hard_swish(c, op):
    a = op.attrs
    x = c.var(op, "X")
    t, s, o = a.get("threshold", 6.0), a.get("scale", 6.0), a.get("offset", 3.0)
    if (t, s, o) == (6.0, 6.0, 3.0):
        return {"Out": F.hardswish(x)}
    return {"Out": x * T.clip(x + o, 0.0, t) / s}


def prelu(c, op):
    x, alpha = c.var(op, "X"), c.var(op, "Alpha")
    mode = op.attrs.get("mode", "all")
    if mode == "element":
        return {"Out": T.maximum(x, T.zeros_like(x)) + alpha * T.minimum(x, T.zeros_like(x))}
    return {"Out": F.prelu(x, T.reshape(alpha, [-1]), _fmt(op.attrs))}


def softmax(c, op):
    return {"Out": F.softmax(c.var(op, "X"), op.attrs.get("axis", -1))}


def log_softmax(c, op):
    return {"Out": F.log_softmax(c.var(op, "X"), op.attrs.get("axis", -1))}


def embedding(c, op):
    pad = op.attrs.get("padding_idx", -1)
    out = F.embedding(c.var(op, "Ids"), c.var(op, "W"), None if pad in (-1, None) else pad)
    return {"Out": out}


def interp(mode: str):
    def translate(c, op):
        a = op.attrs
        x, fmt = c.var(op, "X"), _fmt(a)
        size = [v for v in (a.get("out_d", -1), a.get("out_h", -1), a.get("out_w", -1))
                if v > 0]
        scale = [float(s) for s in a.get("scale", []) or []]
        if c.has(op, "OutSize") or c.has(op, "SizeTensor") or c.has(op, "Scale"):
            raise Unsupported(f"{op.type} with a run-time output size or scale")
        kw = {"size": size} if size else {"scale_factor": scale}
        if mode == "nearest" and not size and len(x.shape) == 4 and fmt == "NCHW" and all(
                float(v).is_integer() and v >= 1 for v in scale) and len(scale) == 2:
            return {"Out": _repeat_nearest(x, [int(v) for v in scale])}
        out = F.interpolate(x, mode=mode, align_corners=a.get("align_corners", False),
                            align_mode=a.get("align_mode", 1), data_format=fmt, **kw)
        return {"Out": out}
    return translate


def _repeat_nearest(x, scale: list):
    """Nearest upsampling by whole factors as expand + reshape, which keeps a run-time batch
    dim (NOTE: F.interpolate's static shape arithmetic needs a known batch)."""
    sh, sw = scale
    h, w = x.shape[2], x.shape[3]
    y = T.expand(T.reshape(x, [0, 0, h, 1, w, 1]), [-1, -1, -1, sh, -1, sw])
    return T.reshape(y, [0, 0, h * sh, w * sw])


def _state(c, op, value, x_proj, k: int, hidden: int):
    """Initial state k ([B, H]) from PreState; a fill with a run-time batch is made from
    x_proj (whose dims are [T, B, gates * H])."""
    if isinstance(value, LazyFill):
        first = T.slice(x_proj, [0, 2], [0, 0], [1, hidden])
        return T.full_like(T.squeeze(first, [0]), value.value)
    return T.squeeze(T.slice(c.as_var(value, op, "PreState"), [0], [k], [k + 1]), [0])


_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def rnn(c, op):
    """Paddle's fused rnn op (LSTM, GRU, RNN_TANH/RELU; stacked, bidirectional) over
    time-major input, one fused scan OpDef per layer and direction. WeightList holds every
    (W_ih, W_hh) pair, then every (b_ih, b_hh) pair, layer-major, forward before backward."""
    a = op.attrs
    mode, hidden = a.get("mode", "LSTM"), a["hidden_size"]
    layers, dirs = a.get("num_layers", 1), 2 if a.get("is_bidirec") else 1
    if mode not in _GATES:
        raise Unsupported(f"rnn mode {mode!r}")
    if c.has(op, "SequenceLength"):
        raise Unsupported("rnn with SequenceLength")
    weights = c.vars(op, "WeightList")
    n = layers * dirs
    w, b = weights[:2 * n], weights[2 * n:]
    states = c.values(op, "PreState")
    x, finals = c.var(op, "Input"), [[] for _ in states]
    for layer in range(layers):
        outs = []
        for d in range(dirs):
            k = layer * dirs + d
            proj = T.matmul(x, w[2 * k], transpose_y=True) + b[2 * k]
            if mode != "GRU":
                proj = proj + b[2 * k + 1]
            seq = T.flip(proj, [0]) if d else proj
            init = [_state(c, op, s, seq, k, hidden) for s in states]
            seqs = _scan(mode, seq, init, w[2 * k + 1], b[2 * k + 1])
            for final, h in zip(finals, seqs):
                final.append(h[-1])
            outs.append(T.flip(seqs[0], [0]) if d else seqs[0])
        x = T.concat(outs, -1) if dirs == 2 else outs[0]
    return {"Out": x, "State": [T.stack(f, 0) for f in finals]}


def _scan(mode: str, x, init: list, w_hh, b_hh) -> list:
    """The fused whole-sequence scan OpDefs that sampan's own RNN layers run."""
    if mode == "LSTM":
        return list(call("_lstm_scan", x, init[0], init[1], w_hh, None))
    if mode == "GRU":
        return [call("_gru_scan", x, init[0], w_hh, b_hh, None)]
    act = "tanh" if mode == "RNN_TANH" else "relu"
    return [call("_rnn_scan", x, init[0], w_hh, None, activation=act)]


TABLE = {
    "conv2d": conv2d, "depthwise_conv2d": conv2d, "conv2d_transpose": conv2d_transpose,
    "depthwise_conv2d_transpose": conv2d_transpose,
    "pool2d": pool2d, "batch_norm": batch_norm, "sync_batch_norm": batch_norm,
    "layer_norm": layer_norm, "instance_norm": instance_norm, "group_norm": group_norm,
    "dropout": dropout, "softmax": softmax, "log_softmax": log_softmax,
    "relu": _act(F.relu), "relu6": _act(F.relu6), "sigmoid": _act(F.sigmoid),
    "tanh": _act(T.tanh), "gelu": _act(F.gelu, approximate=("approximate", False)),
    "leaky_relu": _act(F.leaky_relu, negative_slope=("alpha", 0.02)),
    "hard_swish": hard_swish,
    "hard_sigmoid": _act(F.hardsigmoid, slope=("slope", 0.2), offset=("offset", 0.5)),
    "swish": _act(F.swish), "silu": _act(F.silu), "mish": _act(F.mish),
    "elu": _act(F.elu, alpha=("alpha", 1.0)),
    "softplus": _act(F.softplus, beta=("beta", 1.0), threshold=("threshold", 20.0)),
    "softsign": _act(F.softsign), "logsigmoid": _act(F.log_sigmoid),
    "prelu": prelu, "lookup_table_v2": embedding,
    "bilinear_interp_v2": interp("bilinear"), "nearest_interp_v2": interp("nearest"),
    "bicubic_interp_v2": interp("bicubic"), "linear_interp_v2": interp("linear"),
    "rnn": rnn,
}

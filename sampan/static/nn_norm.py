"""paddle.static.nn normalization layers: batch_norm (running statistics written back into
their persistable variables), layer_norm, group_norm, instance_norm, data_norm.
Re-exported by static/nn.py.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from ..ops.dispatch import call
from ..utils import unique_name
from .nn import _activation, _channels, _const, _F, _param, _static_layer
from .input import _require_static


@_static_layer
def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalization layer: scale ("batch_norm_k.w_0", 1), bias (".b_0", 0), running
    mean (".w_1" or moving_mean_name, 0) and variance (".w_2", 1), the last two
    persistable and not trainable. While training (is_test False and use_global_stats
    False) the op normalizes with the batch statistics and writes the updated running
    statistics back into their variables; otherwise it uses the running statistics."""
    api = "batch_norm"
    if data_layout not in ("NCHW", "NHWC"):
        raise ValueError(f"{api}: data_layout must be 'NCHW' or 'NHWC', got {data_layout!r}")
    c = _channels(api, input, data_layout)
    prefix = name or unique_name.generate(api)
    dt = input.dtype
    stat_dt = _dt.convert_dtype("float32") if dt.name in ("float16", "bfloat16") else dt
    scale = _param(prefix, "w_0", [c], stat_dt, param_attr, _const(1.0))
    bias = _param(prefix, "b_0", [c], stat_dt, bias_attr, is_bias=True)
    mean = _param(prefix, "w_1", [c], stat_dt, moving_mean_name, _const(0.0),
                  trainable=False)
    var = _param(prefix, "w_2", [c], stat_dt, moving_variance_name, _const(1.0),
                 trainable=False)
    frozen = bool(is_test or use_global_stats)
    outs = call("batch_norm", input, mean, var, scale, bias, momentum=float(momentum),
                epsilon=float(epsilon), data_format=data_layout, use_global_stats=frozen)
    _write_outputs({3: mean.name, 4: var.name})
    return _activation(outs[0], act, api)


def _write_outputs(targets: dict) -> None:
    """Make the op appended last write its outputs at the given positions into the named
    (persistable) variables, as Paddle's MeanOut shares the Mean variable."""
    from .program import default_main_program
    block = default_main_program().current_block()
    op = block.ops[-1]
    slots = list(op.outputs)
    for pos, target in targets.items():
        old = op.outputs[slots[pos]][0]
        op.outputs[slots[pos]] = [target]
        del block.vars[old]
    block.program._bump()


@_static_layer
def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,
               param_attr=None, bias_attr=None, act=None, name=None):
    """Layer normalization over the dims from begin_norm_axis on; scale ("layer_norm_k.w_0",
    1) and shift (".b_0", 0) hold prod(input.shape[begin_norm_axis:]) values."""
    api = "layer_norm"
    if not 0 < begin_norm_axis < input.ndim:
        raise ValueError(f"{api}: begin_norm_axis must be in [1, {input.ndim - 1}] for an "
                         f"input of shape {list(input.shape)}, got {begin_norm_axis}")
    norm_shape = input.shape[begin_norm_axis:]
    if min(norm_shape) < 0:
        raise ValueError(f"{api}: the normalized dims {norm_shape} must be known")
    prefix = name or unique_name.generate(api)
    n = math.prod(norm_shape)
    w = _param(prefix, "w_0", [n], input.dtype, param_attr, _const(1.0)) if scale else None
    b = _param(prefix, "b_0", [n], input.dtype, bias_attr, is_bias=True) if shift else None
    out = _F().layer_norm(input, norm_shape, weight=w, bias=b, epsilon=epsilon)
    return _activation(out, act, api)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,
               data_layout="NCHW", name=None):
    """Group normalization; scale ("group_norm_k.w_0", 1) and bias (".b_0", 0) per channel.
    The input's rank is checked before the mode, as in Paddle (ValueError even eagerly)."""
    api = "group_norm"
    if len(getattr(input, "shape", ())) < 2:
        raise ValueError(f"paddle.static.nn.group_norm: the dimensions of input should be "
                         f"more than 1, got shape {list(getattr(input, 'shape', []))}")
    _require_static("paddle.static.nn.group_norm")
    c = _channels(api, input, data_layout)
    if not isinstance(groups, int) or groups <= 0 or c % groups:
        raise ValueError(f"{api}: groups must be a positive divisor of the channels ({c}), "
                         f"got {groups!r}")
    prefix = name or unique_name.generate(api)
    w = _param(prefix, "w_0", [c], input.dtype, param_attr, _const(1.0))
    b = _param(prefix, "b_0", [c], input.dtype, bias_attr, is_bias=True)
    if input.shape[0] >= 0 or data_layout != "NCHW" or min(input.shape[1:]) < 0:
        out = _F().group_norm(input, groups, epsilon=epsilon, weight=w, bias=b,
                              data_format=data_layout)
        return _activation(out, act, api)
    # unknown batch size: F.group_norm reshapes to [n, groups, -1], which needs n
    xg = call("reshape", input, shape=[0, groups, math.prod(input.shape[1:]) // groups])
    xc = xg - xg.mean(axis=2, keepdim=True)
    out = xc * call("rsqrt", (xc * xc).mean(axis=2, keepdim=True) + epsilon)
    out = call("reshape", out, shape=[0] + input.shape[1:])
    view = [1, c] + [1] * (input.ndim - 2)
    if w is not None:
        out = out * call("reshape", w, shape=view)
    if b is not None:
        out = out + call("reshape", b, shape=view)
    return _activation(out, act, api)


@_static_layer
def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Instance normalization (NCHW-like input); scale ("instance_norm_k.w_0", 1) and bias
    (".b_0", 0) per channel; param_attr=False/bias_attr=False leave them out."""
    api = "instance_norm"
    c = _channels(api, input, "NCHW")
    prefix = name or unique_name.generate(api)
    w = _param(prefix, "w_0", [c], input.dtype, param_attr, _const(1.0))
    b = _param(prefix, "b_0", [c], input.dtype, bias_attr, is_bias=True)
    return _F().instance_norm(input, weight=w, bias=b, eps=epsilon)


@_static_layer
def data_norm(input, act=None, epsilon=1e-05, param_attr=None, data_layout="NCHW",
              in_place=False, name=None, moving_mean_name=None, moving_variance_name=None,
              do_model_average_for_mean_and_var=True, slot_dim=-1, sync_stats=False,
              summary_decay_rate=0.9999999, enable_scale_and_shift=False):
    """Data normalization by accumulated statistics (input [N, C]): batch_size
    ("data_norm_k.w_0", 1e4), batch_sum (".w_1", 0), batch_square_sum (".w_2", 1e4);
    out = (x - batch_sum / batch_size) * sqrt(batch_size / batch_square_sum). Each training
    run then updates the statistics (decayed by summary_decay_rate) with the batch's count,
    sum and sum of squared deviations (+ epsilon per row). slot_dim and sync_stats are not
    supported; enable_scale_and_shift adds scale_w (1) and bias (0) parameters."""
    api = "data_norm"
    if input.ndim != 2:
        raise ValueError(f"{api}: input must be 2-D [N, C], got shape {list(input.shape)}")
    if slot_dim != -1:
        raise NotImplementedError(f"{api}: slot_dim is not supported")
    c = _channels(api, input, "NC")
    prefix = name or unique_name.generate(api)
    dt = input.dtype
    attrs = param_attr if isinstance(param_attr, dict) else {}
    size = _param(prefix, "w_0", [c], dt, None, _const(attrs.get("batch_size", 1e4)),
                  trainable=False)
    total = _param(prefix, "w_1", [c], dt, None, _const(attrs.get("batch_sum", 0.0)),
                   trainable=False)
    square = _param(prefix, "w_2", [c], dt, None, _const(attrs.get("batch_square", 1e4)),
                    trainable=False)
    means = total / size
    out = (input - means) * call("sqrt", size / square)
    if enable_scale_and_shift:
        out = out * _param(prefix, "scale_w", [c], dt, attrs.get("scale_w"), _const(1.0)) \
            + _param(prefix, "bias", [c], dt, attrs.get("bias"), _const(0.0), is_bias=True)
    from .program import default_main_program
    if not default_main_program()._is_test:
        x = input.detach()
        n = call("cast", call("full_like", call("sum", x, axis=[1], keepdim=False,
                                                dtype=None), fill_value=1.0, dtype=None)
                 .sum(), dtype=dt.name)
        decay = float(summary_decay_rate)
        dev = x - means.detach()
        for var, value in ((size, size * decay + n),
                           (total, total * decay + x.sum(axis=0)),
                           (square, square * decay + (dev * dev).sum(axis=0) + n * epsilon)):
            var._rebind(value)
    return _activation(out, act, api)

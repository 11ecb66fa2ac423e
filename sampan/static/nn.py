"""paddle.static.nn: layer functions that create their parameters in the current Programs.

Each layer makes its parameters with static `create_parameter` (initialised by the startup
program, Paddle's names: "<layer>_<k>.w_0", ".b_0") and then calls the same functional ops
eager code uses. Initializers: Constant/Normal/Uniform become startup ops; any other
`paddle.nn.initializer` runs eagerly once at build time and its values are assigned by the
startup program. Imports `framework`, `ops`, `nn.functional` (lazily) and `static`.
"""
from __future__ import annotations

import functools
import math

from ..framework import dtype as _dt
from ..ops.dispatch import call
from ..utils import unique_name
from .input import StaticInit, _require_static, create_parameter

__all__ = ["fc", "conv2d", "conv2d_transpose", "conv3d", "conv3d_transpose", "batch_norm",
           "layer_norm", "group_norm", "instance_norm", "embedding", "sparse_embedding",
           "prelu", "data_norm", "bilinear_tensor_product", "row_conv", "spectral_norm"]


def _static_layer(fn):
    """Refuse eager calls up front, naming the layer (Paddle asserts static mode too)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _require_static(f"paddle.static.nn.{fn.__name__}")
        return fn(*args, **kwargs)
    return wrapper


def _F():
    from ..nn import functional
    return functional


def _activation(x, act: str | None, api: str = "fc"):
    if act is None:
        return x
    fn = getattr(_F(), act, None)
    if fn is None:
        raise ValueError(f"{api}: unknown activation {act!r}")
    return fn(x)


# --- parameters ------------------------------------------------------------------------------

class _Attr:
    """The ParamAttr fields create_parameter reads, with the initializer made static."""

    def __init__(self, attr, name: str, default_init) -> None:
        self.name = getattr(attr, "name", None) or name
        init = getattr(attr, "initializer", None) or default_init
        self.initializer = None if init is None else StaticInit(init)
        self.learning_rate = getattr(attr, "learning_rate", None)
        self.regularizer = getattr(attr, "regularizer", None)
        self.trainable = getattr(attr, "trainable", True)
        self.need_clip = getattr(attr, "need_clip", True)


def _param(prefix: str, suffix: str, shape, dtype, attr, default_init=None,
           is_bias: bool = False, trainable: bool | None = None):
    """A layer parameter named "<prefix>.<suffix>" (or attr.name); None when attr is False."""
    if attr is False:
        return None
    if isinstance(attr, str):
        from ..framework.param_attr import ParamAttr
        attr = ParamAttr(name=attr)
    attrs = _Attr(attr, f"{prefix}.{suffix}", default_init)
    if trainable is not None:
        attrs.trainable = trainable
    p = create_parameter(list(shape), dtype, name=attrs.name, attr=attrs, is_bias=is_bias)
    if not attrs.trainable:
        p.stop_gradient = True
    return p


def _const(value: float):
    from ..nn import initializer as I
    return I.Constant(value)


def _channels(api: str, x, layout: str) -> int:
    if x.ndim < 2:
        raise ValueError(f"{api}: input must be at least 2-D, got shape {x.shape}")
    c = x.shape[1] if layout[1] == "C" or x.ndim == 2 else x.shape[-1]
    if c < 0:
        raise ValueError(f"{api}: the channel dim of the input (shape {x.shape}, layout "
                         f"{layout}) must be known")
    return c


def _ints(api: str, arg: str, value, n: int) -> list:
    if isinstance(value, int):
        return [value] * n
    value = list(value)
    if len(value) != n or not all(isinstance(v, int) for v in value):
        raise ValueError(f"{api}: {arg} must be an int or {n} ints, got {value}")
    return value


# --- fc --------------------------------------------------------------------------------------

@_static_layer
def fc(x, size: int, num_flatten_dims: int = 1, weight_attr=None, bias_attr=None,
       activation: str | None = None, name: str | None = None):
    """Fully connected layer: out = activation(flatten(x) @ W + b).

    Args:
        x (Variable|list): input(s); a list gets one weight each and the products are summed.
        size (int): output features.
        num_flatten_dims (int): leading dims kept; the rest are flattened into the features.
        weight_attr, bias_attr: ParamAttr-like (name, initializer, trainable); bias_attr=False
            means no bias.
        activation (str, optional): e.g. 'relu', 'tanh', 'sigmoid', 'softmax'.

    Returns:
        Variable of shape x.shape[:num_flatten_dims] + [size].
    """
    if not isinstance(size, int) or size <= 0:
        raise ValueError(f"fc: size must be a positive int, got {size!r}")
    inputs = list(x) if isinstance(x, (list, tuple)) else [x]
    prefix = name or unique_name.generate("fc")
    total = None
    for i, inp in enumerate(inputs):
        shape = inp.shape
        if not 1 <= num_flatten_dims < len(shape) + (1 if len(shape) == 1 else 0):
            raise ValueError(f"fc: num_flatten_dims must be in [1, {len(shape) - 1}] for an "
                             f"input of shape {shape}, got {num_flatten_dims}")
        features = 1
        for d in shape[num_flatten_dims:]:
            if d < 0:
                raise ValueError(f"fc: the feature dims {shape[num_flatten_dims:]} of the "
                                 f"input must be known")
            features *= d
        w = _param(prefix, f"w_{i}", [features, size], inp.dtype, weight_attr)
        if len(shape) != num_flatten_dims + 1:
            inp = call("reshape", inp, shape=[0 if d < 0 else d
                                              for d in shape[:num_flatten_dims]] + [features])
        out = call("matmul", inp, w)
        total = out if total is None else total + out
    b = _param(prefix, "b_0", [size], inputs[0].dtype, bias_attr, is_bias=True)
    if b is not None:
        total = total + b
    return _activation(total, activation)


# --- convolutions ------------------------------------------------------------------------------

def _conv(api, nd, input, num_filters, filter_size, stride, padding, dilation, groups,
          param_attr, bias_attr, act, name, data_format):
    if not isinstance(num_filters, int) or num_filters <= 0:
        raise ValueError(f"{api}: num_filters must be a positive int, got {num_filters!r}")
    if input.ndim != nd + 2:
        raise ValueError(f"{api}: input must be {nd + 2}-D, got shape {input.shape}")
    c = _channels(api, input, data_format)
    groups = 1 if groups is None else groups
    if c % groups or num_filters % groups:
        raise ValueError(f"{api}: the input channels ({c}) and num_filters ({num_filters}) "
                         f"must be divisible by groups ({groups})")
    k = _ints(api, "filter_size", filter_size, nd)
    prefix = name or unique_name.generate(api)
    from ..nn import initializer as I
    std = math.sqrt(2.0 / (math.prod(k) * c))
    w = _param(prefix, "w_0", [num_filters, c // groups, *k], input.dtype, param_attr,
               I.Normal(0.0, std))
    b = _param(prefix, "b_0", [num_filters], input.dtype, bias_attr, is_bias=True)
    fn = getattr(_F(), api)
    out = fn(input, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups,
             data_format=data_format)
    return _activation(out, act, api)


@_static_layer
def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    """2-D convolution layer: weight [num_filters, C / groups, kh, kw] ("conv2d_k.w_0",
    Normal(0, sqrt(2 / (kh kw C))) by default) and bias [num_filters] ("conv2d_k.b_0";
    bias_attr=False: none), then `act`. Other arguments as paddle.nn.functional.conv2d."""
    return _conv("conv2d", 2, input, num_filters, filter_size, stride, padding, dilation,
                 groups, param_attr, bias_attr, act, name, data_format)


@_static_layer
def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCDHW"):
    """3-D convolution layer; see conv2d (weight [num_filters, C / groups, kd, kh, kw])."""
    return _conv("conv3d", 3, input, num_filters, filter_size, stride, padding, dilation,
                 groups, param_attr, bias_attr, act, name, data_format)


@_static_layer
def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """2-D transposed convolution layer: weight [C, num_filters / groups, kh, kw]
    ("conv2d_transpose_k.w_0"), bias [num_filters]. filter_size may be left out when
    output_size is given: k = (out - (in - 1) * stride + 2 * padding - 1) // dilation + 1."""
    return _conv_transpose("conv2d_transpose", 2, input, num_filters, output_size,
                           filter_size, padding, stride, dilation, groups, param_attr,
                           bias_attr, act, name, data_format)


@_static_layer
def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """3-D transposed convolution layer: weight [C, num_filters / groups, kd, kh, kw]
    ("conv3d_transpose_k.w_0"), bias [num_filters]; arguments as conv2d_transpose."""
    return _conv_transpose("conv3d_transpose", 3, input, num_filters, output_size,
                           filter_size, padding, stride, dilation, groups, param_attr,
                           bias_attr, act, name, data_format)


def _conv_transpose(api, nd, input, num_filters, output_size, filter_size, padding, stride,
                    dilation, groups, param_attr, bias_attr, act, name, data_format):
    if not isinstance(num_filters, int) or num_filters <= 0:
        raise ValueError(f"{api}: num_filters must be a positive int, got {num_filters!r}")
    if input.ndim != nd + 2:
        raise ValueError(f"{api}: input must be {nd + 2}-D, got shape {input.shape}")
    c = _channels(api, input, data_format)
    groups = 1 if groups is None else groups
    if c % groups or num_filters % groups:
        raise ValueError(f"{api}: the input channels ({c}) and num_filters ({num_filters}) "
                         f"must be divisible by groups ({groups})")
    s, d = _ints(api, "stride", stride, nd), _ints(api, "dilation", dilation, nd)
    if filter_size is None:
        if output_size is None:
            raise ValueError(f"{api}: give filter_size or output_size")
        if not isinstance(padding, (int, list, tuple)) or isinstance(padding, (list, tuple)) \
                and len(padding) != nd:
            raise ValueError(f"{api}: filter_size can only be derived from output_size with "
                             f"an int or {nd}-int padding, got {padding!r}")
        pad = _ints(api, "padding", padding, nd)
        out = _ints(api, "output_size", output_size, nd)
        spatial = input.shape[2:] if data_format[1] == "C" else input.shape[1:-1]
        if min(spatial) < 0:
            raise ValueError(f"{api}: deriving filter_size needs known spatial dims, got "
                             f"input shape {input.shape}")
        filter_size = [(o - (i - 1) * st + 2 * p - 1) // dl + 1
                       for o, i, st, p, dl in zip(out, spatial, s, pad, d)]
    k = _ints(api, "filter_size", filter_size, nd)
    prefix = name or unique_name.generate(api)
    w = _param(prefix, "w_0", [c, num_filters // groups, *k], input.dtype, param_attr)
    b = _param(prefix, "b_0", [num_filters], input.dtype, bias_attr, is_bias=True)
    y = getattr(_F(), api)(input, w, b, stride=s, padding=padding, dilation=d, groups=groups,
                           output_size=output_size, data_format=data_format)
    return _activation(y, act, api)


# --- normalization -----------------------------------------------------------------------------

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
                         f"input of shape {input.shape}, got {begin_norm_axis}")
    norm_shape = input.shape[begin_norm_axis:]
    if min(norm_shape) < 0:
        raise ValueError(f"{api}: the normalized dims {norm_shape} must be known")
    prefix = name or unique_name.generate(api)
    n = math.prod(norm_shape)
    w = _param(prefix, "w_0", [n], input.dtype, param_attr, _const(1.0)) if scale else None
    b = _param(prefix, "b_0", [n], input.dtype, bias_attr, is_bias=True) if shift else None
    out = _F().layer_norm(input, norm_shape, weight=w, bias=b, epsilon=epsilon)
    return _activation(out, act, api)


@_static_layer
def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,
               data_layout="NCHW", name=None):
    """Group normalization; scale ("group_norm_k.w_0", 1) and bias (".b_0", 0) per channel."""
    api = "group_norm"
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
        raise ValueError(f"{api}: input must be 2-D [N, C], got shape {input.shape}")
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


# --- lookups and activations -------------------------------------------------------------------

@_static_layer
def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """Embedding lookup: weight [size[0], size[1]] ("embedding_k.w_0"); output
    input.shape + [size[1]]. A negative padding_idx counts from size[0]; its row is zero
    and gets no gradient. is_sparse/is_distributed have no effect (dense gradients)."""
    api = "embedding"
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"{api}: size must be [vocab_size, emb_dim], got {size!r}")
    prefix = unique_name.generate(api)
    w = _param(prefix, "w_0", list(size), _dt.convert_dtype(dtype), param_attr)
    return _F().embedding(input, w, padding_idx=padding_idx)


@_static_layer
def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None,
                     table_class="MemorySparseTable", param_attr=None, dtype="float32",
                     slot=None):
    """The parameter-server embedding; here an ordinary (dense) embedding."""
    return embedding(input, size, padding_idx=padding_idx, param_attr=param_attr,
                     dtype=dtype)


@_static_layer
def prelu(x, mode, param_attr=None, data_format="NCHW", name=None):
    """PReLU: out = max(x, 0) + alpha * min(x, 0) with alpha ("prelu_k.w_0", 0.25) of
    shape [1] (mode 'all'), one per channel ('channel') or one per element of x.shape[1:]
    ('element')."""
    api = "prelu"
    if mode not in ("all", "channel", "element"):
        raise ValueError(f"{api}: mode must be 'all', 'channel' or 'element', got {mode!r}")
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"{api}: unknown data_format {data_format!r}")
    prefix = name or unique_name.generate(api)
    if mode == "all":
        shape, view = [1], None
    elif mode == "channel":
        c = _channels(api, x, data_format)
        shape = [c]
        view = [1] * x.ndim
        view[1 if data_format[1] == "C" or x.ndim == 2 else x.ndim - 1] = c
    else:
        shape = x.shape[1:]
        if min(shape, default=1) < 0:
            raise ValueError(f"{api}: mode 'element' needs known dims after the batch dim, "
                             f"got {x.shape}")
        view = [1] + shape
    alpha = _param(prefix, "w_0", shape, x.dtype, param_attr, _const(0.25))
    if view is not None:
        alpha = call("reshape", alpha, shape=view)
    zero = call("full_like", x, fill_value=0.0, dtype=None)
    return call("maximum", x, zero) + alpha * call("minimum", x, zero)


# --- bilinear_tensor_product, row_conv, spectral_norm ----------------------------------------

@_static_layer
def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None,
                            bias_attr=None):
    """out[n, k] = x[n] @ W[k] @ y[n] + b[k] with W [size, x_dim, y_dim]
    ("bilinear_tensor_product_k.w_0", XavierUniform) and b [1, size] (".b_0", zeros;
    bias_attr=False: none), then `act`."""
    api = "bilinear_tensor_product"
    if not isinstance(size, int) or size <= 0:
        raise ValueError(f"{api}: size must be a positive int, got {size!r}")
    if x.ndim != 2 or y.ndim != 2:
        raise ValueError(f"{api}: x and y must be 2-D [batch, features], got shapes "
                         f"{x.shape} and {y.shape}")
    if x.shape[1] < 0 or y.shape[1] < 0:
        raise ValueError(f"{api}: the feature dims of x {x.shape} and y {y.shape} must be "
                         f"known")
    prefix = name or unique_name.generate(api)
    w = _param(prefix, "w_0", [size, x.shape[1], y.shape[1]], x.dtype, param_attr)
    b = _param(prefix, "b_0", [1, size], x.dtype, bias_attr, is_bias=True)
    return _activation(_F().bilinear(x, y, w, b), act, api)


@_static_layer
def row_conv(input, future_context_size, param_attr=None, act=None):
    """Lookahead (row) convolution over time of input [batch, T, D] (padded batches; LoD
    sequences are not supported): out[b, t] = sum_{i=0}^{k} input[b, t + i] * W[i] with
    W [future_context_size + 1, D] ("row_conv_k.w_0", XavierUniform); steps past T count
    as zeros."""
    api = "row_conv"
    if not isinstance(future_context_size, int) or future_context_size < 0:
        raise ValueError(f"{api}: future_context_size must be a non-negative int, got "
                         f"{future_context_size!r}")
    if input.ndim != 3:
        raise ValueError(f"{api}: input must be 3-D [batch, time, features] (LoD inputs are "
                         f"not supported), got shape {input.shape}")
    dim = input.shape[2]
    if dim < 0:
        raise ValueError(f"{api}: the feature dim of the input (shape {input.shape}) must be "
                         f"known")
    k = future_context_size
    w = _param(unique_name.generate(api), "w_0", [k + 1, dim], input.dtype, param_attr)
    padded = call("pad", input, pad=[0, 0, 0, k, 0, 0], mode="constant", value=0.0) \
        if k else input
    out = None
    for i in range(k + 1):
        part = padded[:, i:i - k] if i < k else padded[:, k:]  # works for unknown T too
        term = part * w[i]
        out = term if out is None else out + term
    return _activation(out, act, api)


@_static_layer
def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """weight / sigma(weight), sigma the largest singular value of weight reshaped to
    [weight.shape[dim], -1], estimated by `power_iters` power iterations from the
    non-trainable vectors u ("spectral_norm_k.w_0", [h]) and v (".w_1", [w]), both
    Normal(0, 1); as in Paddle u and v are not updated and carry no gradient."""
    api = "spectral_norm"
    if not isinstance(dim, int) or not 0 <= dim < max(weight.ndim, 1):
        raise ValueError(f"{api}: dim must be in [0, {weight.ndim - 1}] for a weight of shape "
                         f"{weight.shape}, got {dim!r}")
    if not isinstance(power_iters, int) or power_iters < 0:
        raise ValueError(f"{api}: power_iters must be a non-negative int, got {power_iters!r}")
    shape = list(weight.shape)
    if min(shape) < 0:
        raise ValueError(f"{api}: the shape of weight ({shape}) must be known")
    h = shape[dim]
    w_cols = math.prod(shape) // max(h, 1)
    from ..nn import initializer as I
    prefix = name or unique_name.generate(api)
    u = _param(prefix, "w_0", [h], weight.dtype, None, I.Normal(0.0, 1.0), trainable=False)
    v = _param(prefix, "w_1", [w_cols], weight.dtype, None, I.Normal(0.0, 1.0),
               trainable=False)
    perm = [dim] + [i for i in range(len(shape)) if i != dim]
    mat = call("reshape", call("transpose", weight, perm=perm) if dim else weight,
               shape=[h, w_cols])
    frozen = mat.detach()
    for _ in range(power_iters):
        v = call("matmul", frozen, u, transpose_x=True)
        v = v / (call("sqrt", (v * v).sum()) + eps)
        u = call("matmul", frozen, v)
        u = u / (call("sqrt", (u * u).sum()) + eps)
    u, v = u.detach(), v.detach()
    sigma = (u * call("matmul", mat, v)).sum()
    return weight / sigma


def _control_flow() -> None:
    """Re-export the control-flow layers (static.nn.cond, while_loop, ...) when present."""
    try:
        from . import control_flow
    except ImportError:
        return
    for name in getattr(control_flow, "__all__", ()):
        globals()[name] = getattr(control_flow, name)
        __all__.append(name)


_control_flow()

from .py_func import py_func  # noqa: E402  (static.nn.py_func, as in Paddle)

__all__.append("py_func")

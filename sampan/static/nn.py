"""paddle.static.nn: layer functions that create their parameters in the current Programs.

Each layer makes its parameters with static `create_parameter` (initialised by the startup
program, Paddle's names: "<layer>_<k>.w_0", ".b_0") and then calls the same functional ops
eager code uses. Initializers compute their values through ops, which the startup program
records (static `create_parameter`). Imports `framework`, `ops`, `nn.functional` (lazily)
and `static`.
This module holds the shared parameter helpers, fc, the lookup/activation layers and
bilinear_tensor_product/row_conv/spectral_norm; the convolution (nn_conv.py) and
normalization (nn_norm.py) layers and the control-flow functions are re-exported here.
"""
from __future__ import annotations

import functools
import math

from ..framework import dtype as _dt
from ..ops.dispatch import call
from ..utils import unique_name
from .input import _require_static, create_parameter

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
    """The ParamAttr fields create_parameter reads (any ParamAttr-like object or None)."""

    def __init__(self, attr, name: str) -> None:
        self.name = getattr(attr, "name", None) or name
        self.initializer = getattr(attr, "initializer", None)
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
    attrs = _Attr(attr, f"{prefix}.{suffix}")
    if trainable is not None:
        attrs.trainable = trainable
    p = create_parameter(list(shape), dtype, name=attrs.name, attr=attrs, is_bias=is_bias,
                         default_initializer=default_init)
    if not attrs.trainable:
        p.stop_gradient = True
    return p


def _const(value: float):
    from ..nn import initializer as I
    return I.Constant(value)


def _channels(api: str, x, layout: str) -> int:
    if x.ndim < 2:
        raise ValueError(f"{api}: input must be at least 2-D, got shape {list(x.shape)}")
    c = x.shape[1] if layout[1] == "C" or x.ndim == 2 else x.shape[-1]
    if c < 0:
        raise ValueError(f"{api}: the channel dim of the input (shape {list(x.shape)}, layout "
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


# --- lookups and activations -------------------------------------------------------------------

@_static_layer
def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """Embedding lookup: weight [size[0], size[1]] ("embedding_k.w_0"); output
    input.shape + [size[1]]. A negative padding_idx counts from size[0]; its row is zero
    and gets no gradient. Gradients are dense; is_distributed=True marks the weight as a
    parameter-server table (the PS transpiler turns its lookups into pulls from the
    servers; run locally it is an ordinary embedding)."""
    api = "embedding"
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"{api}: size must be [vocab_size, emb_dim], got {size!r}")
    prefix = unique_name.generate(api)
    w = _param(prefix, "w_0", list(size), _dt.convert_dtype(dtype), param_attr)
    if is_distributed:
        _mark_table(w, None, "MemorySparseTable")
    return _F().embedding(input, w, padding_idx=padding_idx)


_TABLE_CLASSES = ("CommonSparseTable", "SSDSparseTable", "MemorySparseTable")
_ENTRIES = ("ProbabilityEntry", "CountFilterEntry", "ShowClickEntry")


def _mark_table(w, entry, table_class: str) -> None:
    """Mark parameter `w` as a parameter-server table (read by the PS transpiler)."""
    w.is_distributed = True
    w.ps_entry = None if entry is None else entry._to_attr()
    w.ps_table_class = table_class


@_static_layer
def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None,
                     table_class="MemorySparseTable", param_attr=None, dtype="float32",
                     slot=None):
    """The embedding of large-scale sparse (parameter-server) training: a lookup in the
    table [size[0], size[1]] ("sparse_embedding_k.w_0") that `fleet.distributed_optimizer(
    ...).minimize` moves to the servers, where only the rows of ids seen in training exist
    (so size[0] may be huge). Run without fleet it is an ordinary embedding.

    Args:
        input (Variable): int64 ids whose last dim is 1, e.g. [batch, 1].
        size (list|tuple): [vocab_size, emb_size].
        padding_idx (int, optional): rows of this id are zero and never trained; negative
            counts from vocab_size. Default None.
        is_test (bool): unused (inference programs pull without training). Default False.
        entry: None, or paddle.distributed.CountFilterEntry / ProbabilityEntry /
            ShowClickEntry: when a new id gets a row on the servers.
        table_class (str): 'MemorySparseTable' (default), 'CommonSparseTable' or
            'SSDSparseTable' (all held in server memory here).
        param_attr (ParamAttr, optional): name and initializer (Uniform, Normal or
            Constant on the servers) of the table.
        dtype (str): 'float32' (default) or 'float64'.
        slot: unused.

    Returns:
        Variable: input.shape[:-1] + [emb_size].

    Examples:
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main, paddle.static.Program()):
        ...     ids = paddle.static.data("ids", [None, 1], "int64")
        ...     emb = paddle.static.nn.sparse_embedding(
        ...         ids, [10 ** 9, 8], entry=paddle.distributed.CountFilterEntry(2))
        >>> emb.shape
        paddle.Size([-1, 8])
        >>> paddle.disable_static()
    """
    api = "sparse_embedding"
    if not isinstance(size, (list, tuple)) or len(size) != 2:
        raise ValueError(f"{api}: size must be [vocab_size, emb_size], got {size!r}")
    if input.dtype.name != "int64":
        raise TypeError(f"{api}: input must be int64, got {input.dtype.name}")
    if input.ndim < 1 or input.shape[-1] not in (1, -1):
        raise ValueError(f"{api}: the last dim of input must be 1, got shape {list(input.shape)}")
    if _dt.convert_dtype(dtype).name not in ("float32", "float64"):
        raise TypeError(f"{api}: dtype must be float32 or float64, got {dtype!r}")
    if table_class not in _TABLE_CLASSES:
        raise ValueError(f"{api}: table_class must be in {list(_TABLE_CLASSES)}, got "
                         f"{table_class!r}")
    if entry is not None and type(entry).__name__ not in _ENTRIES:
        raise ValueError(f"{api}: entry must be a paddle.distributed ProbabilityEntry, "
                         f"CountFilterEntry or ShowClickEntry, got {type(entry).__name__}")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += size[0]
    w = _param(unique_name.generate(api), "w_0", list(size), _dt.convert_dtype(dtype),
               param_attr)
    _mark_table(w, entry, table_class)
    ids = call("reshape", input, shape=[0 if d < 0 else d for d in input.shape[:-1]])
    return _F().embedding(ids, w, padding_idx=padding_idx)


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
                             f"got {list(x.shape)}")
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
                         f"{list(x.shape)} and {list(y.shape)}")
    if x.shape[1] < 0 or y.shape[1] < 0:
        raise ValueError(f"{api}: the feature dims of x {list(x.shape)} and y "
                         f"{list(y.shape)} must be "
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
                         f"not supported), got shape {list(input.shape)}")
    dim = input.shape[2]
    if dim < 0:
        raise ValueError(f"{api}: the feature dim of the input (shape {list(input.shape)}) must be "
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
                         f"{list(weight.shape)}, got {dim!r}")
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
    globals()["control_flow"] = control_flow  # Paddle's path paddle.static.nn.control_flow
    for name in getattr(control_flow, "__all__", ()):
        globals()[name] = getattr(control_flow, name)
        __all__.append(name)


_control_flow()

from .py_func import py_func  # noqa: E402  (static.nn.py_func, as in Paddle)

__all__.append("py_func")


# the convolution and normalization layers, listed in __all__ above
from .nn_conv import conv2d, conv2d_transpose, conv3d, conv3d_transpose  # noqa: E402
from .nn_norm import batch_norm, data_norm, group_norm, instance_norm, layer_norm  # noqa: E402
# static_pylayer and nce (nn_legacy.py)
from .nn_legacy import nce, static_pylayer  # noqa: E402
__all__ += ["nce", "static_pylayer"]
from .nn_deform import deform_conv2d  # noqa: E402  (deformable convolution)
__all__.append("deform_conv2d")
# the LoD sequence layers (nn_sequence.py)
from .nn_sequence import __all__ as _sequence_all  # noqa: E402
from .nn_sequence import *  # noqa: E402,F401,F403
__all__ += _sequence_all

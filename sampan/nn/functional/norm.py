"""Normalization functions: normalize, batch_norm, layer_norm, group_norm, instance_norm,
local_response_norm.

batch_norm and layer_norm call their fused OpDefs; the others compose layer_norm and
public tensor functions. No mode checks.
"""
from __future__ import annotations

from ...autograd import no_grad
from ...framework.tensor import Tensor, is_variable
from ...ops.dispatch import call, dispatch
from ...ops.nn_norm import channel_axis
from ...ops.opdef import REGISTRY
from ...tensor.creation import assign
from ...tensor.math import clip

__all__ = ["normalize", "batch_norm", "layer_norm", "group_norm", "instance_norm",
           "local_response_norm"]

_BATCH_NORM = REGISTRY["batch_norm"]
_LAYER_NORM = REGISTRY["layer_norm"]
_BN_LAYOUTS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def _tensor(api: str, arg: str, x) -> None:
    if not isinstance(x, Tensor) and not is_variable(x):
        raise TypeError(f"{api}: {arg} must be a Tensor, got {type(x).__name__}")


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None) -> Tensor:
    """x / max(||x||_p, epsilon) along `axis`.

    Args:
        x (Tensor): float input.
        p (float): the norm degree; default 2.
        axis (int): the normalized axis; default 1 (-1 for a 1-D x works too).
        epsilon (float): lower bound of the norm; default 1e-12.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[3.0, 4.0], [0.0, 0.0]])
        >>> paddle.nn.functional.normalize(x).tolist()
        [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    _tensor("normalize", "x", x)
    if len(x.shape) == 1 and axis in (0, -1):
        axis = 0
    norm = call("norm", x, p=float(p), axis=[int(axis)], keepdim=True)
    return x / clip(norm, min=float(epsilon))


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-5, data_format="NCHW", use_global_stats=None,
               name=None) -> Tensor:
    """Batch normalization per channel: (x - mean) / sqrt(var + epsilon) * weight + bias.

    With batch statistics (training, or use_global_stats=False) running_mean/running_var
    are updated in place: running = momentum * running + (1 - momentum) * batch (biased
    batch variance, as Paddle), without gradient.

    Args:
        x (Tensor): [N, C, ...] (or channels last, see data_format), float.
        running_mean (Tensor): [C] running mean.
        running_var (Tensor): [C] running variance.
        weight (Tensor, optional): [C] scale; default None (1).
        bias (Tensor, optional): [C] shift; default None (0).
        training (bool): default False.
        momentum (float): default 0.9.
        epsilon (float): default 1e-5.
        data_format (str): 'NC', 'NCL', 'NCHW', 'NCDHW' (channels at dim 1) or 'NLC',
            'NHWC', 'NDHWC' (channels last); default 'NCHW'.
        use_global_stats (bool, optional): normalize with the running statistics (True) or
            the batch's (False); default None = not training.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape and dtype.
    """
    _tensor("batch_norm", "x", x)
    attrs = batch_norm_attrs(training, momentum, epsilon, data_format, use_global_stats)
    return run_batch_norm(x, running_mean, running_var, weight, bias, attrs)


def batch_norm_attrs(training, momentum, epsilon, data_format, use_global_stats) -> dict:
    """The checked batch_norm op attrs of batch_norm's arguments (layers cache them)."""
    if data_format not in _BN_LAYOUTS:
        raise ValueError(f"batch_norm: data_format must be one of {list(_BN_LAYOUTS)}, got "
                         f"{data_format!r}")
    if use_global_stats is None:
        use_global_stats = not training
    return {"momentum": float(momentum), "epsilon": float(epsilon),
            "data_format": data_format, "use_global_stats": bool(use_global_stats)}


def run_batch_norm(x, running_mean, running_var, weight, bias, attrs: dict) -> Tensor:
    """The batch_norm op with `batch_norm_attrs`; with batch statistics the running ones are
    updated in place."""
    outs = dispatch(_BATCH_NORM, (x, running_mean, running_var, weight, bias), attrs)
    if not attrs["use_global_stats"]:
        with no_grad():
            assign(outs[3], running_mean)
            assign(outs[4], running_var)
    return outs[0]


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-5,
               name=None) -> Tensor:
    """Layer normalization over the trailing dims `normalized_shape` of x.

    Args:
        x (Tensor): float input whose shape ends with normalized_shape.
        normalized_shape (int|list|tuple): the normalized trailing dims.
        weight (Tensor, optional): prod(normalized_shape) scale values (flat, or shaped
            like normalized_shape); default None.
        bias (Tensor, optional): like weight; default None.
        epsilon (float): default 1e-5.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape and dtype.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[1.0, 3.0], [2.0, 6.0]])
        >>> paddle.nn.functional.layer_norm(x, 2, epsilon=0.0).tolist()
        [[-1.0, 1.0], [-1.0, 1.0]]
    """
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    if not isinstance(normalized_shape, (list, tuple)):
        raise ValueError(f"layer_norm: normalized_shape must be an int, list or tuple, got "
                         f"{type(normalized_shape).__name__} ({normalized_shape!r})")
    _tensor("layer_norm", "x", x)
    shape = [int(d) for d in normalized_shape]
    k = len(shape)
    if not 0 < k <= len(x.shape) or list(x.shape[len(x.shape) - k:]) != shape:
        raise ValueError(f"layer_norm: normalized_shape {shape} must match the trailing dims "
                         f"of x (shape {list(x.shape)})")
    attrs = {"begin_norm_axis": len(x.shape) - k, "epsilon": float(epsilon)}
    return dispatch(_LAYER_NORM, (x, weight, bias), attrs)[0]


def _channels_first(api: str, x, data_format: str):
    """x with channels moved to dim 1 (returns the permutation to undo it, or None)."""
    if len(x.shape) < 2:
        raise ValueError(f"{api}: x must be at least 2-D [N, C, ...], got shape {list(x.shape)}")
    if channel_axis(data_format, len(x.shape)) == 1:
        return x, None
    nd = len(x.shape)
    perm = [0, nd - 1] + list(range(1, nd - 1))
    back = [0] + list(range(2, nd)) + [1]
    return call("transpose", x, perm=perm), back


def _affine(out, weight, bias):
    shape = [1, out.shape[1]] + [1] * (len(out.shape) - 2)
    if weight is not None:
        out = out * call("reshape", weight, shape=shape)
    if bias is not None:
        out = out + call("reshape", bias, shape=shape)
    return out


def group_norm(x, num_groups, epsilon=1e-5, weight=None, bias=None, data_format="NCHW",
               name=None) -> Tensor:
    """Group normalization: channels split into num_groups groups, each normalized over its
    channels and all spatial positions per sample; then per-channel weight and bias.

    Args:
        x (Tensor): [N, C, ...] (or channels last with data_format 'NLC'/'NHWC'/'NDHWC').
        num_groups (int): must divide C.
        epsilon (float): default 1e-5.
        weight (Tensor, optional): [C]; default None.
        bias (Tensor, optional): [C]; default None.
        data_format (str): default 'NCHW'.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape.
    """
    _tensor("group_norm", "x", x)
    if data_format not in _BN_LAYOUTS:
        raise ValueError(f"group_norm: data_format must be one of {list(_BN_LAYOUTS)}, got "
                         f"{data_format!r}")
    xc, back = _channels_first("group_norm", x, data_format)
    c = xc.shape[1]
    if not isinstance(num_groups, int) or num_groups <= 0 or c % num_groups:
        raise ValueError(f"group_norm: num_groups must be a positive int dividing the number "
                         f"of channels {c}, got {num_groups}")
    grouped = call("reshape", xc, shape=[0, num_groups, -1])  # 0: batch may be unknown
    out = dispatch(_LAYER_NORM, (grouped, None, None),
                   {"begin_norm_axis": 2, "epsilon": float(epsilon)})[0]
    out = _affine(call("reshape", out, shape=list(xc.shape)), weight, bias)
    return out if back is None else call("transpose", out, perm=back)


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-5, data_format="NCHW",
                  name=None) -> Tensor:
    """Instance normalization: each (sample, channel) plane normalized over its spatial
    positions, then per-channel weight and bias. The running statistics are accepted for
    compatibility and ignored (as Paddle's dynamic mode does).

    Args:
        x (Tensor): [N, C, ...] with at least one spatial dim.
        running_mean, running_var (Tensor, optional): ignored.
        weight (Tensor, optional): [C]; default None.
        bias (Tensor, optional): [C]; default None.
        use_input_stats (bool): ignored (always True).
        momentum (float): ignored.
        eps (float): default 1e-5.
        data_format (str): 'NC', 'NCL', 'NCHW' or 'NCDHW'; default 'NCHW'.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape.
    """
    _tensor("instance_norm", "x", x)
    if len(x.shape) < 3:
        raise ValueError(f"instance_norm: x must be at least 3-D [N, C, *spatial], got shape "
                         f"{list(x.shape)}")
    out = dispatch(_LAYER_NORM, (x, None, None),
                   {"begin_norm_axis": 2, "epsilon": float(eps)})[0]
    return _affine(out, weight, bias)


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW",
                        name=None) -> Tensor:
    """Local response normalization across channels:
    out = x / (k + alpha * mean of x ** 2 over `size` neighbouring channels) ** beta, the
    window [c - size // 2, c + (size - 1) // 2] zero padded at the ends.

    Args:
        x (Tensor): at least 3-D, [N, C, ...] (or channels last).
        size (int): the window size in channels.
        alpha (float): default 1e-4.
        beta (float): default 0.75.
        k (float): default 1.0.
        data_format (str): 'NCL', 'NLC', 'NCHW', 'NHWC', 'NCDHW' or 'NDHWC'; default 'NCHW'.
        name (str, optional): unused.

    Returns:
        Tensor: x's shape.
    """
    _tensor("local_response_norm", "x", x)
    if data_format not in ("NCL", "NLC", "NCHW", "NHWC", "NCDHW", "NDHWC"):
        raise ValueError(f"local_response_norm: data_format must be one of NCL, NLC, NCHW, "
                         f"NHWC, NCDHW, NDHWC, got {data_format!r}")
    if len(x.shape) < 3:
        raise ValueError(f"local_response_norm: x must be at least 3-D, got shape {list(x.shape)}")
    if not isinstance(size, int) or size <= 0:
        raise ValueError(f"local_response_norm: size must be a positive int, got {size!r}")
    xc, back = _channels_first("local_response_norm", x, data_format)
    c = xc.shape[1]
    sq = xc * xc
    pad = [0, 0] * len(xc.shape)
    pad[2], pad[3] = size // 2, (size - 1) // 2
    padded = call("pad", sq, pad=pad, mode="constant", value=0.0)
    window = call("add_n", [padded[:, i:i + c] for i in range(size)])
    div = call("scale", window, scale=alpha / size, bias=float(k), bias_after_scale=True)
    div = div ** float(beta)
    out = xc / div
    return out if back is None else call("transpose", out, perm=back)

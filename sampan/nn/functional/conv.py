"""Convolutions (conv1d/2d/3d and transposed) and fold/unfold.

Python arguments (int / list / pairs / 'SAME' / 'VALID' padding, data_format) are turned into
the canonical attrs of the ops in sampan/ops/nn_conv.py: one int per spatial dim for stride
and dilation, [before, after] per spatial dim for padding, and Paddle's padding_algorithm
("EXPLICIT", "SAME" or "VALID"), which the op resolves against the input's actual size (so a
'SAME' convolution over an unknown static dim pads as it would eagerly).
"""
from __future__ import annotations

from ...backend.window import is_channel_last, resolve_pads, split_channels
from ...ops.dispatch import call

__all__ = ["conv1d", "conv2d", "conv3d", "conv1d_transpose", "conv2d_transpose",
           "conv3d_transpose", "unfold", "fold"]

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


class _ListArgError(TypeError, ValueError):
    """A non-int conv argument: Paddle's convert_to_list raises ValueError; TypeError is the
    natural kind."""


def to_list(api: str, arg: str, value, n: int, minimum: int = 1) -> list:
    """An int or a sequence of n ints as a list of n ints (each >= minimum)."""
    if isinstance(value, (bool, str)):
        raise _ListArgError(f"{api}: {arg} must be an int or a list of {n} ints, got "
                            f"{value!r}")
    if isinstance(value, int) or (hasattr(value, "__index__") and not hasattr(value, "__len__")):
        out = [int(value)] * n
    else:
        try:
            out = [int(v) for v in value]
        except (TypeError, ValueError):
            raise _ListArgError(f"{api}: {arg} must be an int or a list of {n} ints, got "
                                f"{value!r}") from None
        if len(out) != n:
            raise ValueError(f"{api}: {arg} must be an int or a list of {n} ints, got "
                             f"{list(value)}")
    if any(v < minimum for v in out):
        raise ValueError(f"{api}: {arg} must be >= {minimum}, got {out}")
    return out


def check_format(api: str, data_format: str, nd: int) -> str:
    if data_format not in _FORMATS[nd]:
        raise ValueError(f"{api}: data_format must be one of {list(_FORMATS[nd])}, got "
                         f"{data_format!r}")
    return data_format


def norm_padding(api: str, padding, nd: int, data_format: str):
    """'SAME' / 'VALID' (upper-cased) or explicit [before, after] * nd from Paddle's forms: an
    int, nd ints, 2*nd ints (before, after per dim) or nd+2 pairs including batch/channel."""
    if isinstance(padding, str):
        mode = padding.upper()
        if mode not in ("SAME", "VALID"):
            raise ValueError(f"{api}: padding must be 'SAME', 'VALID', an int or a list, got "
                             f"{padding!r}")
        return mode
    if isinstance(padding, (list, tuple)) and padding and isinstance(padding[0], (list, tuple)):
        pairs = [list(p) for p in padding]
        if len(pairs) != nd + 2 or any(len(p) != 2 for p in pairs):
            raise ValueError(f"{api}: padding given as pairs must have {nd + 2} [before, after] "
                             f"pairs (batch and channel included), got {padding}")
        chan = nd + 1 if is_channel_last(data_format) else 1
        if pairs[0] != [0, 0] or pairs[chan] != [0, 0]:
            raise ValueError(f"{api}: padding of the batch and channel dims must be [0, 0], "
                             f"got {padding}")
        dims = [p for i, p in enumerate(pairs) if i not in (0, chan)]
        flat = [int(v) for p in dims for v in p]
    elif isinstance(padding, (list, tuple)) and len(padding) == 2 * nd and nd > 1:
        flat = [int(v) for v in padding]
    elif isinstance(padding, (list, tuple)) and len(padding) == 2 and nd == 1:
        flat = [int(v) for v in padding]
    else:
        flat = [v for v in to_list(api, "padding", padding, nd, minimum=0) for _ in (0, 1)]
    if any(v < 0 for v in flat):
        raise ValueError(f"{api}: padding must be non-negative, got {padding}")
    return flat


def padding_attrs(api: str, padding, nd: int, data_format: str) -> tuple:
    """(padding, padding_algorithm) op attrs from Paddle's padding forms: explicit pads with
    "EXPLICIT", or zeros with "SAME" / "VALID" (resolved by the op at run time)."""
    pad = norm_padding(api, padding, nd, data_format)
    if isinstance(pad, str):
        return [0] * (2 * nd), pad
    return pad, "EXPLICIT"


def conv_attrs(api: str, nd: int, stride, padding, dilation, groups, data_format) -> dict:
    """The op attrs of conv{nd}d `api` from Paddle's argument forms (checked)."""
    check_format(api, data_format, nd)
    stride = to_list(api, "stride", stride, nd)
    dilation = to_list(api, "dilation", dilation, nd)
    if not isinstance(groups, int) or groups < 1:
        raise ValueError(f"{api}: groups must be a positive int, got {groups!r}")
    pads, algorithm = padding_attrs(api, padding, nd, data_format)
    return {"stride": stride, "padding": pads, "padding_algorithm": algorithm,
            "dilation": dilation, "groups": groups, "data_format": data_format}


def _conv(api, nd, x, weight, bias, stride, padding, dilation, groups, data_format):
    attrs = conv_attrs(api, nd, stride, padding, dilation, groups, data_format)
    return call(api, x, weight, bias, **attrs)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCL", name=None):
    """1-D convolution (cross-correlation) of x [N, C, L] (or NLC) with weight
    [out_c, C / groups, k] plus an optional bias [out_c].

    Args:
        padding (int|list|str): an int, [before, after], pairs incl. batch/channel, 'SAME'
            or 'VALID'.
    Returns:
        Tensor [N, out_c, L_out] (or NLC).
    """
    return _conv("conv1d", 1, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """2-D convolution of x [N, C, H, W] (or NHWC) with weight [out_c, C / groups, kh, kw].

    Args:
        stride, dilation (int|list): one int or one per spatial dim.
        padding (int|list|str): int, [ph, pw], [top, bottom, left, right], pairs including
            batch/channel ([[0, 0], [0, 0], [t, b], [l, r]]), 'SAME' or 'VALID'.
        groups (int): channel groups. data_format: 'NCHW' or 'NHWC'.
    Returns:
        Tensor [N, out_c, H_out, W_out] (or NHWC).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.ones([1, 1, 3, 3])
        >>> w = paddle.ones([1, 1, 2, 2])
        >>> paddle.nn.functional.conv2d(x, w).shape
        paddle.Size([1, 1, 2, 2])
    """
    return _conv("conv2d", 2, x, weight, bias, stride, padding, dilation, groups, data_format)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    """3-D convolution of x [N, C, D, H, W] (or NDHWC) with weight [out_c, C / groups, kd,
    kh, kw]; arguments as conv2d with three spatial dims."""
    return _conv("conv3d", 3, x, weight, bias, stride, padding, dilation, groups, data_format)


def _conv_transpose(api, nd, x, weight, bias, stride, padding, output_padding, dilation,
                    groups, output_size, data_format):
    check_format(api, data_format, nd)
    stride = to_list(api, "stride", stride, nd)
    dilation = to_list(api, "dilation", dilation, nd)
    if not isinstance(groups, int) or groups < 1:
        raise ValueError(f"{api}: groups must be a positive int, got {groups!r}")
    if len(x.shape) != nd + 2:
        raise ValueError(f"{api}: x must be a {nd + 2}-D tensor, got shape {list(x.shape)}")
    spatial = split_channels(list(x.shape), data_format)[2]
    kernel = list(weight.shape[2:])
    pads, algorithm = padding_attrs(api, padding, nd, data_format)
    out_pad = to_list(api, "output_padding", output_padding, nd, minimum=0)
    eff = [1] * nd if algorithm == "SAME" else dilation  # Paddle's SAME uses dilation 1
    for i, op in enumerate(out_pad):
        if op >= max(stride[i], eff[i]):
            raise ValueError(f"{api}: output_padding {out_pad} must be smaller than stride "
                             f"{stride} or dilation {eff} in every dim")
    size = None
    if output_size is not None:
        if hasattr(output_size, "numpy"):
            output_size = output_size.numpy().tolist()
        size = to_list(api, "output_size", output_size, nd)
        known, dil = resolve_pads(algorithm, pads, spatial, kernel, stride, dilation)
        for i, (n, k) in enumerate(zip(spatial, kernel)):
            if n == -1:
                continue
            lo = (n - 1) * stride[i] - known[2 * i] - known[2 * i + 1] + dil[i] * (k - 1) + 1
            if not lo <= size[i] < lo + stride[i]:
                raise ValueError(f"{api}: output_size {size} is out of range in dim {i}: it "
                                 f"must be in [{lo}, {lo + stride[i]}) for input size {n}, "
                                 f"kernel {k}, stride {stride[i]}")
        if any(out_pad):
            raise ValueError(f"{api}: give either output_size or output_padding, not both")
    return call(api, x, weight, bias, stride=stride, padding=pads, padding_algorithm=algorithm,
                output_padding=out_pad, dilation=dilation, groups=groups,
                data_format=data_format, output_size=size)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCL", name=None):
    """1-D transposed convolution of x [N, C, L] with weight [C, out_c / groups, k]."""
    return _conv_transpose("conv1d_transpose", 1, x, weight, bias, stride, padding,
                           output_padding, dilation, groups, output_size, data_format)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format="NCHW", name=None):
    """2-D transposed convolution (gradient of conv2d w.r.t. its input) of x [N, C, H, W]
    with weight [C, out_c / groups, kh, kw].

    Args:
        output_padding (int|list): extra size added at the end of each spatial dim (< stride).
        output_size (list|None): the output spatial size, instead of output_padding.
    Returns:
        Tensor [N, out_c, H_out, W_out] with H_out = (H - 1) * stride - pad_top - pad_bottom
        + dilation * (kh - 1) + 1 + output_padding.
    """
    return _conv_transpose("conv2d_transpose", 2, x, weight, bias, stride, padding,
                           output_padding, dilation, groups, output_size, data_format)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format="NCDHW", name=None):
    """3-D transposed convolution of x [N, C, D, H, W] with weight [C, out_c / groups, kd,
    kh, kw]."""
    return _conv_transpose("conv3d_transpose", 3, x, weight, bias, stride, padding,
                           output_padding, dilation, groups, output_size, data_format)


def _unfold_pads(api: str, paddings) -> list:
    """Paddle's unfold/fold paddings: int, [ph, pw] or [top, left, bottom, right]."""
    if isinstance(paddings, (list, tuple)) and len(paddings) == 4:
        t, l, b, r = (int(p) for p in paddings)
        pads = [t, b, l, r]
    else:
        pads = [p for p in to_list(api, "paddings", paddings, 2, minimum=0) for _ in (0, 1)]
    if any(p < 0 for p in pads):
        raise ValueError(f"{api}: paddings must be non-negative, got {paddings}")
    return pads


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Extract sliding blocks of x [N, C, H, W] as columns [N, C * kh * kw, L] (im2col).

    Args:
        kernel_sizes, strides, dilations (int|list): one int or [h, w].
        paddings (int|list): int, [ph, pw] or [top, left, bottom, right].
    Returns:
        Tensor [N, C * kh * kw, L], L the number of blocks.

    Examples:
        >>> import sampan as paddle
        >>> paddle.nn.functional.unfold(paddle.ones([2, 3, 4, 4]), [2, 2]).shape
        paddle.Size([2, 12, 9])
    """
    api = "unfold"
    if x.ndim != 4:
        raise ValueError(f"{api}: x must be a 4-D tensor [N, C, H, W], got shape "
                         f"{list(x.shape)}")
    return call("im2col", x, kernel_sizes=to_list(api, "kernel_sizes", kernel_sizes, 2),
                strides=to_list(api, "strides", strides, 2), paddings=_unfold_pads(api, paddings),
                dilations=to_list(api, "dilations", dilations, 2))


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Combine columns x [N, C * kh * kw, L] into [N, C, H, W] (col2im), summing overlaps.

    Args:
        output_sizes (int|list): [H, W] of the result.
        kernel_sizes, strides, paddings, dilations: as in unfold.
    Returns:
        Tensor [N, C, H, W].
    """
    api = "fold"
    if x.ndim != 3:
        raise ValueError(f"{api}: x must be a 3-D tensor [N, C * kh * kw, L], got shape "
                         f"{list(x.shape)}")
    return call("fold", x, output_sizes=to_list(api, "output_sizes", output_sizes, 2),
                kernel_sizes=to_list(api, "kernel_sizes", kernel_sizes, 2),
                strides=to_list(api, "strides", strides, 2),
                paddings=_unfold_pads(api, paddings),
                dilations=to_list(api, "dilations", dilations, 2))

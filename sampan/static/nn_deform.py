"""paddle.static.nn.deform_conv2d: the deformable convolution layer of a static Program
(parameters "deformable_conv_<k>.w_0" / ".b_0" in the current Programs) over the composite in
ops/nn_deform.py. Re-exported by static/nn.py. Imports `initializer`, `ops`, `utils` and
`static.nn`.
"""
from __future__ import annotations

import math

from ..initializer import Normal
from ..ops import nn_deform
from ..utils import unique_name
from .nn import _channels, _param, _static_layer


@_static_layer
def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1,
                  groups=1, deformable_groups=1, im2col_step=1, weight_attr=None,
                  bias_attr=None, name=None):
    """Deformable convolution layer (DCN v2 with `mask`, v1 when mask is None).

    Creates its filter [num_filters, C / groups, kh, kw] ("deformable_conv_k.w_0",
    Normal(0, sqrt(2 / (kh kw C))) by default) and bias [num_filters]
    ("deformable_conv_k.b_0", zeros; bias_attr=False: none), then samples x at every kernel
    tap plus its learned offset (bilinear, zero outside), scaled by `mask`.

    Args:
        x (Variable): [N, C, H, W] float32/float64 input.
        offset (Variable): [N, 2 * deformable_groups * kh * kw, OH, OW] (dy, dx) per tap.
        mask (Variable|None): [N, deformable_groups * kh * kw, OH, OW] modulation, or None.
        num_filters (int): output channels.
        filter_size (int|tuple): kernel size (kh, kw).
        stride, padding, dilation (int|tuple, optional): as in conv2d. Defaults 1, 0, 1.
        groups (int, optional): convolution groups. Default 1.
        deformable_groups (int, optional): channel groups sharing one offset set. Default 1.
        im2col_step (int, optional): accepted for compatibility; no effect. Default 1.
        weight_attr, bias_attr (ParamAttr|None, optional): parameter attributes.
        name (str, optional): the parameter name prefix.

    Returns:
        Variable: [N, num_filters, OH, OW].

    Examples:
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> x = paddle.static.data('x', [None, 3, 8, 8], 'float32')
        >>> offset = paddle.static.data('offset', [None, 18, 8, 8], 'float32')
        >>> mask = paddle.static.data('mask', [None, 9, 8, 8], 'float32')
        >>> out = paddle.static.nn.deform_conv2d(x, offset, mask, num_filters=2,
        ...                                      filter_size=3, padding=1)
        >>> out.shape
        paddle.Size([-1, 2, 8, 8])
        >>> paddle.disable_static()
    """
    api = "paddle.static.nn.deform_conv2d"
    for arg, t in (("x", x), ("offset", offset), ("mask", mask)):
        if t is not None and t.dtype.name not in ("float32", "float64"):
            raise TypeError(f"{api}: {arg} must be float32 or float64, got {t.dtype.name}")
    if not isinstance(num_filters, int) or isinstance(num_filters, bool) or num_filters <= 0:
        raise ValueError(f"{api}: num_filters must be a positive int, got {num_filters!r}")
    if x.ndim != 4:
        raise ValueError(f"{api}: x must be [N, C, H, W], got shape {list(x.shape)}")
    c = _channels(api, x, "NCHW")
    groups = 1 if groups is None else groups
    if not isinstance(groups, int) or groups <= 0 or c % groups or num_filters % groups:
        raise ValueError(f"{api}: the input channels ({c}) and num_filters ({num_filters}) "
                         f"must be divisible by groups ({groups})")
    kh, kw = nn_deform.pair(api, "filter_size", filter_size)
    prefix = name or unique_name.generate("deformable_conv")
    w = _param(prefix, "w_0", [num_filters, c // groups, kh, kw], x.dtype, weight_attr,
               Normal(0.0, math.sqrt(2.0 / (kh * kw * c))))
    b = _param(prefix, "b_0", [num_filters], x.dtype, bias_attr, is_bias=True)
    return nn_deform.deform_conv2d(x, offset, w, b, stride, padding, dilation,
                                   deformable_groups, groups, mask, api=api)

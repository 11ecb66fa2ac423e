"""paddle.static.nn convolution layers: conv2d, conv3d, conv2d_transpose, conv3d_transpose
(parameters "<layer>_<k>.w_0" / ".b_0" in the current Programs). Re-exported by static/nn.py.
"""
from __future__ import annotations

import math

from ..utils import unique_name
from .nn import _activation, _channels, _F, _ints, _param, _static_layer


def _conv(api, nd, input, num_filters, filter_size, stride, padding, dilation, groups,
          param_attr, bias_attr, act, name, data_format):
    if not isinstance(num_filters, int) or num_filters <= 0:
        raise ValueError(f"{api}: num_filters must be a positive int, got {num_filters!r}")
    if input.ndim != nd + 2:
        raise ValueError(f"{api}: input must be {nd + 2}-D, got shape {list(input.shape)}")
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
        raise ValueError(f"{api}: input must be {nd + 2}-D, got shape {list(input.shape)}")
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
                             f"input shape {list(input.shape)}")
        filter_size = [(o - (i - 1) * st + 2 * p - 1) // dl + 1
                       for o, i, st, p, dl in zip(out, spatial, s, pad, d)]
    k = _ints(api, "filter_size", filter_size, nd)
    prefix = name or unique_name.generate(api)
    w = _param(prefix, "w_0", [c, num_filters // groups, *k], input.dtype, param_attr)
    b = _param(prefix, "b_0", [num_filters], input.dtype, bias_attr, is_bias=True)
    y = getattr(_F(), api)(input, w, b, stride=s, padding=padding, dilation=d, groups=groups,
                           output_size=output_size, data_format=data_format)
    return _activation(y, act, api)

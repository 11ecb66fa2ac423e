"""Convolution layers (Conv1D/2D/3D, Conv1DTranspose/2D/3D) and Fold/Unfold.

Weights follow Paddle's shapes ([out, in / groups, *k]; transposed [in, out / groups, *k])
and default initializers: Normal(0, sqrt(2 / (in_channels * prod(kernel)))) for convolutions,
XavierUniform (the Layer default) for transposed convolutions, zero bias.
Imports `nn.functional`, `nn.initializer`, `nn.layer.layers` and `ops.dispatch`.
"""
from __future__ import annotations

import copy
import math

from ...ops.dispatch import FrozenAttrs, call, dispatch
from ...ops.opdef import REGISTRY
from .. import functional as F
from ..functional.conv import conv_attrs, to_list
from ..initializer import Normal
from .layers import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
           "Conv3DTranspose", "Unfold", "Fold"]

_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}
_PAD_MODES = ("zeros", "reflect", "replicate", "circular")


def _positive_int(layer: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{layer}: {arg} must be a positive int, got {value!r}")
    return value


class _ConvNd(Layer):
    """Shared constructor, padding_mode handling and extra_repr of the conv layers."""

    nd = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, padding_mode="zeros",
                 weight_attr=None, bias_attr=None, data_format=None, dtype=None) -> None:
        super().__init__()
        layer = type(self).__name__
        nd = self.nd
        data_format = data_format or _FORMATS[nd][0]
        if data_format not in _FORMATS[nd]:
            raise ValueError(f"{layer}: data_format must be one of {list(_FORMATS[nd])}, got "
                             f"{data_format!r}")
        if weight_attr is False:
            raise ValueError(f"{layer}: weight_attr must not be False (a convolution needs a "
                             f"weight)")
        self._in_channels = _positive_int(layer, "in_channels", in_channels)
        self._out_channels = _positive_int(layer, "out_channels", out_channels)
        self._groups = _positive_int(layer, "groups", groups)
        if padding_mode not in _PAD_MODES:
            raise ValueError(f"{layer}: padding_mode must be one of {list(_PAD_MODES)}, got "
                             f"{padding_mode!r}")
        if padding_mode != "zeros" and not isinstance(padding, int):
            raise TypeError(f"{layer}: padding must be an int when padding_mode is "
                            f"{padding_mode!r}, got {padding!r}")
        if in_channels % groups:
            raise ValueError(f"{layer}: in_channels ({in_channels}) must be divisible by "
                             f"groups ({groups})")
        if self.transposed and out_channels % groups:
            raise ValueError(f"{layer}: out_channels ({out_channels}) must be divisible by "
                             f"groups ({groups})")
        self._kernel_size = to_list(layer, "kernel_size", kernel_size, nd)
        self._stride = to_list(layer, "stride", stride, nd)
        self._dilation = to_list(layer, "dilation", dilation, nd)
        self._padding = padding
        self._padding_mode = padding_mode
        self.output_padding = output_padding
        self._data_format = data_format
        self._param_attr = weight_attr
        self._bias_attr = bias_attr
        if self.transposed:
            shape = [in_channels, out_channels // groups, *self._kernel_size]
            init = None
        else:
            shape = [out_channels, in_channels // groups, *self._kernel_size]
            init = Normal(0.0, (2.0 / (in_channels * math.prod(self._kernel_size))) ** 0.5)
        self.weight = self.create_parameter(shape, attr=weight_attr, dtype=dtype,
                                            default_initializer=init)
        self.bias = None if bias_attr is False else self.create_parameter(
            [out_channels], attr=bias_attr, dtype=dtype, is_bias=True)

    def _padded(self, x):
        """Apply a non-zero padding_mode explicitly (the convolution then pads nothing)."""
        p = self._padding
        pad = [0, 0] * (self.nd + 2)
        first = 1 if self._data_format in ("NLC", "NHWC", "NDHWC") else 2
        for d in range(self.nd):
            pad[2 * (first + d)] = pad[2 * (first + d) + 1] = p
        return call("pad", x, pad=pad, mode=self._padding_mode, value=0.0)

    def extra_repr(self) -> str:
        out = f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}"
        if self._stride != [1] * self.nd:
            out += f", stride={self._stride}"
        if self._padding != 0:
            out += f", padding={self._padding}"
        if self._padding_mode != "zeros":
            out += f", padding_mode={self._padding_mode}"
        if self.output_padding != 0:
            out += f", output_padding={self.output_padding}"
        if self._dilation != [1] * self.nd:
            out += f", dilation={self._dilation}"
        if self._groups != 1:
            out += f", groups={self._groups}"
        return out + f", data_format={self._data_format}"


class _Conv(_ConvNd):
    """Paddle 2.6 argument order; Paddle 3.x's keyword-only bias (False: no bias, as
    bias_attr=False), device (ignored: CPU only) and dtype are accepted too."""

    fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format=None, *, bias=True, device=None, dtype=None) -> None:
        if bias is False:
            bias_attr = False
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, 0, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format, dtype)

    def forward(self, x):
        if self._padding_mode != "zeros":
            return type(self).fn(self._padded(x), self.weight, self.bias, stride=self._stride,
                                 padding=0, dilation=self._dilation, groups=self._groups,
                                 data_format=self._data_format)
        op, attrs = self._op_attrs()
        params = self._parameters
        weight = params["weight"] if "weight" in params else self.weight
        return dispatch(op, (x, weight, params.get("bias", self.__dict__.get("bias"))), attrs)

    def _op_attrs(self) -> tuple:
        """(OpDef, the functional form's checked attrs) for this layer's arguments,
        normalised once and reused while the arguments stay equal (the normalisation is
        ~2 us a call). The attrs dict is shared by the calls: nothing writes into op attrs."""
        args = (self._stride, self._padding, self._dilation, self._groups, self._data_format)
        cached = self.__dict__.get("_op_attrs_cache")
        if cached is None or cached[0] != args:
            api = f"conv{self.nd}d"
            cached = (copy.deepcopy(args),
                      (REGISTRY[api], FrozenAttrs(conv_attrs(api, self.nd, *args))))
            self.__dict__["_op_attrs_cache"] = cached
        return cached[1]


class Conv1D(_Conv):
    """1-D convolution layer: weight [out_channels, in_channels / groups, k], bias
    [out_channels]; input [N, C, L] (NCL) or [N, L, C] (NLC). padding_mode 'zeros',
    'reflect', 'replicate' or 'circular' (the last three need an int padding)."""

    nd = 1
    fn = staticmethod(F.conv1d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL", *, bias=True, device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format, bias=bias,
                         device=device, dtype=dtype)


class Conv2D(_Conv):
    """2-D convolution layer: weight [out_channels, in_channels / groups, kh, kw] drawn from
    Normal(0, sqrt(2 / (in_channels * kh * kw))), bias [out_channels] zeros.

    Args:
        in_channels, out_channels (int): channels of the input and output.
        kernel_size, stride, dilation (int|list): one int or one per spatial dim.
        padding (int|list|str): as in paddle.nn.functional.conv2d.
        groups (int): channel groups. padding_mode (str): 'zeros', 'reflect', 'replicate'
            or 'circular'. weight_attr, bias_attr (ParamAttr|bool): bias_attr=False: no bias.
        data_format (str): 'NCHW' or 'NHWC'.

    Examples:
        >>> import sampan as paddle
        >>> conv = paddle.nn.Conv2D(3, 8, 3, padding=1)
        >>> conv
        Conv2D(3, 8, kernel_size=[3, 3], padding=1, data_format=NCHW)
        >>> conv(paddle.ones([2, 3, 5, 5])).shape
        paddle.Size([2, 8, 5, 5])
    """

    nd = 2
    fn = staticmethod(F.conv2d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCHW", *, bias=True, device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format, bias=bias,
                         device=device, dtype=dtype)


class Conv3D(_Conv):
    """3-D convolution layer: weight [out_channels, in_channels / groups, kd, kh, kw]; input
    NCDHW or NDHWC; arguments as Conv2D."""

    nd = 3
    fn = staticmethod(F.conv3d)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCDHW", *, bias=True, device=None, dtype=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format, bias=bias,
                         device=device, dtype=dtype)


class _ConvTranspose(_ConvNd):
    transposed = True
    fn = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format=None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, "zeros", weight_attr, bias_attr,
                         data_format)

    def forward(self, x, output_size=None):
        return type(self).fn(x, self.weight, self.bias, stride=self._stride,
                             padding=self._padding, output_padding=self.output_padding,
                             dilation=self._dilation, groups=self._groups,
                             output_size=output_size, data_format=self._data_format)


class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution layer: weight [in_channels, out_channels / groups, k]
    (XavierUniform), bias [out_channels] zeros; forward(x, output_size=None)."""

    nd = 1
    fn = staticmethod(F.conv1d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format="NCL") -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, weight_attr, bias_attr, data_format)


class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution layer: weight [in_channels, out_channels / groups, kh, kw]
    (XavierUniform), bias [out_channels] zeros; forward(x, output_size=None).

    Examples:
        >>> import sampan as paddle
        >>> up = paddle.nn.Conv2DTranspose(4, 2, 2, stride=2)
        >>> up(paddle.ones([1, 4, 3, 3])).shape
        paddle.Size([1, 2, 6, 6])
    """

    nd = 2
    fn = staticmethod(F.conv2d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, weight_attr, bias_attr, data_format)


class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution layer: weight [in_channels, out_channels / groups, kd, kh,
    kw]; arguments as Conv2DTranspose."""

    nd = 3
    fn = staticmethod(F.conv3d_transpose)

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format="NCDHW") -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, dilation, groups, weight_attr, bias_attr, data_format)


class Unfold(Layer):
    """Layer form of paddle.nn.functional.unfold (im2col of a 4-D input)."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None) -> None:
        super().__init__()
        self.kernel_sizes, self.dilations = kernel_sizes, dilations
        self.paddings, self.strides, self.name = paddings, strides, name

    def forward(self, input):
        return F.unfold(input, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self) -> str:
        suffix = f", name={self.name}" if self.name else ""
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, "
                f"padding={self.paddings}, stride={self.strides}{suffix}")


class Fold(Layer):
    """Layer form of paddle.nn.functional.fold (col2im into output_sizes)."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None) -> None:
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides, self.name = (dilations, paddings,
                                                                  strides, name)

    def forward(self, input):
        return F.fold(input, self.output_sizes, self.kernel_sizes, self.strides,
                      self.paddings, self.dilations)

    def extra_repr(self) -> str:
        suffix = f", name={self.name}" if self.name else ""
        return (f"kernel_size={self.kernel_sizes}, dilation={self.dilations}, "
                f"padding={self.paddings}, stride={self.strides}{suffix}")

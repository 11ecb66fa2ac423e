"""Quantized twins of Linear and Conv2D: the simulated (fake-quant / observed) layers QAT and
PTQ insert, and the int8 layers `convert` produces (int8 weights, int8 activations, int32
accumulation, float output)."""
from __future__ import annotations

import numpy as np

from .. import tensor as T
from ..nn import Conv2D, Layer, Linear
from ..nn import functional as F
from ..nn.functional.conv import padding_attrs
from .functional import dequantize_linear, int8_conv2d, int8_matmul, quantize_linear


class _Quanted(Layer):
    """Holds the float layer's parameters and the activation / weight quanters."""

    def __init__(self, layer, config) -> None:
        super().__init__()
        self.weight = layer.weight
        self.bias = layer.bias
        self.activation_quanter = (None if config.activation is None
                                   else config.activation._instance(layer))
        self.weight_quanter = None if config.weight is None else config.weight._instance(layer)

    def _inputs(self, x):
        if self.activation_quanter is not None:
            x = self.activation_quanter(x)
        w = self.weight if self.weight_quanter is None else self.weight_quanter(self.weight)
        return x, w


class QuantedLinear(_Quanted):
    """Linear whose input and weight pass through their quanters (QAT) or observers (PTQ)."""

    def __init__(self, layer: Linear, config) -> None:
        super().__init__(layer, config)
        self._name = getattr(layer, "_name", None)

    def forward(self, input):
        x, w = self._inputs(input)
        return F.linear(x, w, self.bias)


class QuantedConv2D(_Quanted):
    """Conv2D whose input and weight pass through their quanters or observers."""

    def __init__(self, layer: Conv2D, config) -> None:
        super().__init__(layer, config)
        if layer._padding_mode != "zeros":
            raise ValueError(f"QuantedConv2D: padding_mode {layer._padding_mode!r} is not "
                             f"supported (only 'zeros')")
        self._stride, self._padding = layer._stride, layer._padding
        self._dilation, self._groups = layer._dilation, layer._groups
        self._data_format = layer._data_format

    def forward(self, input):
        x, w = self._inputs(input)
        return F.conv2d(x, w, self.bias, self._stride, self._padding, self._dilation,
                        self._groups, self._data_format)


def _scale_of(quanter, api: str, what: str) -> tuple:
    """(float32 thresholds array, quant axis) of a quanter/observer."""
    if quanter is None:
        raise ValueError(f"{api}: the layer has no {what} quanter; convert needs both an "
                         f"activation and a weight quanter (set them in QuantConfig)")
    if quanter.bit_length() != 8:
        raise ValueError(f"{api}: int8 kernels need 8-bit quanters, the {what} quanter has "
                         f"bit_length {quanter.bit_length()}")
    scale = quanter.scales()
    if scale is None:
        raise RuntimeError(f"{api}: the {what} quanter has no scale yet; run the model on "
                           f"data before convert")
    return np.asarray(scale.numpy(), "float32").reshape(-1), quanter.quant_axis()


def _weight_levels(w: np.ndarray, scale: np.ndarray, axis: int, channel_axis: int):
    """(int8 weight, per-output-channel threshold) from float weights and their scale."""
    n = w.shape[channel_axis]
    if axis == -1:
        scale = np.full(n, scale[0], "float32")
    elif axis != channel_axis:
        raise ValueError(f"convert: weight scales along axis {axis}; the int8 kernels need "
                         f"per-tensor or per-output-channel (axis {channel_axis}) scales")
    shape = [1] * w.ndim
    shape[channel_axis] = n
    s = np.where(scale > 0, scale, 1.0).reshape(shape)
    v = w / s * 127.0
    q = np.clip(np.trunc(v) + np.where(np.abs(v - np.trunc(v)) >= 0.5, np.sign(v), 0), -127, 127)
    return q.astype("int8"), scale.astype("float32")


class _Int8(Layer):
    """Buffers: int8 weight, activation threshold [1], output scale s_x * s_w / 127 per
    output channel (dequantizes the int32 accumulator), float bias."""

    def _setup(self, layer: _Quanted, channel_axis: int) -> None:
        api = f"convert({type(layer).__name__})"
        act, act_axis = _scale_of(layer.activation_quanter, api, "activation")
        if act_axis != -1 or act.size != 1:
            raise ValueError(f"{api}: activations need a per-tensor scale, got shape "
                             f"{list(act.shape)} on axis {act_axis}")
        w_scale, w_axis = _scale_of(layer.weight_quanter, api, "weight")
        wq, w_scale = _weight_levels(layer.weight.numpy(), w_scale, w_axis, channel_axis)
        self.register_buffer("weight", T.to_tensor(wq))
        self.register_buffer("activation_scale", T.to_tensor(act))
        self.register_buffer("output_scale", T.to_tensor(act[0] * w_scale / 127.0))
        self.register_buffer("bias", None if layer.bias is None
                             else T.to_tensor(layer.bias.numpy()))


class Int8Linear(_Int8):
    """y = dequant(int8(x) @ int8(W)) + b with int32 accumulation."""

    def __init__(self, layer: QuantedLinear) -> None:
        super().__init__()
        self._setup(layer, 1)

    def forward(self, input):
        xq = quantize_linear(input, self.activation_scale.astype(input.dtype))
        acc = int8_matmul(xq, self.weight)
        out = dequantize_linear(acc, self.output_scale, quant_axis=acc.ndim - 1)
        return out if self.bias is None else out + self.bias


class Int8Conv2D(_Int8):
    """y = dequant(conv2d(int8(x), int8(W))) + b (NCHW) with int32 accumulation."""

    def __init__(self, layer: QuantedConv2D) -> None:
        super().__init__()
        if layer._data_format != "NCHW":
            raise ValueError(f"convert(QuantedConv2D): only NCHW is supported, got "
                             f"{layer._data_format}")
        self._setup(layer, 0)
        self._stride, self._dilation, self._groups = layer._stride, layer._dilation, layer._groups
        pads, algorithm = padding_attrs("Int8Conv2D", layer._padding, 2, "NCHW")
        if algorithm != "EXPLICIT":
            raise ValueError(f"convert(QuantedConv2D): padding {layer._padding!r} is not "
                             f"supported (give explicit padding)")
        self._pads = pads

    def forward(self, input):
        xq = quantize_linear(input, self.activation_scale.astype(input.dtype))
        acc = int8_conv2d(xq, self.weight, self._stride, self._pads, self._dilation,
                          self._groups)
        out = dequantize_linear(acc, self.output_scale, quant_axis=1)
        return out if self.bias is None else out + self.bias.reshape([1, -1, 1, 1])

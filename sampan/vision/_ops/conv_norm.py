"""ConvNormActivation: the Conv2D + norm + activation block of paddle.vision.ops that the
model zoo builds on (a Sequential, so its parameters are named ``0.weight``, ``1._mean``)."""
from __future__ import annotations

from typing import Callable

from ... import nn


class ConvNormActivation(nn.Sequential):
    """Conv2D followed by a normalization layer and an activation.

    Args:
        in_channels (int): input channels.
        out_channels (int): output channels.
        kernel_size (int|tuple, optional): convolution kernel size. Default 3.
        stride (int|tuple, optional): convolution stride. Default 1.
        padding (int|tuple|str, optional): padding; None means ``(kernel_size - 1) // 2 *
            dilation``. Default None.
        groups (int, optional): convolution groups. Default 1.
        norm_layer (callable, optional): builds the norm layer from ``out_channels``; None
            for no norm. Default BatchNorm2D.
        activation_layer (callable, optional): builds the activation; None for none.
            Default ReLU.
        dilation (int, optional): convolution dilation. Default 1.
        bias (bool, optional): whether the conv has a bias; None means "only when there is
            no norm layer". Default None.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import ConvNormActivation
        >>> block = ConvNormActivation(3, 8)
        >>> block(paddle.ones([1, 3, 5, 5])).shape
        paddle.Size([1, 8, 5, 5])
        >>> sorted(block.state_dict())
        ['0.weight', '1._mean', '1._variance', '1.bias', '1.weight']
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size=3, stride=1,
                 padding=None, groups: int = 1,
                 norm_layer: Callable | None = nn.BatchNorm2D,
                 activation_layer: Callable | None = nn.ReLU, dilation: int = 1,
                 bias: bool | None = None) -> None:
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                            dilation=dilation, groups=groups,
                            bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)

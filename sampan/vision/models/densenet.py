"""DenseNet 121/161/169/201/264 (paddle.vision.models.DenseNet and densenet* functions)."""
from __future__ import annotations

import math

from ... import nn
from ...framework.param_attr import ParamAttr
from ...initializer import Uniform
from ...tensor.manipulation_join import concat
from ._utils import load_pretrained


class BNACConvLayer(nn.Layer):
    """BatchNorm (with activation) then a bias-free Conv2D: DenseNet's pre-activation unit."""

    def __init__(self, num_channels: int, num_filters: int, filter_size, stride=1, pad=0,
                 groups: int = 1, act: str = "relu") -> None:
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    """1x1 bottleneck + 3x3 conv producing ``growth_rate`` maps, concatenated to the input."""

    def __init__(self, num_channels: int, growth_rate: int, bn_size: int,
                 dropout: float) -> None:
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    """``num_layers`` DenseLayers named ``{name}_1 ... {name}_n``."""

    def __init__(self, num_channels: int, num_layers: int, bn_size: int, growth_rate: int,
                 dropout: float, name: str | None = None) -> None:
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        for i in range(num_layers):
            layer = DenseLayer(num_channels + i * growth_rate, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))

    def forward(self, input):
        for layer in self.dense_layer_func:
            input = layer(input)
        return input


class TransitionLayer(nn.Layer):
    """BN-ReLU-1x1 conv then a 2x2 average pool between dense blocks."""

    def __init__(self, num_channels: int, num_output_features: int) -> None:
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    """Bias-free Conv2D then BatchNorm with activation."""

    def __init__(self, num_channels: int, num_filters: int, filter_size, stride=1, pad=0,
                 groups: int = 1, act: str = "relu") -> None:
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=pad, groups=groups, bias_attr=False)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


# layers -> (initial features, growth rate, layers per block)
_SPECS = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
          169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32]),
          264: (64, 32, [6, 12, 64, 48])}


class DenseNet(nn.Layer):
    """DenseNet ("Densely Connected Convolutional Networks").

    Args:
        layers (int, optional): 121, 161, 169, 201 or 264. Default 121.
        bn_size (int, optional): bottleneck width multiplier. Default 4.
        dropout (float, optional): dropout after each dense layer. Default 0.0.
        num_classes (int, optional): output classes; <= 0 drops the fc layer. Default 1000.
        with_pool (bool, optional): apply the final adaptive average pool. Default True.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import DenseNet
        >>> model = DenseNet(121, num_classes=10)
        >>> model(paddle.rand([1, 3, 32, 32])).shape
        paddle.Size([1, 10])
    """

    def __init__(self, layers: int = 121, bn_size: int = 4, dropout: float = 0.0,
                 num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        if layers not in _SPECS:
            raise ValueError(f"DenseNet: supported layers are {sorted(_SPECS)} but input "
                             f"layer is {layers}")
        self.num_classes = num_classes
        self.with_pool = with_pool
        num_features, growth_rate, block_config = _SPECS[layers]
        self.conv1_func = ConvBNLayer(3, num_features, 7, stride=2, pad=3, act='relu')
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list = []
        self.transition_func_list = []
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(num_features, num_layers, bn_size, growth_rate, dropout,
                               name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                trans = TransitionLayer(num_features, num_features // 2)
                self.transition_func_list.append(
                    self.add_sublayer(f"tr_conv{i + 2}_blk", trans))
                num_features //= 2
        self.batch_norm = nn.BatchNorm(num_features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(num_features * 1.0)
            self.out = nn.Linear(num_features, num_classes,
                                 weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, input):
        y = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            y = block(y)
            if i < len(self.transition_func_list):
                y = self.transition_func_list[i](y)
        y = self.batch_norm(y)
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = self.out(y.flatten(1))
        return y


def _densenet(arch: str, layers: int, pretrained: bool, **kwargs) -> DenseNet:
    model = DenseNet(layers=layers, **kwargs)
    return load_pretrained(model, arch) if pretrained else model


def densenet121(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-121."""
    return _densenet('densenet121', 121, pretrained, **kwargs)


def densenet161(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-161."""
    return _densenet('densenet161', 161, pretrained, **kwargs)


def densenet169(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-169."""
    return _densenet('densenet169', 169, pretrained, **kwargs)


def densenet201(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-201."""
    return _densenet('densenet201', 201, pretrained, **kwargs)


def densenet264(pretrained: bool = False, **kwargs) -> DenseNet:
    """DenseNet-264."""
    return _densenet('densenet264', 264, pretrained, **kwargs)

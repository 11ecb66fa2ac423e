"""ShuffleNetV2 (paddle.vision.models.ShuffleNetV2 and the shufflenet_v2_* functions)."""
from __future__ import annotations

from ... import nn
from ...tensor.manipulation import reshape, transpose
from ...tensor.manipulation_join import concat, split
from .._ops.conv_norm import ConvNormActivation
from ._utils import load_pretrained

_ACTS = {"swish": nn.Swish, "relu": nn.ReLU, None: None}
_STAGE_CHANNELS = {0.25: [-1, 24, 24, 48, 96, 512], 0.33: [-1, 24, 32, 64, 128, 512],
                   0.5: [-1, 24, 48, 96, 192, 1024], 1.0: [-1, 24, 116, 232, 464, 1024],
                   1.5: [-1, 24, 176, 352, 704, 1024], 2.0: [-1, 24, 224, 488, 976, 2048]}


def channel_shuffle(x, groups: int):
    """Interleave the channels of NCHW ``x`` across ``groups`` groups."""
    n, c, h, w = x.shape[0:4]
    x = reshape(x, [n, groups, c // groups, h, w])
    return reshape(transpose(x, [0, 2, 1, 3, 4]), [n, c, h, w])


def _cna(cin: int, cout: int, k: int, stride: int, groups: int, act):
    return ConvNormActivation(cin, cout, kernel_size=k, stride=stride, padding=(k - 1) // 2,
                              groups=groups, activation_layer=act)


class InvertedResidual(nn.Layer):
    """Stride-1 unit: half the channels pass, the other half go 1x1-dw3x3-1x1; shuffle."""

    def __init__(self, in_channels: int, out_channels: int, stride,
                 activation_layer=nn.ReLU) -> None:
        super().__init__()
        half = out_channels // 2
        self._conv_pw = _cna(in_channels // 2, half, 1, 1, 1, activation_layer)
        self._conv_dw = _cna(half, half, 3, stride, half, None)
        self._conv_linear = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        c = inputs.shape[1]
        x1, x2 = split(inputs, num_or_sections=[c // 2, c // 2], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """Down-sampling unit: two strided branches concatenated, then shuffled."""

    def __init__(self, in_channels: int, out_channels: int, stride,
                 activation_layer=nn.ReLU) -> None:
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = _cna(in_channels, in_channels, 3, stride, in_channels, None)
        self._conv_linear_1 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_pw_2 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_dw_2 = _cna(half, half, 3, stride, half, None)
        self._conv_linear_2 = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 ("Practical Guidelines for Efficient CNN Architecture Design").

    Args:
        scale (float, optional): one of 0.25, 0.33, 0.5, 1.0, 1.5, 2.0. Default 1.0.
        act (str, optional): 'relu' or 'swish'. Default 'relu'.
        num_classes (int, optional): output classes; <= 0 drops the fc layer. Default 1000.
        with_pool (bool, optional): apply the final adaptive average pool. Default True.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import ShuffleNetV2
        >>> model = ShuffleNetV2(scale=0.25, num_classes=10)
        >>> model(paddle.rand([1, 3, 32, 32])).shape
        paddle.Size([1, 10])
    """

    def __init__(self, scale: float = 1.0, act: str | None = "relu", num_classes: int = 1000,
                 with_pool: bool = True) -> None:
        super().__init__()
        if scale not in _STAGE_CHANNELS:
            raise NotImplementedError(f"This scale size:[{scale}] is not implemented!")
        if act not in _ACTS:
            raise RuntimeError(f"The activation function is not supported: {act}")
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        channels = _STAGE_CHANNELS[scale]
        act_layer = _ACTS[act]
        self._conv1 = _cna(3, channels[1], 3, 2, 1, act_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate([4, 8, 4]):
            for i in range(repeats):
                if i == 0:
                    block = InvertedResidualDS(channels[stage + 1], channels[stage + 2], 2,
                                               act_layer)
                else:
                    block = InvertedResidual(channels[stage + 2], channels[stage + 2], 1,
                                             act_layer)
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = _cna(channels[-2], channels[-1], 1, 1, 1, act_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(x.flatten(1))
        return x


def _shufflenet_v2(arch: str, scale: float, pretrained: bool, act: str = "relu",
                   **kwargs) -> ShuffleNetV2:
    model = ShuffleNetV2(scale=scale, act=act, **kwargs)
    return load_pretrained(model, arch) if pretrained else model


def shufflenet_v2_x0_25(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 0.25x channels."""
    return _shufflenet_v2("shufflenet_v2_x0_25", 0.25, pretrained, **kwargs)


def shufflenet_v2_x0_33(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 0.33x channels."""
    return _shufflenet_v2("shufflenet_v2_x0_33", 0.33, pretrained, **kwargs)


def shufflenet_v2_x0_5(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 0.5x channels."""
    return _shufflenet_v2("shufflenet_v2_x0_5", 0.5, pretrained, **kwargs)


def shufflenet_v2_x1_0(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 1.0x channels."""
    return _shufflenet_v2("shufflenet_v2_x1_0", 1.0, pretrained, **kwargs)


def shufflenet_v2_x1_5(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 1.5x channels."""
    return _shufflenet_v2("shufflenet_v2_x1_5", 1.5, pretrained, **kwargs)


def shufflenet_v2_x2_0(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 with 2.0x channels."""
    return _shufflenet_v2("shufflenet_v2_x2_0", 2.0, pretrained, **kwargs)


def shufflenet_v2_swish(pretrained: bool = False, **kwargs) -> ShuffleNetV2:
    """ShuffleNetV2 1.0x with swish activations."""
    return _shufflenet_v2("shufflenet_v2_swish", 1.0, pretrained, act="swish", **kwargs)

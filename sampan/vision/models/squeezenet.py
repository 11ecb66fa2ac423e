"""SqueezeNet 1.0 and 1.1 (paddle.vision.models.SqueezeNet / squeezenet1_0 / squeezenet1_1)."""
from __future__ import annotations

from ... import nn
from ...nn import functional as F
from ...tensor.manipulation_join import concat
from ._utils import load_pretrained


class MakeFireConv(nn.Layer):
    """Conv2D + ReLU."""

    def __init__(self, input_channels: int, output_channels: int, filter_size,
                 padding=0) -> None:
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size,
                               padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """Fire module: 1x1 squeeze, then 1x1 and 3x3 expand paths concatenated."""

    def __init__(self, input_channels: int, squeeze_channels: int,
                 expand1x1_channels: int, expand3x3_channels: int) -> None:
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


_FIRES = [(16, 64), (16, 64), (32, 128), (32, 128), (48, 192), (48, 192), (64, 256),
          (64, 256)]  # (squeeze, expand) of fire modules 1..8


class SqueezeNet(nn.Layer):
    """SqueezeNet ("AlexNet-level accuracy with 50x fewer parameters").

    Args:
        version (str): '1.0' or '1.1'.
        num_classes (int, optional): output classes. Default 1000.
        with_pool (bool, optional): apply ReLU + the final adaptive average pool and squeeze
            the spatial axes. Default True.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import SqueezeNet
        >>> model = SqueezeNet('1.1', num_classes=10)
        >>> model(paddle.rand([1, 3, 64, 64])).shape
        paddle.Size([1, 10])
    """

    def __init__(self, version: str, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        if version not in ('1.0', '1.1'):
            raise ValueError(f"SqueezeNet: supported versions are ['1.0', '1.1'] but input "
                             f"version is {version}")
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        if version == '1.0':
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
            channels = 96
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
            channels = 64
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        for i, (squeeze, expand) in enumerate(_FIRES, start=1):
            setattr(self, f"_conv{i}", MakeFire(channels, squeeze, expand, expand))
            channels = 2 * expand
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        # max pools follow fire 3 and 7 in 1.0, fire 2 and 4 in 1.1
        pool_after = (3, 7) if self.version == '1.0' else (2, 4)
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pool_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = self._avg_pool(F.relu(x)).squeeze(axis=[2, 3])
        return x


def squeezenet1_0(pretrained: bool = False, **kwargs) -> SqueezeNet:
    """SqueezeNet 1.0."""
    model = SqueezeNet('1.0', **kwargs)
    return load_pretrained(model, 'squeezenet1_0') if pretrained else model


def squeezenet1_1(pretrained: bool = False, **kwargs) -> SqueezeNet:
    """SqueezeNet 1.1 (fewer FLOPs than 1.0, same accuracy)."""
    model = SqueezeNet('1.1', **kwargs)
    return load_pretrained(model, 'squeezenet1_1') if pretrained else model

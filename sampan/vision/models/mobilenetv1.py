"""MobileNetV1 (paddle.vision.models.MobileNetV1 / mobilenet_v1)."""
from __future__ import annotations

from ... import nn
from .._ops.conv_norm import ConvNormActivation
from ._utils import load_pretrained


class DepthwiseSeparable(nn.Layer):
    """A 3x3 depthwise ConvNormActivation followed by a 1x1 pointwise one."""

    def __init__(self, in_channels: int, out_channels1: int, out_channels2: int,
                 num_groups: int, stride, scale: float) -> None:
        super().__init__()
        self._depthwise_conv = ConvNormActivation(
            in_channels, int(out_channels1 * scale), kernel_size=3, stride=stride,
            padding=1, groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(
            int(out_channels1 * scale), int(out_channels2 * scale), kernel_size=1,
            stride=1, padding=0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


# (sublayer name, in, out1, out2, groups, stride), channels before scaling
_BLOCKS = [("conv2_1", 32, 32, 64, 32, 1), ("conv2_2", 64, 64, 128, 64, 2),
           ("conv3_1", 128, 128, 128, 128, 1), ("conv3_2", 128, 128, 256, 128, 2),
           ("conv4_1", 256, 256, 256, 256, 1), ("conv4_2", 256, 256, 512, 256, 2)] + \
          [(f"conv5_{i}", 512, 512, 512, 512, 1) for i in range(1, 6)] + \
          [("conv5_6", 512, 512, 1024, 512, 2), ("conv6", 1024, 1024, 1024, 1024, 1)]


class MobileNetV1(nn.Layer):
    """MobileNetV1 ("Efficient Convolutional Neural Networks for Mobile Vision").

    Args:
        scale (float, optional): channel multiplier. Default 1.0.
        num_classes (int, optional): output classes; <= 0 drops the fc layer. Default 1000.
        with_pool (bool, optional): apply the final adaptive average pool. Default True.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import MobileNetV1
        >>> model = MobileNetV1(scale=0.25, num_classes=10)
        >>> model(paddle.rand([1, 3, 32, 32])).shape
        paddle.Size([1, 10])
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000,
                 with_pool: bool = True) -> None:
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2,
                                        padding=1)
        self.dwsl = []
        for name, cin, c1, c2, groups, stride in _BLOCKS:
            block = DepthwiseSeparable(int(cin * scale), c1, c2, groups, stride, scale)
            self.dwsl.append(self.add_sublayer(name, block))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x


def mobilenet_v1(pretrained: bool = False, scale: float = 1.0, **kwargs) -> MobileNetV1:
    """MobileNetV1 with channel multiplier ``scale``; pretrained weights exist for 1.0."""
    model = MobileNetV1(scale=scale, **kwargs)
    return load_pretrained(model, 'mobilenetv1_' + str(scale)) if pretrained else model

"""MobileNetV2 (paddle.vision.models.MobileNetV2 / mobilenet_v2)."""
from __future__ import annotations

from ... import nn
from .._ops.conv_norm import ConvNormActivation
from ._utils import _make_divisible, load_pretrained


class InvertedResidual(nn.Layer):
    """Expand (1x1), depthwise 3x3 and linear 1x1 project, residual when shapes agree."""

    def __init__(self, inp: int, oup: int, stride: int, expand_ratio: float,
                 norm_layer=nn.BatchNorm2D) -> None:
        super().__init__()
        if stride not in (1, 2):
            raise ValueError(f"InvertedResidual: stride must be 1 or 2, got {stride}")
        self.stride = stride
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden_dim, kernel_size=1,
                                             norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6))
        layers += [ConvNormActivation(hidden_dim, hidden_dim, stride=stride,
                                      groups=hidden_dim, norm_layer=norm_layer,
                                      activation_layer=nn.ReLU6),
                   nn.Conv2D(hidden_dim, oup, 1, 1, 0, bias_attr=False),
                   norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


_SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
            [6, 160, 3, 2], [6, 320, 1, 1]]  # expand ratio t, channels c, repeats n, stride s


class MobileNetV2(nn.Layer):
    """MobileNetV2 ("Inverted Residuals and Linear Bottlenecks").

    Args:
        scale (float, optional): channel multiplier. Default 1.0.
        num_classes (int, optional): output classes; <= 0 drops the classifier. Default 1000.
        with_pool (bool, optional): apply the final adaptive average pool. Default True.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import MobileNetV2
        >>> model = MobileNetV2(scale=0.5, num_classes=10)
        >>> model(paddle.rand([1, 3, 32, 32])).shape
        paddle.Size([1, 10])
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000,
                 with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        input_channel = _make_divisible(32 * scale, 8)
        self.last_channel = _make_divisible(1280 * max(1.0, scale), 8)
        features = [ConvNormActivation(3, input_channel, stride=2,
                                       activation_layer=nn.ReLU6)]
        for t, c, n, s in _SETTING:
            output_channel = _make_divisible(c * scale, 8)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel,
                                                 s if i == 0 else 1, expand_ratio=t))
                input_channel = output_channel
        features.append(ConvNormActivation(input_channel, self.last_channel, kernel_size=1,
                                           activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2),
                                            nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(x.flatten(1))
        return x


def mobilenet_v2(pretrained: bool = False, scale: float = 1.0, **kwargs) -> MobileNetV2:
    """MobileNetV2 with channel multiplier ``scale``; pretrained weights exist for 1.0."""
    model = MobileNetV2(scale=scale, **kwargs)
    return load_pretrained(model, 'mobilenetv2_' + str(scale)) if pretrained else model

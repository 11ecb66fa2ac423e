"""AlexNet (paddle.vision.models.AlexNet / alexnet), with Paddle's layer names."""
from __future__ import annotations

import math

from ... import nn
from ...framework.param_attr import ParamAttr
from ...initializer import Uniform
from ._utils import load_pretrained


def _uniform_attr(fan_in: int) -> ParamAttr:
    stdv = 1.0 / math.sqrt(fan_in)
    return ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvPoolLayer(nn.Layer):
    """Conv2D (+ReLU) followed by a 3x3/2 max pool."""

    def __init__(self, input_channels: int, output_channels: int, filter_size, stride,
                 padding, fan_in: int, groups: int = 1, act: str | None = None) -> None:
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride,
                               padding=padding, groups=groups,
                               weight_attr=_uniform_attr(fan_in),
                               bias_attr=_uniform_attr(fan_in))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet ("One weird trick" variant, 224x224 inputs).

    Args:
        num_classes (int, optional): output classes; <= 0 drops the classifier. Default 1000.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import AlexNet
        >>> model = AlexNet(num_classes=0)
        >>> model(paddle.rand([1, 3, 64, 64])).shape
        paddle.Size([1, 256, 1, 1])
    """

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 3 * 11 * 11, act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 64 * 5 * 5, act="relu")
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1,
                                weight_attr=_uniform_attr(192 * 9),
                                bias_attr=_uniform_attr(192 * 9))
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1,
                                weight_attr=_uniform_attr(384 * 9),
                                bias_attr=_uniform_attr(384 * 9))
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 256 * 9, act="relu")
        if num_classes > 0:
            fan = 256 * 6 * 6
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(fan, 4096, weight_attr=_uniform_attr(fan),
                                  bias_attr=_uniform_attr(fan))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, weight_attr=_uniform_attr(fan),
                                  bias_attr=_uniform_attr(fan))
            self._fc8 = nn.Linear(4096, num_classes, weight_attr=_uniform_attr(fan),
                                  bias_attr=_uniform_attr(fan))

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = nn.functional.relu(self._conv3(x))
        x = nn.functional.relu(self._conv4(x))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = self._drop1(x.flatten(1))
            x = self._drop2(nn.functional.relu(self._fc6(x)))
            x = self._fc8(nn.functional.relu(self._fc7(x)))
        return x


def alexnet(pretrained: bool = False, **kwargs) -> AlexNet:
    """AlexNet; ``pretrained=True`` loads ``AlexNet_pretrained.pdparams`` from the cache.

    Examples:
        >>> from sampan.vision.models import alexnet
        >>> model = alexnet(num_classes=10)
        >>> model._fc8.weight.shape
        paddle.Size([4096, 10])
    """
    model = AlexNet(**kwargs)
    return load_pretrained(model, 'alexnet') if pretrained else model

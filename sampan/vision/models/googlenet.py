"""GoogLeNet / Inception v1 with its two auxiliary heads (paddle.vision.models.GoogLeNet)."""
from __future__ import annotations

from ... import nn
from ...framework.param_attr import ParamAttr
from ...initializer import Uniform
from ...nn import functional as F
from ...tensor.manipulation_join import concat
from ._utils import load_pretrained


def _xavier(channels: int, filter_size: int) -> ParamAttr:
    stdv = (3.0 / (filter_size ** 2 * channels)) ** 0.5
    return ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvLayer(nn.Layer):
    """A bias-free 'same'-padded Conv2D."""

    def __init__(self, num_channels: int, num_filters: int, filter_size: int, stride=1,
                 groups: int = 1) -> None:
        super().__init__()
        self._conv = nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                               padding=(filter_size - 1) // 2, groups=groups,
                               bias_attr=False)

    def forward(self, inputs):
        return self._conv(inputs)


class Inception(nn.Layer):
    """Four parallel paths (1x1, 1x1-3x3, 1x1-5x5, pool-1x1) concatenated, then ReLU."""

    def __init__(self, input_channels: int, output_channels: int, filter1: int,
                 filter3R: int, filter3: int, filter5R: int, filter5: int,
                 proj: int) -> None:
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, inputs):
        paths = [self._conv1(inputs), self._conv3(self._conv3r(inputs)),
                 self._conv5(self._conv5r(inputs)), self._convprj(self._pool(inputs))]
        return F.relu(concat(paths, axis=1))


_INCEPTIONS = [("_ince3a", 192, 64, 96, 128, 16, 32, 32),
               ("_ince3b", 256, 128, 128, 192, 32, 96, 64),
               ("_ince4a", 480, 192, 96, 208, 16, 48, 64),
               ("_ince4b", 512, 160, 112, 224, 24, 64, 64),
               ("_ince4c", 512, 128, 128, 256, 24, 64, 64),
               ("_ince4d", 512, 112, 144, 288, 32, 64, 64),
               ("_ince4e", 528, 256, 160, 320, 32, 128, 128),
               ("_ince5a", 832, 256, 160, 320, 32, 128, 128),
               ("_ince5b", 832, 384, 192, 384, 48, 128, 128)]


class GoogLeNet(nn.Layer):
    """GoogLeNet ("Going Deeper with Convolutions"); forward returns ``(out, aux1, aux2)``.

    Args:
        num_classes (int, optional): output classes; <= 0 drops the heads. Default 1000.
        with_pool (bool, optional): apply the final and auxiliary pools. Default True.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import GoogLeNet
        >>> model = GoogLeNet(num_classes=0, with_pool=False)
        >>> out, aux1, aux2 = model(paddle.rand([1, 3, 64, 64]))
        >>> out.shape, aux1.shape
        (paddle.Size([1, 1024, 1, 1]), paddle.Size([1, 512, 3, 3]))
    """

    def __init__(self, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        for name, cin, *filters in _INCEPTIONS:
            setattr(self, name, Inception(cin, cin, *filters))
        if with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
            self._fc_out = nn.Linear(1024, num_classes, weight_attr=_xavier(1024, 1))
            for i, cin in ((1, 512), (2, 528)):
                setattr(self, f"_conv_o{i}", ConvLayer(cin, 128, 1))
                setattr(self, f"_fc_o{i}", nn.Linear(1152, 1024, weight_attr=_xavier(2048, 1)))
                setattr(self, f"_drop_o{i}", nn.Dropout(p=0.7, mode="downscale_in_infer"))
                setattr(self, f"_out{i}",
                        nn.Linear(1024, num_classes, weight_attr=_xavier(1024, 1)))

    def forward(self, inputs):
        x = self._pool(self._conv_2(self._conv_1(self._pool(self._conv(inputs)))))
        x = self._pool(self._ince3b(self._ince3a(x)))
        out1 = self._ince4a(x)
        out2 = self._ince4d(self._ince4c(self._ince4b(out1)))
        x = self._pool(self._ince4e(out2))
        out = self._ince5b(self._ince5a(x))
        if self.with_pool:
            out, out1, out2 = self._pool_5(out), self._pool_o1(out1), self._pool_o2(out2)
        if self.num_classes > 0:
            out = self._fc_out(self._drop(out).squeeze(axis=[2, 3]))
            out1 = self._fc_o1(self._conv_o1(out1).flatten(1))
            out1 = self._out1(self._drop_o1(F.relu(out1)))
            # NOTE: Paddle applies no ReLU on the second auxiliary head; kept for weight parity
            out2 = self._fc_o2(self._conv_o2(out2).flatten(1))
            out2 = self._out2(self._drop_o2(out2))
        return out, out1, out2


def googlenet(pretrained: bool = False, **kwargs) -> GoogLeNet:
    """GoogLeNet; ``pretrained=True`` loads ``GoogLeNet_pretrained.pdparams`` from the cache."""
    model = GoogLeNet(**kwargs)
    return load_pretrained(model, "googlenet") if pretrained else model

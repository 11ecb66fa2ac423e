"""InceptionV3 (paddle.vision.models.InceptionV3 / inception_v3), Paddle's layer names."""
from __future__ import annotations

import math

from ... import nn
from ...framework.param_attr import ParamAttr
from ...initializer import Uniform
from ...tensor.manipulation import reshape
from ...tensor.manipulation_join import concat
from .._ops.conv_norm import ConvNormActivation
from ._utils import load_pretrained


def _cbr(cin: int, cout: int, k=1, stride=1, padding=0) -> ConvNormActivation:
    return ConvNormActivation(cin, cout, kernel_size=k, stride=stride, padding=padding,
                              activation_layer=nn.ReLU)


def _avg_pool() -> nn.AvgPool2D:
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    """Five conv-BN-ReLU layers and two max pools: 299x299x3 -> 35x35x192."""

    def __init__(self) -> None:
        super().__init__()
        self.conv_1a_3x3 = _cbr(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cbr(32, 32, 3)
        self.conv_2b_3x3 = _cbr(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cbr(64, 80, 1)
        self.conv_4a_3x3 = _cbr(80, 192, 3)

    def forward(self, x):
        x = self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x)))
        x = self.conv_4a_3x3(self.conv_3b_1x1(self.max_pool(x)))
        return self.max_pool(x)


class InceptionA(nn.Layer):
    """1x1, 5x5, double 3x3 and pooled paths (35x35 grid)."""

    def __init__(self, num_channels: int, pool_features: int) -> None:
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 64)
        self.branch5x5_1 = _cbr(num_channels, 48)
        self.branch5x5_2 = _cbr(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, padding=1)
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cbr(num_channels, pool_features)

    def forward(self, x):
        b5 = self.branch5x5_2(self.branch5x5_1(x))
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        bp = self.branch_pool_conv(self.branch_pool(x))
        return concat([self.branch1x1(x), b5, b3, bp], axis=1)


class InceptionB(nn.Layer):
    """Grid reduction 35x35 -> 17x17."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch3x3 = _cbr(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cbr(num_channels, 64)
        self.branch3x3dbl_2 = _cbr(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cbr(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return concat([self.branch3x3(x), b3, self.branch_pool(x)], axis=1)


class InceptionC(nn.Layer):
    """Factorized 7x7 paths (17x17 grid)."""

    def __init__(self, num_channels: int, channels_7x7: int) -> None:
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = _cbr(num_channels, 192)
        self.branch7x7_1 = _cbr(num_channels, c7)
        self.branch7x7_2 = _cbr(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cbr(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cbr(num_channels, c7)
        self.branch7x7dbl_2 = _cbr(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cbr(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cbr(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cbr(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cbr(num_channels, 192)

    def forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        bd = self.branch7x7dbl_1(x)
        for i in range(2, 6):
            bd = getattr(self, f"branch7x7dbl_{i}")(bd)
        bp = self.branch_pool_conv(self.branch_pool(x))
        return concat([self.branch1x1(x), b7, bd, bp], axis=1)


class InceptionD(nn.Layer):
    """Grid reduction 17x17 -> 8x8."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch3x3_1 = _cbr(num_channels, 192)
        self.branch3x3_2 = _cbr(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cbr(num_channels, 192)
        self.branch7x7x3_2 = _cbr(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cbr(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cbr(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b3 = self.branch3x3_2(self.branch3x3_1(x))
        b7 = self.branch7x7x3_1(x)
        for i in range(2, 5):
            b7 = getattr(self, f"branch7x7x3_{i}")(b7)
        return concat([b3, b7, self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    """Expanded filter-bank paths (8x8 grid)."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch1x1 = _cbr(num_channels, 320)
        self.branch3x3_1 = _cbr(num_channels, 384)
        self.branch3x3_2a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cbr(num_channels, 448)
        self.branch3x3dbl_2 = _cbr(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cbr(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cbr(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg_pool()
        self.branch_pool_conv = _cbr(num_channels, 192)

    def forward(self, x):
        b3 = self.branch3x3_1(x)
        b3 = concat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], axis=1)
        bd = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        bd = concat([self.branch3x3dbl_3a(bd), self.branch3x3dbl_3b(bd)], axis=1)
        bp = self.branch_pool_conv(self.branch_pool(x))
        return concat([self.branch1x1(x), b3, bd, bp], axis=1)


class InceptionV3(nn.Layer):
    """InceptionV3 ("Rethinking the Inception Architecture for Computer Vision").

    Args:
        num_classes (int, optional): output classes; <= 0 drops the fc layer. Default 1000.
        with_pool (bool, optional): apply the final adaptive average pool. Default True.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import InceptionV3
        >>> model = InceptionV3(num_classes=0, with_pool=False)
        >>> model(paddle.rand([1, 3, 75, 75])).shape
        paddle.Size([1, 2048, 1, 1])
    """

    def __init__(self, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.inception_stem = InceptionStem()
        blocks = [InceptionA(c, p) for c, p in ((192, 32), (256, 64), (288, 64))]
        blocks.append(InceptionB(288))
        blocks += [InceptionC(768, c7) for c7 in (128, 160, 160, 192)]
        blocks.append(InceptionD(768))
        blocks += [InceptionE(c) for c in (1280, 2048)]
        self.inception_block_list = nn.LayerList(blocks)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048 * 1.0)
            self.fc = nn.Linear(2048, num_classes,
                                weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(reshape(x, [-1, 2048])))
        return x


def inception_v3(pretrained: bool = False, **kwargs) -> InceptionV3:
    """InceptionV3; ``pretrained=True`` loads ``inception_v3.pdparams`` from the cache."""
    model = InceptionV3(**kwargs)
    return load_pretrained(model, "inception_v3") if pretrained else model

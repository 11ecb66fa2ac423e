"""ResNet, ResNeXt and Wide ResNet (paddle.vision.models.ResNet and its function forms)."""
from __future__ import annotations

from ... import nn
from ._utils import load_pretrained


class BasicBlock(nn.Layer):
    """Two 3x3 conv + BN stages with a residual connection (ResNet-18/34)."""

    expansion = 1

    def __init__(self, inplanes: int, planes: int, stride=1, downsample=None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1,
                 norm_layer=None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride,
                               bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 reduce, 3x3 (grouped) and 1x1 expand convs with a residual (ResNet-50+)."""

    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride=1, downsample=None,
                 groups: int = 1, base_width: int = 64, dilation: int = 1,
                 norm_layer=None) -> None:
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride,
                               groups=groups, dilation=dilation, bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


_DEPTHS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
           152: [3, 8, 36, 3]}


class ResNet(nn.Layer):
    """ResNet ("Deep Residual Learning for Image Recognition").

    Args:
        block (BasicBlock|BottleneckBlock): the residual block class.
        depth (int, optional): 18, 34, 50, 101 or 152. Default 50.
        width (int, optional): base width of each bottleneck group. Default 64.
        num_classes (int, optional): output classes; <= 0 drops the fc layer. Default 1000.
        with_pool (bool, optional): apply the final adaptive average pool. Default True.
        groups (int, optional): groups of the 3x3 convs (ResNeXt). Default 1.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import ResNet
        >>> from sampan.vision.models.resnet import BasicBlock
        >>> model = ResNet(BasicBlock, 18, num_classes=10)
        >>> model(paddle.rand([1, 3, 32, 32])).shape
        paddle.Size([1, 10])
    """

    def __init__(self, block, depth: int = 50, width: int = 64, num_classes: int = 1000,
                 with_pool: bool = True, groups: int = 1) -> None:
        super().__init__()
        if depth not in _DEPTHS:
            raise ValueError(f"ResNet: depth must be one of {sorted(_DEPTHS)}, got {depth}")
        layers = _DEPTHS[depth]
        self.groups = groups
        self.base_width = width
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1
        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3,
                               bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes: int, blocks: int, stride: int = 1,
                    dilate: bool = False) -> nn.Sequential:
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride,
                          bias_attr=False),
                norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups,
                        self.base_width, previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups,
                                base_width=self.base_width, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(x.flatten(1))
        return x


def _resnet(arch: str, block, depth: int, pretrained: bool, **kwargs) -> ResNet:
    model = ResNet(block, depth, **kwargs)
    return load_pretrained(model, arch) if pretrained else model


def resnet18(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-18 (BasicBlock, [2, 2, 2, 2]).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import resnet18
        >>> model = resnet18(num_classes=10)
        >>> model(paddle.rand([1, 3, 32, 32])).shape
        paddle.Size([1, 10])
    """
    return _resnet('resnet18', BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-34 (BasicBlock, [3, 4, 6, 3])."""
    return _resnet('resnet34', BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-50 (BottleneckBlock, [3, 4, 6, 3])."""
    return _resnet('resnet50', BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-101 (BottleneckBlock, [3, 4, 23, 3])."""
    return _resnet('resnet101', BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNet-152 (BottleneckBlock, [3, 8, 36, 3])."""
    return _resnet('resnet152', BottleneckBlock, 152, pretrained, **kwargs)


def _resnext(arch: str, depth: int, groups: int, pretrained: bool, kwargs: dict) -> ResNet:
    kwargs['groups'] = groups
    kwargs['width'] = 4
    return _resnet(arch, BottleneckBlock, depth, pretrained, **kwargs)


def resnext50_32x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-50 with 32 groups of width 4."""
    return _resnext('resnext50_32x4d', 50, 32, pretrained, kwargs)


def resnext50_64x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-50 with 64 groups of width 4."""
    return _resnext('resnext50_64x4d', 50, 64, pretrained, kwargs)


def resnext101_32x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-101 with 32 groups of width 4."""
    return _resnext('resnext101_32x4d', 101, 32, pretrained, kwargs)


def resnext101_64x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-101 with 64 groups of width 4."""
    return _resnext('resnext101_64x4d', 101, 64, pretrained, kwargs)


def resnext152_32x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-152 with 32 groups of width 4."""
    return _resnext('resnext152_32x4d', 152, 32, pretrained, kwargs)


def resnext152_64x4d(pretrained: bool = False, **kwargs) -> ResNet:
    """ResNeXt-152 with 64 groups of width 4."""
    return _resnext('resnext152_64x4d', 152, 64, pretrained, kwargs)


def wide_resnet50_2(pretrained: bool = False, **kwargs) -> ResNet:
    """Wide ResNet-50-2: bottlenecks twice as wide."""
    kwargs['width'] = 64 * 2
    return _resnet('wide_resnet50_2', BottleneckBlock, 50, pretrained, **kwargs)


def wide_resnet101_2(pretrained: bool = False, **kwargs) -> ResNet:
    """Wide ResNet-101-2: bottlenecks twice as wide."""
    kwargs['width'] = 64 * 2
    return _resnet('wide_resnet101_2', BottleneckBlock, 101, pretrained, **kwargs)

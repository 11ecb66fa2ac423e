"""VGG 11/13/16/19 with optional batch norm (paddle.vision.models.VGG / vgg11 ... vgg19)."""
from __future__ import annotations

from ... import nn
from ._utils import load_pretrained

_CFGS = {
    'A': [64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M'],
    'B': [64, 64, 'M', 128, 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M'],
    'D': [64, 64, 'M', 128, 128, 'M', 256, 256, 256, 'M', 512, 512, 512, 'M',
          512, 512, 512, 'M'],
    'E': [64, 64, 'M', 128, 128, 'M', 256, 256, 256, 256, 'M', 512, 512, 512, 512, 'M',
          512, 512, 512, 512, 'M'],
}


class VGG(nn.Layer):
    """VGG classifier over a given feature extractor.

    Args:
        features (Layer): the convolutional trunk (see :func:`make_layers`).
        num_classes (int, optional): output classes; <= 0 drops the classifier. Default 1000.
        with_pool (bool, optional): apply the 7x7 adaptive average pool. Default True.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models import VGG
        >>> from sampan.vision.models.vgg import make_layers
        >>> model = VGG(make_layers([8, 'M']), num_classes=0)
        >>> model(paddle.rand([1, 3, 16, 16])).shape
        paddle.Size([1, 8, 7, 7])
    """

    def __init__(self, features: nn.Layer, num_classes: int = 1000,
                 with_pool: bool = True) -> None:
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(x.flatten(1))
        return x


def make_layers(cfg: list, batch_norm: bool = False) -> nn.Sequential:
    """The VGG trunk: 3x3 convs (+BatchNorm2D) + ReLU, ``'M'`` for a 2x2 max pool."""
    layers = []
    in_channels = 3
    for v in cfg:
        if v == 'M':
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


def _vgg(arch: str, cfg: str, batch_norm: bool, pretrained: bool, **kwargs) -> VGG:
    model = VGG(make_layers(_CFGS[cfg], batch_norm=batch_norm), **kwargs)
    return load_pretrained(model, arch) if pretrained else model


def vgg11(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-11 (config A); ``batch_norm=True`` adds BatchNorm2D after each conv."""
    return _vgg('vgg11' + ('_bn' if batch_norm else ''), 'A', batch_norm, pretrained, **kwargs)


def vgg13(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-13 (config B); ``batch_norm=True`` adds BatchNorm2D after each conv."""
    return _vgg('vgg13' + ('_bn' if batch_norm else ''), 'B', batch_norm, pretrained, **kwargs)


def vgg16(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-16 (config D); ``batch_norm=True`` adds BatchNorm2D after each conv.

    Examples:
        >>> from sampan.vision.models import vgg16
        >>> model = vgg16(num_classes=0, with_pool=False)
        >>> len(model.state_dict())
        26
    """
    return _vgg('vgg16' + ('_bn' if batch_norm else ''), 'D', batch_norm, pretrained, **kwargs)


def vgg19(pretrained: bool = False, batch_norm: bool = False, **kwargs) -> VGG:
    """VGG-19 (config E); ``batch_norm=True`` adds BatchNorm2D after each conv."""
    return _vgg('vgg19' + ('_bn' if batch_norm else ''), 'E', batch_norm, pretrained, **kwargs)

"""Shared pieces of the model zoo: channel rounding, Paddle's pretrained weight URLs and the
offline loader that reads them from the local cache. Imports nn and framework only."""
from __future__ import annotations

import os
from collections import OrderedDict

from ... import nn
from ...framework.io import load

_IMAGENET = 'https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/'
_HAPI = 'https://paddle-hapi.bj.bcebos.com/models/'

# arch -> URL as published by Paddle; offline, the file name is looked up in weights_dir()
MODEL_URLS = {
    'alexnet': _IMAGENET + 'AlexNet_pretrained.pdparams',
    'densenet121': _IMAGENET + 'DenseNet121_pretrained.pdparams',
    'densenet161': _IMAGENET + 'DenseNet161_pretrained.pdparams',
    'densenet169': _IMAGENET + 'DenseNet169_pretrained.pdparams',
    'densenet201': _IMAGENET + 'DenseNet201_pretrained.pdparams',
    'densenet264': _IMAGENET + 'DenseNet264_pretrained.pdparams',
    'googlenet': _IMAGENET + 'GoogLeNet_pretrained.pdparams',
    'inception_v3': _HAPI + 'inception_v3.pdparams',
    'mobilenetv1_1.0': _HAPI + 'mobilenetv1_1.0.pdparams',
    'mobilenetv2_1.0': _HAPI + 'mobilenet_v2_x1.0.pdparams',
    'mobilenet_v3_small_x1.0': _HAPI + 'mobilenet_v3_small_x1.0.pdparams',
    'mobilenet_v3_large_x1.0': _HAPI + 'mobilenet_v3_large_x1.0.pdparams',
    'squeezenet1_0': _IMAGENET + 'SqueezeNet1_0_pretrained.pdparams',
    'squeezenet1_1': _IMAGENET + 'SqueezeNet1_1_pretrained.pdparams',
    'vgg16': _HAPI + 'vgg16.pdparams',
    'vgg19': _HAPI + 'vgg19.pdparams',
}
for _arch in ('resnet18', 'resnet34', 'resnet50', 'resnet101', 'resnet152',
              'resnext50_32x4d', 'resnext50_64x4d', 'resnext101_32x4d', 'resnext101_64x4d',
              'resnext152_32x4d', 'resnext152_64x4d', 'wide_resnet50_2', 'wide_resnet101_2',
              'shufflenet_v2_x0_25', 'shufflenet_v2_x0_33', 'shufflenet_v2_x0_5',
              'shufflenet_v2_x1_0', 'shufflenet_v2_x1_5', 'shufflenet_v2_x2_0',
              'shufflenet_v2_swish'):
    MODEL_URLS[_arch] = _HAPI + _arch + '.pdparams'


def weights_dir() -> str:
    """The directory Paddle downloads zoo weights to: ``~/.cache/paddle/hapi/weights``."""
    return os.path.join(os.path.expanduser('~'), '.cache', 'paddle', 'hapi', 'weights')


def load_pretrained(model: nn.Layer, arch: str) -> nn.Layer:
    """Load the published weights of ``arch`` into ``model`` from the local cache.

    There is no network access: the file must already be in :func:`weights_dir`; otherwise a
    FileNotFoundError names the expected path and the URL to fetch it from.
    """
    if arch not in MODEL_URLS:
        raise ValueError(f"{arch} model do not have a pretrained model now, you should set "
                         f"pretrained=False")
    url = MODEL_URLS[arch]
    path = os.path.join(weights_dir(), url.split('/')[-1])
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"pretrained weights of {arch}: expected the file {path}, which is not there "
            f"(no download here); fetch it from {url} and place it at that path")
    model.set_state_dict(load(path))
    return model


def _make_divisible(v: float, divisor: int = 8, min_value: int | None = None) -> int:
    """Round a channel count to a multiple of ``divisor``, never dropping more than 10%."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class IntermediateLayerGetter(nn.LayerDict):
    """Run the direct children of ``model`` in order and return the outputs named in
    ``return_layers`` ({child name: output name}) as an ordered dict.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.models._utils import IntermediateLayerGetter
        >>> getter = IntermediateLayerGetter(paddle.vision.models.LeNet(),
        ...                                  {'features': 'feat', 'fc': 'logits'})
        >>> [(k, v.shape) for k, v in getter(paddle.rand([1, 1, 28, 28])).items()]
        [('feat', paddle.Size([1, 16, 5, 5])), ('logits', paddle.Size([1, 10]))]
    """

    def __init__(self, model: nn.Layer, return_layers: dict) -> None:
        names = [name for name, _ in model.named_children()]
        if not set(return_layers).issubset(names):
            raise ValueError("return_layers are not present in model")
        wanted = {str(k): str(v) for k, v in return_layers.items()}
        layers = OrderedDict()
        for name, child in model.named_children():
            layers[name] = child
            wanted.pop(name, None)
            if not wanted:
                break
        super().__init__(layers)
        self.return_layers = dict(return_layers)

    def forward(self, x):
        out = OrderedDict()
        for name, child in self.items():
            first = child.sublayers()[0] if child.sublayers() else child
            if x.ndim == 4 and isinstance(first, nn.Linear):
                x = x.flatten(1)
            x = child(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out

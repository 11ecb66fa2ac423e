"""Train a small ResNet on CIFAR-10 with paddle.Model, from the dataset file you have locally.

CIFAR-10 is not downloaded here: give the path of `cifar-10-python.tar.gz` (published at
https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz and
https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz), or put it in Paddle's cache,
~/.cache/paddle/dataset/cifar/. The network is a CIFAR-style ResNet (He et al. 2015, section
4.2: a 3x3 stem, three stages of BasicBlocks with 16/32/64 channels, global pooling), depth
6n+2 (default ResNet-8), trained with momentum SGD on a cosine schedule, random crops and
flips. An epoch of the 50,000 images takes about 4 minutes on 2 shared CPU cores (0.6 s per
batch of 128, timed on a synthetic file of the same format); --subset N trains on the first N
images for a quick look.

    python examples/cifar10_resnet.py --data-file PATH [--epochs 2] [--depth 8] [--subset N]
"""
from __future__ import annotations

import argparse

import numpy as np

import sampan as paddle
from sampan import nn
from sampan.vision import transforms as T
from sampan.vision.datasets import Cifar10
from sampan.vision.models.resnet import BasicBlock

MEAN, STD = [125.3, 123.0, 113.9], [63.0, 62.1, 66.7]   # per-channel pixel statistics


class CifarResNet(nn.Layer):
    """ResNet-(6n+2) for 32x32 images: n BasicBlocks in each of three stages."""

    def __init__(self, depth: int = 8, num_classes: int = 10) -> None:
        super().__init__()
        if depth < 8 or (depth - 2) % 6:
            raise ValueError(f"CifarResNet: depth must be 6n+2 with n >= 1 (8, 14, 20, ...), "
                             f"got {depth}")
        blocks, stages, inplanes = (depth - 2) // 6, [], 16
        for planes, stride in ((16, 1), (32, 2), (64, 2)):
            for i in range(blocks):
                down = None
                if i == 0 and (stride != 1 or inplanes != planes):
                    down = nn.Sequential(nn.Conv2D(inplanes, planes, 1, stride=stride,
                                                   bias_attr=False), nn.BatchNorm2D(planes))
                stages.append(BasicBlock(inplanes, planes, stride if i == 0 else 1, down))
                inplanes = planes
        self.stem = nn.Sequential(nn.Conv2D(3, 16, 3, padding=1, bias_attr=False),
                                  nn.BatchNorm2D(16), nn.ReLU())
        self.stages = nn.Sequential(*stages)
        self.pool = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.fc(self.pool(self.stages(self.stem(x))).flatten(1))


def datasets(data_file: str | None) -> tuple:
    """(train, test) Cifar10 datasets with augmentation for training; a clear SystemExit when
    the file is missing."""
    normalize = [T.Normalize(MEAN, STD, data_format="HWC"), T.Transpose()]
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip()] + normalize)
    try:
        train = Cifar10(data_file, mode="train", transform=train_tf, download=False,
                        backend="cv2")
        test = Cifar10(data_file, mode="test", transform=T.Compose(normalize), download=False,
                       backend="cv2")
    except FileNotFoundError as err:
        raise SystemExit(f"examples/cifar10_resnet.py needs CIFAR-10 on this machine.\n{err}\n"
                         f"Then run: python examples/cifar10_resnet.py --data-file "
                         f"PATH/cifar-10-python.tar.gz") from None
    return train, test


def main(data_file: str | None = None, epochs: int = 2, depth: int = 8,
         subset: int | None = None, batch_size: int = 128, verbose: int = 1) -> dict:
    paddle.seed(2024)
    train, test = datasets(data_file)
    if subset:
        train = paddle.io.Subset(train, list(range(min(subset, len(train)))))
    print(f"CIFAR-10: {len(train)} training and {len(test)} test images; ResNet-{depth}")
    model = paddle.Model(CifarResNet(depth))
    steps = epochs * -(-len(train) // batch_size)
    lr = paddle.optimizer.lr.CosineAnnealingDecay(0.1, T_max=max(steps, 1))
    model.prepare(paddle.optimizer.Momentum(lr, momentum=0.9, weight_decay=5e-4,
                                            parameters=model.parameters()),
                  nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    model.fit(train, batch_size=batch_size, epochs=epochs, shuffle=True, verbose=verbose)
    result = model.evaluate(test, batch_size=256, verbose=0)
    print(f"test accuracy {result['acc']:.4f}")
    return {"acc": result["acc"], "loss": float(np.asarray(result["loss"]).ravel()[0])}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-file", default=None,
                    help="cifar-10-python.tar.gz (default: ~/.cache/paddle/dataset/cifar/)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--depth", type=int, default=8, help="6n+2: 8, 14, 20, ...")
    ap.add_argument("--subset", type=int, default=None, help="train on the first N images")
    ap.add_argument("--batch-size", type=int, default=128)
    args = ap.parse_args()
    main(args.data_file, args.epochs, args.depth, args.subset, args.batch_size)

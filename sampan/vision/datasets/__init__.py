"""paddle.vision.datasets: MNIST, FashionMNIST, Cifar10/100, Flowers, VOC2012 read from their
published file formats (local paths or ~/.cache/paddle/dataset), DatasetFolder, ImageFolder."""
from .cifar import Cifar10, Cifar100
from .flowers import Flowers
from .folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .voc2012 import VOC2012

__all__ = ["DatasetFolder", "ImageFolder", "MNIST", "FashionMNIST", "Flowers", "Cifar10",
           "Cifar100", "VOC2012"]

"""paddle.sparse.nn: sparse layers and `functional` (sits above sampan.nn)."""
from . import functional  # noqa: F401
from .layers import (BatchNorm, Conv3D, LeakyReLU, MaxPool3D, ReLU, ReLU6, Softmax,
                     SubmConv3D)

__all__ = ["BatchNorm", "Conv3D", "LeakyReLU", "MaxPool3D", "ReLU", "ReLU6", "Softmax",
           "SubmConv3D"]

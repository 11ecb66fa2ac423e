"""Paddle 3.x's PyTorch-style names in paddle.nn: each is the same object as its Paddle
spelling (`paddle.nn.Conv2d is paddle.nn.Conv2D`, `Module is Layer`, `Parameter` is the
Parameter class), as in Paddle 3.3.1. Imports `framework` and this room's layers.
"""
from __future__ import annotations

from ..framework.tensor import Parameter  # noqa: F401
from .layer.container import LayerDict as ModuleDict, LayerList as ModuleList  # noqa: F401
from .layer.conv import Conv1D as Conv1d, Conv2D as Conv2d, Conv3D as Conv3d  # noqa: F401
from .layer.layers import Layer as Module  # noqa: F401
from .layer.pad3 import (CircularPad1D as CircularPad1d, CircularPad2D as CircularPad2d,  # noqa: F401
                         CircularPad3D as CircularPad3d, ConstantPad1D as ConstantPad1d,
                         ConstantPad2D as ConstantPad2d, ConstantPad3D as ConstantPad3d,
                         ReflectionPad1D as ReflectionPad1d, ReflectionPad2D as ReflectionPad2d,
                         ReflectionPad3D as ReflectionPad3d,
                         ReplicationPad1D as ReplicationPad1d,
                         ReplicationPad2D as ReplicationPad2d,
                         ReplicationPad3D as ReplicationPad3d)
from .layer.pooling import (AdaptiveMaxPool1D as AdaptiveMaxPool1d,  # noqa: F401
                            AdaptiveMaxPool2D as AdaptiveMaxPool2d,
                            AdaptiveMaxPool3D as AdaptiveMaxPool3d, LPPool1D as LPPool1d,
                            LPPool2D as LPPool2d)

__all__ = ["AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "Conv1d", "Conv2d", "Conv3d", "LPPool1d", "LPPool2d", "Module", "ModuleDict",
           "ModuleList", "Parameter", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d"]

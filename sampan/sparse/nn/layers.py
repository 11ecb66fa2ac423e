"""paddle.sparse.nn layers: ReLU/ReLU6/LeakyReLU/Softmax, BatchNorm over the channel values,
Conv3D/SubmConv3D and MaxPool3D over sparse.nn.functional. Sits above `sampan.nn`."""
from __future__ import annotations

from typing import Optional

import numpy as np

from ...nn import functional as _F
from ...nn.initializer import Constant, Normal
from ...nn.layer import Layer
from ..tensor import _Sparse
from . import functional as F

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm", "Conv2D",
           "Conv3D", "SubmConv2D", "SubmConv3D", "MaxPool3D"]


class ReLU(Layer):
    """Sparse ReLU (see sparse.nn.functional.relu).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 2]], [-1.0, 2.0], [3])
        >>> paddle.sparse.nn.ReLU()(x).values().numpy().tolist()
        [0.0, 2.0]
    """

    def forward(self, x: _Sparse) -> _Sparse:
        return F.relu(x)


class ReLU6(Layer):
    """Sparse ReLU6."""

    def forward(self, x: _Sparse) -> _Sparse:
        return F.relu6(x)


class LeakyReLU(Layer):
    """Sparse LeakyReLU with `negative_slope` (default 0.01)."""

    def __init__(self, negative_slope: float = 0.01, name: Optional[str] = None) -> None:
        super().__init__()
        self._slope = negative_slope

    def forward(self, x: _Sparse) -> _Sparse:
        return F.leaky_relu(x, self._slope)


class Softmax(Layer):
    """Sparse softmax over the stored entries of each row (axis=-1)."""

    def __init__(self, axis: int = -1, name: Optional[str] = None) -> None:
        super().__init__()
        self._axis = axis

    def forward(self, x: _Sparse) -> _Sparse:
        return F.softmax(x, self._axis)


class BatchNorm(Layer):
    """Batch normalization of the channel values [nnz, C] of a sparse NDHWC tensor.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 0], [0, 1], [0, 1], [0, 1]],
        ...                                     [[1.0], [3.0]], [1, 2, 2, 2, 1])
        >>> paddle.sparse.nn.BatchNorm(1)(x).values().numpy().round(3).tolist()
        [[-1.0], [1.0]]
    """

    def __init__(self, num_features: int, momentum: float = 0.9, epsilon: float = 1e-05,
                 weight_attr=None, bias_attr=None, data_format: str = "NDHWC",
                 use_global_stats: Optional[bool] = None, name: Optional[str] = None) -> None:
        super().__init__()
        if data_format != "NDHWC":
            raise ValueError(f"sparse.nn.BatchNorm: data_format must be 'NDHWC', got "
                             f"{data_format!r}")
        self._momentum, self._epsilon = momentum, epsilon
        self._use_global_stats = use_global_stats
        self.weight = self.create_parameter([num_features], attr=weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_features], attr=bias_attr, is_bias=True)
        self._mean = self.create_parameter([num_features], default_initializer=Constant(0.0))
        self._variance = self.create_parameter([num_features],
                                               default_initializer=Constant(1.0))
        for stat in (self._mean, self._variance):
            stat.stop_gradient = True
            stat.trainable = False

    def forward(self, x: _Sparse) -> _Sparse:
        out = _F.batch_norm(x.values(), self._mean, self._variance, self.weight, self.bias,
                            training=self.training, momentum=self._momentum,
                            epsilon=self._epsilon, data_format="NC",
                            use_global_stats=self._use_global_stats)
        return x._with_values(out)


class _ConvNd(Layer):
    _subm = False
    _nd = 3

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 dilation=1, groups: int = 1, padding_mode: str = "zeros", key=None,
                 weight_attr=None, bias_attr=None, data_format: Optional[str] = None) -> None:
        super().__init__()
        data_format = data_format or ("NDHWC" if self._nd == 3 else "NHWC")
        if padding_mode != "zeros":
            raise ValueError(f"sparse.nn.{type(self).__name__}: padding_mode must be 'zeros', "
                             f"got {padding_mode!r}")
        kernel = F._ntuple(type(self).__name__, "kernel_size", kernel_size, self._nd)
        self._args = dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
                          data_format=data_format)
        fan_in = in_channels * int(np.prod(kernel))
        self.weight = self.create_parameter(
            list(kernel) + [in_channels, out_channels], attr=weight_attr,
            default_initializer=Normal(0.0, (2.0 / fan_in) ** 0.5))
        self.bias = None if bias_attr is False else self.create_parameter(
            [out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x):
        fn = {(3, False): F.conv3d, (3, True): F.subm_conv3d, (2, False): F.conv2d,
              (2, True): F.subm_conv2d}[self._nd, self._subm]
        return fn(x, self.weight, self.bias, **self._args)


class Conv3D(_ConvNd):
    """Sparse 3-D convolution layer over NDHWC COO tensors (see functional.conv3d).

    Examples:
        >>> import sampan as paddle
        >>> conv = paddle.sparse.nn.Conv3D(1, 2, 3)
        >>> conv.weight.shape
        paddle.Size([3, 3, 3, 1, 2])
    """


class SubmConv3D(_ConvNd):
    """Submanifold sparse 3-D convolution layer (outputs at the input sites)."""
    _subm = True


class Conv2D(_ConvNd):
    """Sparse 2-D convolution layer over NHWC COO tensors (see functional.conv2d).

    Examples:
        >>> import sampan as paddle
        >>> paddle.sparse.nn.Conv2D(1, 2, 3).weight.shape
        paddle.Size([3, 3, 1, 2])
    """
    _nd = 2


class SubmConv2D(_ConvNd):
    """Submanifold sparse 2-D convolution layer."""
    _nd = 2
    _subm = True


class SyncBatchNorm(BatchNorm):
    """BatchNorm whose statistics would be synchronized across ranks; with one process (the
    only mode sampan runs sparse layers in) it equals BatchNorm."""

    @classmethod
    def convert_sync_batchnorm(cls, layer: Layer) -> Layer:
        """Return `layer` with every sparse BatchNorm replaced by a SyncBatchNorm sharing
        its parameters."""
        if isinstance(layer, BatchNorm) and not isinstance(layer, SyncBatchNorm):
            layer.__class__ = SyncBatchNorm
        for _, sub in layer.named_children():
            cls.convert_sync_batchnorm(sub)
        return layer


class MaxPool3D(Layer):
    """Sparse 3-D max pooling layer (see functional.max_pool3d)."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask: bool = False,
                 ceil_mode: bool = False, data_format: str = "NDHWC",
                 name: Optional[str] = None) -> None:
        super().__init__()
        if return_mask:
            raise ValueError("sparse.nn.MaxPool3D: return_mask=True is not supported")
        self._args = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                          ceil_mode=ceil_mode, data_format=data_format)

    def forward(self, x):
        return F.max_pool3d(x, **self._args)

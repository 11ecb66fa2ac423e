"""Normalization layers: BatchNorm (fluid style), BatchNorm1D/2D/3D, SyncBatchNorm,
LayerNorm, GroupNorm, InstanceNorm1D/2D/3D, LocalResponseNorm, SpectralNorm.

Parameter names and shapes follow Paddle's state_dict (BatchNorm*: weight, bias, _mean,
_variance; InstanceNorm*: scale, bias; SpectralNorm: weight_u, weight_v). The running
statistics are non-trainable Parameters (stop_gradient=True), as in Paddle.
Imports `nn.functional`, `nn.initializer`, `nn.layer.layers` and public tensor functions.
"""
from __future__ import annotations

import math

from ...autograd import no_grad
from ...framework.param_attr import ParamAttr
from ...framework.tensor import Tensor, is_variable
from ...ops.dispatch import call
from .. import functional as F
from ..functional.norm import batch_norm_attrs, run_batch_norm
from ..initializer import Constant, Normal
from .layers import Layer

__all__ = ["BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "SyncBatchNorm",
           "LayerNorm", "GroupNorm", "InstanceNorm1D", "InstanceNorm2D", "InstanceNorm3D",
           "LocalResponseNorm", "SpectralNorm"]


def _positive_int(layer: str, arg: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{layer}: {arg} must be a positive int, got {value!r}")
    return value


def _affine_params(layer: Layer, shape, weight_attr, bias_attr):
    """weight (ones) and bias (zeros) of `shape`, or None where the attr is False."""
    weight = None if weight_attr is False else layer.create_parameter(
        shape, attr=weight_attr, default_initializer=Constant(1.0))
    bias = None if bias_attr is False else layer.create_parameter(
        shape, attr=bias_attr, is_bias=True)
    return weight, bias


def _running_stats(layer: Layer, c: int, mean_name=None, var_name=None,
                   do_model_average=True) -> None:
    """The running mean (zeros) and variance (ones): non-trainable Parameters."""
    for attr_name, name, value in (("_mean", mean_name, 0.0), ("_variance", var_name, 1.0)):
        attr = ParamAttr(name=name, initializer=Constant(value), trainable=False,
                         do_model_average=do_model_average)
        param = layer.create_parameter([c], attr=attr)
        param.stop_gradient = True
        setattr(layer, attr_name, param)


_BN_SLOTS = ("_mean", "_variance", "weight", "bias")


class _BatchNormBase(Layer):
    """Shared body of BatchNorm1D/2D/3D and SyncBatchNorm."""

    _ndims: tuple = ()
    _formats: tuple = ()

    def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None,
                 name=None) -> None:
        super().__init__()
        layer = type(self).__name__
        self._num_features = _positive_int(layer, "num_features", num_features)
        if self._formats and data_format not in self._formats:
            raise ValueError(f"{layer}: data_format must be one of {list(self._formats)}, "
                             f"got {data_format!r}")
        self._momentum = momentum
        self._epsilon = epsilon
        self._data_format = data_format
        self._use_global_stats = use_global_stats
        self._name = name
        self.weight, self.bias = _affine_params(self, [num_features], weight_attr, bias_attr)
        _running_stats(self, num_features, name and name + "_mean",
                       name and name + "_variance")

    def _check_input_dim(self, input) -> None:
        if self._ndims and len(input.shape) not in self._ndims:
            want = " or ".join(f"{d}D" for d in self._ndims)
            raise ValueError(f"{type(self).__name__}: expected {want} input (got "
                             f"{len(input.shape)}D input)")

    def forward(self, input):
        if self._ndims and len(input.shape) not in self._ndims:
            self._check_input_dim(input)
        if not isinstance(input, Tensor) and not is_variable(input):
            raise TypeError(f"batch_norm: x must be a Tensor, got {type(input).__name__}")
        d = self.__dict__
        args = (d["training"], self._momentum, self._epsilon, self._data_format,
                self._use_global_stats)
        cached = d.get("_bn_attrs_cache")
        if cached is None or cached[0] != args:  # checked once per change of the arguments
            cached = d["_bn_attrs_cache"] = (args, batch_norm_attrs(*args))
        params = d["_parameters"]
        return run_batch_norm(input, *[params[k] if k in params else getattr(self, k)
                                         for k in _BN_SLOTS], cached[1])

    def extra_repr(self) -> str:
        text = (f"num_features={self._num_features}, momentum={self._momentum}, "
                f"epsilon={self._epsilon}")
        if self._data_format != "NCHW":
            text += f", data_format={self._data_format}"
        if self._name is not None:
            text += f", name={self._name}"
        return text


class BatchNorm1D(_BatchNormBase):
    """Batch normalization of [N, C] or [N, C, L] inputs (data_format 'NC'/'NCL'/'NLC').

    Args:
        num_features (int): C.
        momentum (float): running = momentum * running + (1 - momentum) * batch; 0.9.
        epsilon (float): default 1e-5.
        weight_attr, bias_attr (ParamAttr|bool, optional): False drops the parameter.
        data_format (str): default 'NCL'.
        use_global_stats (bool, optional): None: batch statistics in training, running
            ones in eval; True/False force one.
        name (str, optional): prefix of the running statistics' names.
    """

    _ndims = (2, 3)
    _formats = ("NC", "NCL", "NLC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr,
                         data_format, use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    """Batch normalization of [N, C, H, W] inputs (or 'NHWC'); arguments as BatchNorm1D,
    data_format default 'NCHW'.

    Examples:
        >>> import sampan as paddle
        >>> bn = paddle.nn.BatchNorm2D(3)
        >>> list(bn.state_dict())
        ['weight', 'bias', '_mean', '_variance']
    """

    _ndims = (4,)
    _formats = ("NCHW", "NHWC")


class BatchNorm3D(_BatchNormBase):
    """Batch normalization of [N, C, D, H, W] inputs (or 'NDHWC'); arguments as
    BatchNorm1D, data_format default 'NCDHW'."""

    _ndims = (5,)
    _formats = ("NCDHW", "NDHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None,
                 name=None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr,
                         data_format, use_global_stats, name)


class SyncBatchNorm(_BatchNormBase):
    """Batch normalization synchronised across processes; on one process (the only case
    here) it equals BatchNorm over any rank >= 2 input.

    Args:
        num_features (int): C.
        momentum, epsilon, weight_attr, bias_attr, data_format, name: as BatchNorm2D.
    """

    _formats = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")

    def __init__(self, num_features, momentum=0.9, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr,
                         data_format, None, name)

    @classmethod
    def convert_sync_batchnorm(cls, layer: Layer) -> Layer:
        """Replace every BatchNorm1D/2D/3D in `layer` (or `layer` itself) by a SyncBatchNorm
        that shares its parameters and running statistics."""
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm):
            sync = cls(layer._num_features, layer._momentum, layer._epsilon,
                       False if layer.weight is None else None,
                       False if layer.bias is None else None, layer._data_format,
                       layer._name)
            for key in ("weight", "bias", "_mean", "_variance"):
                value = getattr(layer, key)
                if value is not None:
                    setattr(sync, key, value)
            sync.training = layer.training
            return sync
        for key, sub in list(layer._sub_layers.items()):
            if sub is not None:
                layer._sub_layers[key] = cls.convert_sync_batchnorm(sub)
        return layer


class BatchNorm(Layer):
    """The fluid-style batch normalization layer (channels at dim 1 unless data_layout is
    'NHWC'), with an optional activation applied after it.

    Args:
        num_channels (int): C.
        act (str, optional): activation name (e.g. 'relu') applied to the output.
        is_test (bool): start in eval mode; default False.
        momentum (float): default 0.9.
        epsilon (float): default 1e-5.
        param_attr, bias_attr (ParamAttr|bool, optional): False drops the parameter.
        dtype (str): parameter dtype; default 'float32'.
        data_layout (str): 'NCHW' (default) or 'NHWC'.
        in_place (bool): accepted, ignored.
        moving_mean_name, moving_variance_name (str, optional): names of the statistics.
        do_model_average_for_mean_and_var (bool): kept on the statistics.
        use_global_stats (bool): always normalize with the running statistics.
        trainable_statistics (bool): use batch statistics even in eval mode.
    """

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-5,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False) -> None:
        super().__init__(dtype="float32" if dtype == "float16" else dtype)
        _positive_int("BatchNorm", "num_channels", num_channels)
        if data_layout not in ("NCHW", "NHWC", "NC", "NCL", "NCDHW", "NLC", "NDHWC"):
            raise ValueError(f"BatchNorm: data_layout must be 'NCHW' or 'NHWC', got "
                             f"{data_layout!r}")
        if act is not None and not hasattr(F, act):
            raise ValueError(f"BatchNorm: unknown activation act={act!r}")
        self._act = act
        self._momentum = momentum
        self._epsilon = epsilon
        self._data_layout = data_layout
        self._use_global_stats = use_global_stats
        self._trainable_statistics = trainable_statistics
        self.weight, self.bias = _affine_params(self, [num_channels], param_attr, bias_attr)
        _running_stats(self, num_channels, moving_mean_name, moving_variance_name,
                       do_model_average_for_mean_and_var)
        self.training = not is_test

    def forward(self, input):
        use_global = self._use_global_stats or (not self.training
                                                and not self._trainable_statistics)
        out = F.batch_norm(input, self._mean, self._variance, weight=self.weight,
                           bias=self.bias, momentum=self._momentum, epsilon=self._epsilon,
                           data_format=self._data_layout, use_global_stats=use_global)
        return out if self._act is None else getattr(F, self._act)(out)


class LayerNorm(Layer):
    """Layer normalization over the trailing `normalized_shape` dims; weight (ones) and
    bias (zeros) are flat with prod(normalized_shape) elements.

    Args:
        normalized_shape (int|list|tuple): the normalized trailing dims.
        epsilon (float): default 1e-5.
        weight_attr, bias_attr (ParamAttr|bool, optional): False drops the parameter.
        name (str, optional): unused.
        elementwise_affine (bool, keyword): False drops both parameters.
        bias (bool, keyword): False drops the bias.

    Examples:
        >>> import sampan as paddle
        >>> ln = paddle.nn.LayerNorm([3, 4])
        >>> ln, ln.weight.shape
        (LayerNorm(normalized_shape=[3, 4], epsilon=1e-05), paddle.Size([12]))
    """

    def __init__(self, normalized_shape, epsilon=1e-5, weight_attr=None, bias_attr=None,
                 name=None, *, elementwise_affine=True, bias=True, device=None,
                 dtype=None) -> None:
        super().__init__(dtype=dtype)
        if isinstance(normalized_shape, int):
            normalized_shape = [normalized_shape]
        self._normalized_shape = [_positive_int("LayerNorm", "normalized_shape", int(d))
                                  for d in normalized_shape]
        self._epsilon = epsilon
        if not elementwise_affine:
            weight_attr = bias_attr = False
        elif not bias:
            bias_attr = False
        size = [math.prod(self._normalized_shape)]
        self.weight, self.bias = _affine_params(self, size, weight_attr, bias_attr)

    def forward(self, input):
        return F.layer_norm(input, self._normalized_shape, weight=self.weight,
                            bias=self.bias, epsilon=self._epsilon)

    def extra_repr(self) -> str:
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    """Group normalization: num_groups groups of channels; weight (ones), bias (zeros)
    of [num_channels].

    Args:
        num_groups (int): must divide num_channels.
        num_channels (int): C.
        epsilon (float): default 1e-5.
        weight_attr, bias_attr (ParamAttr|bool, optional): False drops the parameter.
        data_format (str): 'NCHW' (default; any channels-first layout) or channels last.
        name (str, optional): unused.
    """

    def __init__(self, num_groups, num_channels, epsilon=1e-5, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None, *, affine=True,
                 device=None, dtype=None) -> None:
        super().__init__(dtype=dtype)
        self._num_groups = _positive_int("GroupNorm", "num_groups", num_groups)
        self._num_channels = _positive_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels ({num_channels}) must be divisible "
                             f"by num_groups ({num_groups})")
        self._epsilon = epsilon
        self._data_format = data_format
        if not affine:
            weight_attr = bias_attr = False
        self.weight, self.bias = _affine_params(self, [num_channels], weight_attr, bias_attr)

    def forward(self, input):
        return F.group_norm(input, self._num_groups, self._epsilon, self.weight, self.bias,
                            self._data_format)

    def extra_repr(self) -> str:
        return (f"num_groups={self._num_groups}, num_channels={self._num_channels}, "
                f"epsilon={self._epsilon}")


class _InstanceNormBase(Layer):
    _ndims: tuple = ()

    def __init__(self, num_features, epsilon=1e-5, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None) -> None:
        super().__init__()
        self._num_features = _positive_int(type(self).__name__, "num_features",
                                           num_features)
        self._epsilon = epsilon
        self._momentum = momentum
        self._data_format = data_format
        if (weight_attr is False) != (bias_attr is False):
            raise ValueError(f"{type(self).__name__}: weight_attr and bias_attr must be False "
                             f"together (got {weight_attr!r} and {bias_attr!r})")
        if weight_attr is False:
            self.scale = self.bias = None
        else:
            self.scale, self.bias = _affine_params(self, [num_features], weight_attr,
                                                   bias_attr)

    def forward(self, input):
        if len(input.shape) not in self._ndims:
            want = " or ".join(f"{d}D" for d in self._ndims)
            raise ValueError(f"{type(self).__name__}: expected {want} input (got "
                             f"{len(input.shape)}D input)")
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon)

    def extra_repr(self) -> str:
        return f"num_features={self._num_features}, epsilon={self._epsilon}"


class InstanceNorm1D(_InstanceNormBase):
    """Instance normalization of [N, C, L] inputs: scale (ones) and bias (zeros) of [C].

    Args:
        num_features (int): C.
        epsilon (float): default 1e-5.
        momentum (float): unused (kept for Paddle compatibility).
        weight_attr, bias_attr (ParamAttr|bool, optional): False drops both.
        data_format (str): 'NCL'.
        name (str, optional): unused.
    """

    _ndims = (3,)

    def __init__(self, num_features, epsilon=1e-5, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCL", name=None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr,
                         data_format, name)


class InstanceNorm2D(_InstanceNormBase):
    """Instance normalization of [N, C, H, W] inputs; arguments as InstanceNorm1D."""

    _ndims = (4,)


class InstanceNorm3D(_InstanceNormBase):
    """Instance normalization of [N, C, D, H, W] inputs; arguments as InstanceNorm1D."""

    _ndims = (5,)

    def __init__(self, num_features, epsilon=1e-5, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", name=None) -> None:
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr,
                         data_format, name)


class LocalResponseNorm(Layer):
    """F.local_response_norm across channels.

    Args:
        size (int): channels in the window.
        alpha (float): default 1e-4.
        beta (float): default 0.75.
        k (float): default 1.0.
        data_format (str): default 'NCHW'.
        name (str, optional): shown by repr.
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0, data_format="NCHW",
                 name=None) -> None:
        super().__init__()
        self.size = _positive_int("LocalResponseNorm", "size", size)
        self.alpha = alpha
        self.beta = beta
        self.k = k
        self.data_format = data_format
        self.name = name

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k,
                                     self.data_format)

    def extra_repr(self) -> str:
        text = f"size={self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
        if self.data_format != "NCHW":
            text += f", data_format={self.data_format}"
        if self.name is not None:
            text += f", name={self.name}"
        return text


class SpectralNorm(Layer):
    """forward(weight) = weight / sigma, sigma the largest singular value of weight viewed
    as a [weight_shape[dim], -1] matrix, estimated by `power_iters` power iterations from
    the vectors weight_u [h] and weight_v [w] (Normal(0, 1), not trained, not updated).
    The iteration is not differentiated (u, v are constants for the gradient).

    Args:
        weight_shape (list|tuple): shape of the weights to normalize.
        dim (int): the dim taken as the matrix rows; default 0.
        power_iters (int): default 1.
        eps (float): added to norms in the iteration; default 1e-12.
        dtype (str): default 'float32'.
    """

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12,
                 dtype="float32") -> None:
        super().__init__(dtype=dtype)
        self._weight_shape = [int(d) for d in weight_shape]
        if math.prod(self._weight_shape) <= 0:
            raise ValueError(f"SpectralNorm: weight_shape must have no zero dims, got "
                             f"{self._weight_shape}")
        if not -len(self._weight_shape) <= dim < len(self._weight_shape):
            raise ValueError(f"SpectralNorm: dim must be < len(weight_shape) = "
                             f"{len(self._weight_shape)}, got {dim}")
        self._dim = dim % len(self._weight_shape)
        self._power_iters = power_iters
        self._eps = eps
        h = self._weight_shape[self._dim]
        w = math.prod(self._weight_shape) // h
        for attr_name, n in (("weight_u", h), ("weight_v", w)):
            param = self.create_parameter([n], attr=ParamAttr(),
                                          default_initializer=Normal(0.0, 1.0))
            param.stop_gradient = True
            setattr(self, attr_name, param)

    def forward(self, x):
        if list(x.shape) != self._weight_shape:
            raise ValueError(f"SpectralNorm: input shape {list(x.shape)} differs from weight_shape "
                             f"{self._weight_shape}")
        nd = len(self._weight_shape)
        perm = [self._dim] + [i for i in range(nd) if i != self._dim]
        mat = call("transpose", x, perm=perm) if self._dim else x
        mat = call("reshape", mat, shape=[self._weight_shape[self._dim], -1])
        u, v = self.weight_u, self.weight_v
        with no_grad():
            for _ in range(self._power_iters):
                v = call("matmul", mat, u, transpose_x=True, transpose_y=False)
                v = v / (call("norm", v, p=2.0, axis=None, keepdim=False) + self._eps)
                u = call("matmul", mat, v, transpose_x=False, transpose_y=False)
                u = u / (call("norm", u, p=2.0, axis=None, keepdim=False) + self._eps)
        sigma = call("sum", u * call("matmul", mat, v, transpose_x=False,
                                     transpose_y=False), axis=None, keepdim=False, dtype=None)
        return x / sigma

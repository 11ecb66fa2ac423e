"""Common layers: Linear, Bilinear, Embedding, Identity, Flatten, Unflatten, the Dropout
family and CosineSimilarity. Thin wrappers over nn.functional with Paddle's parameter
shapes, default initializers and extra_repr.

Imports `nn.functional`, `nn.layer.layers` and public tensor functions.
"""
from __future__ import annotations

import numbers

from ...autograd import no_grad
from ...tensor.manipulation import flatten, unflatten
from .. import functional as F
from .layers import Layer

__all__ = ["Linear", "Bilinear", "Embedding", "Identity", "Flatten", "Unflatten", "Dropout",
           "Dropout2D", "Dropout3D", "AlphaDropout", "FeatureAlphaDropout",
           "CosineSimilarity"]


def _positive_int(layer: str, arg: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        what = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise ValueError(f"{layer}: {arg} must be {what}, got {value!r}")
    return int(value)  # NumPy ints too (np.prod(shape), as Paddle takes them)


def _probability(layer: str, p) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise TypeError(f"{layer}: p must be a float in [0, 1], got {type(p).__name__}")
    if not 0 <= p <= 1:
        raise ValueError(f"{layer}: p must be in [0, 1], got {p}")
    return p


def _name_suffix(name) -> str:
    return f", name={name}" if name else ""


class Linear(Layer):
    """y = x @ weight + bias with weight [in_features, out_features] (XavierUniform by
    default) and bias [out_features] (zeros by default; bias_attr=False: no bias).

    Args:
        in_features (int): size of the last dim of the input.
        out_features (int): size of the last dim of the output.
        weight_attr (ParamAttr, optional): attributes of the weight.
        bias_attr (ParamAttr|bool, optional): attributes of the bias; False for none.
        name (str, optional): shown by repr.

    Examples:
        >>> import sampan as paddle
        >>> fc = paddle.nn.Linear(4, 3)
        >>> fc
        Linear(in_features=4, out_features=3, dtype=float32)
        >>> fc(paddle.ones([2, 4])).shape
        paddle.Size([2, 3])
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None,
                 name=None) -> None:
        super().__init__()
        # NOTE: 0 features are allowed as in Paddle (zero-size weight)
        self._in_features = _positive_int("Linear", "in_features", in_features, minimum=0)
        self._out_features = _positive_int("Linear", "out_features", out_features, minimum=0)
        self._name = name
        self.weight = self.create_parameter([in_features, out_features], attr=weight_attr)
        self.bias = self.create_parameter([out_features], attr=bias_attr, is_bias=True)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self._in_features}, out_features={self._out_features}, "
                f"dtype={self._dtype}{_name_suffix(self._name)}")


class Bilinear(Layer):
    """out[n, o] = x1[n] @ weight[o] @ x2[n] + bias[o]; weight [out, in1, in2]
    (XavierUniform), bias [1, out] (zeros).

    Args:
        in1_features (int): features of x1.
        in2_features (int): features of x2.
        out_features (int): output features.
        weight_attr (ParamAttr, optional): attributes of the weight.
        bias_attr (ParamAttr|bool, optional): attributes of the bias; False for none.
        name (str, optional): shown by repr.
    """

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None) -> None:
        super().__init__()
        self._in1_features = _positive_int("Bilinear", "in1_features", in1_features)
        self._in2_features = _positive_int("Bilinear", "in2_features", in2_features)
        self._out_features = _positive_int("Bilinear", "out_features", out_features)
        self._name = name
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            attr=weight_attr)
        self.bias = self.create_parameter([1, out_features], attr=bias_attr, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self._in1_features}, in2_features={self._in2_features}, "
                f"out_features={self._out_features}, dtype={self._dtype}"
                f"{_name_suffix(self._name)}")


class Embedding(Layer):
    """A lookup table: weight [num_embeddings, embedding_dim] (XavierUniform; the
    padding_idx row is zeroed), forward(x) = weight[x].

    Args:
        num_embeddings (int): size of the table.
        embedding_dim (int): size of each vector.
        padding_idx (int, optional): this id (negative counts from the end) gives zeros
            and no gradient.
        max_norm (float, optional): renormalize looked-up rows to at most this norm.
        norm_type (float): the norm of max_norm; default 2.0.
        sparse (bool): accepted; gradients are dense.
        scale_grad_by_freq (bool): not supported (False).
        weight_attr (ParamAttr, optional): attributes of the weight.
        name (str, optional): shown by repr.
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, sparse=False, weight_attr=None, name=None, *,
                 scale_grad_by_freq=False, _weight=None, _freeze=False, device=None,
                 dtype=None) -> None:
        super().__init__(dtype=dtype)
        self._num_embeddings = _positive_int("Embedding", "num_embeddings", num_embeddings)
        self._embedding_dim = _positive_int("Embedding", "embedding_dim", embedding_dim)
        if padding_idx is not None and not -num_embeddings <= padding_idx < num_embeddings:
            raise ValueError(f"Embedding: padding_idx must be in [{-num_embeddings}, "
                             f"{num_embeddings}), got {padding_idx}")
        self._padding_idx = padding_idx
        self._max_norm = max_norm
        self._norm_type = norm_type
        self._sparse = sparse
        self._scale_grad_by_freq = scale_grad_by_freq
        self._name = name
        if _weight is not None:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ValueError(f"Embedding: _weight must have shape [{num_embeddings}, "
                                 f"{embedding_dim}], got {list(_weight.shape)}")
            self.weight = _weight
        else:
            self.weight = self.create_parameter([num_embeddings, embedding_dim],
                                                attr=weight_attr)
        if _freeze:
            self.weight.stop_gradient = True
        if padding_idx is not None:
            with no_grad():
                self.weight[padding_idx % num_embeddings] = 0.0

    @property
    def padding_idx(self):
        return self._padding_idx

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx,
                           max_norm=self._max_norm, norm_type=self._norm_type,
                           sparse=self._sparse, scale_grad_by_freq=self._scale_grad_by_freq)

    def extra_repr(self) -> str:
        text = f"{self._num_embeddings}, {self._embedding_dim}"
        if self._padding_idx is not None:
            text += f", padding_idx={self._padding_idx}"
        text += f", sparse={self._sparse}, scale_grad_by_freq={self._scale_grad_by_freq}"
        return text + _name_suffix(self._name)


class Identity(Layer):
    """Returns its input unchanged (any constructor arguments are ignored)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def forward(self, input):
        return input


class Flatten(Layer):
    """Flattens dims start_axis..stop_axis into one (default: all but the batch dim).

    Args:
        start_axis (int): first flattened dim; default 1.
        stop_axis (int): last flattened dim; default -1.
    """

    def __init__(self, start_axis=1, stop_axis=-1) -> None:
        super().__init__()
        self.start_axis = start_axis
        self.stop_axis = stop_axis

    def forward(self, input):
        return flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)


class Unflatten(Layer):
    """Splits dim `axis` into `shape` (inverse of Flatten).

    Args:
        axis (int): the dim to split.
        shape (list|tuple): the new dims (one may be -1); their product must match.
        name (str, optional): shown by repr.
    """

    def __init__(self, axis, shape, name=None) -> None:
        super().__init__()
        self.axis = axis
        self.shape = shape
        self.name = name

    def forward(self, input):
        return unflatten(input, axis=self.axis, shape=self.shape)

    def extra_repr(self) -> str:
        return f"axis={self.axis}, shape={list(self.shape)}{_name_suffix(self.name)}"


class Dropout(Layer):
    """F.dropout in training mode (self.training), its inference rule in eval mode.

    Args:
        p (float): drop probability; default 0.5.
        inplace (bool): drop into the input tensor itself (Paddle 3.x; second positional
            argument as in Paddle 3.3.1). Default False.
        axis (int|list, optional): axes over which the mask is drawn; default None.
        mode (str): 'upscale_in_train' (default) or 'downscale_in_infer'.
        name (str, optional): shown by repr.
    """

    def __init__(self, p=0.5, inplace=False, axis=None, mode="upscale_in_train",
                 name=None) -> None:
        super().__init__()
        self.p = _probability("Dropout", p)
        if not isinstance(inplace, bool):
            raise TypeError(f"Dropout: inplace must be a bool, got {inplace!r} (Paddle 3.x "
                            f"takes inplace second; pass axis by keyword)")
        if mode not in ("upscale_in_train", "downscale_in_infer"):
            raise ValueError(f"Dropout: mode must be 'upscale_in_train' or "
                             f"'downscale_in_infer', got {mode!r}")
        self.axis = axis
        self.mode = mode
        self.inplace = inplace
        self.name = name

    def forward(self, input):
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training,
                         inplace=self.inplace, mode=self.mode)

    def extra_repr(self) -> str:
        return (f"p={self.p}, axis={self.axis}, mode={self.mode}, inplace={self.inplace}"
                f"{_name_suffix(self.name)}")


class Dropout2D(Layer):
    """Drops whole channels of a 4-D input (F.dropout2d) in training mode.

    Args:
        p (float): drop probability; default 0.5.
        data_format (str): 'NCHW' (default) or 'NHWC'.
        name (str, optional): shown by repr.
    """

    _fn = staticmethod(F.dropout2d)

    def __init__(self, p=0.5, data_format="NCHW", name=None) -> None:
        super().__init__()
        self.p = _probability(type(self).__name__, p)
        self.data_format = data_format
        self.name = name

    def forward(self, input):
        return self._fn(input, p=self.p, training=self.training, data_format=self.data_format)

    def extra_repr(self) -> str:
        return f"p={self.p}, data_format={self.data_format}{_name_suffix(self.name)}"


class Dropout3D(Dropout2D):
    """Drops whole channels of a 5-D input (F.dropout3d) in training mode.

    Args:
        p (float): drop probability; default 0.5.
        data_format (str): 'NCDHW' (default) or 'NDHWC'.
        name (str, optional): shown by repr.
    """

    _fn = staticmethod(F.dropout3d)

    def __init__(self, p=0.5, data_format="NCDHW", name=None) -> None:
        super().__init__(p, data_format, name)


class AlphaDropout(Layer):
    """F.alpha_dropout (for SELU networks) in training mode; identity in eval mode.

    Args:
        p (float): drop probability; default 0.5.
        name (str, optional): shown by repr.
    """

    _fn = staticmethod(F.alpha_dropout)

    def __init__(self, p=0.5, name=None) -> None:
        super().__init__()
        self.p = _probability(type(self).__name__, p)
        self.name = name

    def forward(self, input):
        return self._fn(input, p=self.p, training=self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}{_name_suffix(self.name)}"


class FeatureAlphaDropout(AlphaDropout):
    """F.feature_alpha_dropout (whole channels) in training mode; identity in eval mode.

    Args:
        p (float): drop probability; default 0.5.
        name (str, optional): shown by repr.
    """

    _fn = staticmethod(F.feature_alpha_dropout)


class CosineSimilarity(Layer):
    """F.cosine_similarity(x1, x2, axis, eps).

    Args:
        axis (int): the reduced axis; default 1.
        eps (float): lower bound of the norm product; default 1e-8.
    """

    def __init__(self, axis=1, eps=1e-8) -> None:
        super().__init__()
        self._axis = axis
        self._eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self) -> str:
        return f"axis={self._axis}, eps={self._eps}"

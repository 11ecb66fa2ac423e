"""Activation layers: thin Layer wrappers over nn.functional activations, with Paddle's
extra_repr. Imports `nn.functional`, `nn.initializer`, `nn.layer.layers`.
"""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "PReLU", "RReLU", "ELU", "SELU", "CELU", "GELU",
           "Silu", "Swish", "Mish", "Sigmoid", "Hardsigmoid", "Hardswish", "Hardtanh", "Tanh",
           "Tanhshrink", "Softplus", "Softsign", "Softshrink", "Hardshrink", "LogSigmoid",
           "Softmax", "LogSoftmax", "Softmax2D", "Maxout", "ThresholdedReLU", "GLU", "SiLU"]


class _Activation(Layer):
    """Base: `_fn` is the functional form, `_args` the names of the stored arguments (passed
    to `_fn` as keywords and shown by extra_repr in this order)."""

    _fn = None
    _args: tuple = ()

    def __init__(self, name=None, **values) -> None:
        super().__init__()
        self._name = name
        for key, value in values.items():
            setattr(self, "_" + key, value)

    def forward(self, x):
        return type(self)._fn(x, **{k: getattr(self, "_" + k) for k in self._args})

    def extra_repr(self) -> str:
        parts = [f"{k}={getattr(self, '_' + k)}" for k in self._args]
        if self._name:
            parts.append(f"name={self._name}")
        return ", ".join(parts)


def _float_arg(layer: str, arg: str, value):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{layer}: {arg} must be a float, got {type(value).__name__}")
    return value


class ReLU(_Activation):
    """max(x, 0)."""
    _fn = F.relu

    def __init__(self, name=None) -> None:
        super().__init__(name)


class ReLU6(_Activation):
    """min(max(x, 0), 6)."""
    _fn = F.relu6

    def __init__(self, name=None) -> None:
        super().__init__(name)


class LeakyReLU(_Activation):
    """x where x > 0 else negative_slope * x."""
    _fn = F.leaky_relu
    _args = ("negative_slope",)

    def __init__(self, negative_slope=0.01, name=None) -> None:
        super().__init__(name, negative_slope=_float_arg("LeakyReLU", "negative_slope",
                                                         negative_slope))


class PReLU(Layer):
    """x where x > 0 else weight * x, with a learnable weight of `num_parameters` values
    (1: shared; else one per channel), initialised to the constant `init`.

    Args:
        num_parameters (int): 1 or the channel count. Default 1.
        init (float): initial slope. Default 0.25.
        weight_attr (ParamAttr, optional): attributes of the weight.
        data_format (str): channel position, as in F.prelu. Default 'NCHW'.
    """

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format="NCHW",
                 name=None) -> None:
        super().__init__()
        if isinstance(num_parameters, bool) or not isinstance(num_parameters, int) or \
                num_parameters < 1:
            raise ValueError(f"PReLU: num_parameters must be a positive int, got "
                             f"{num_parameters!r}")
        if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
            raise ValueError(f"PReLU: data_format must be one of 'NC', 'NCL', 'NCHW', "
                             f"'NCDHW', 'NLC', 'NHWC', 'NDHWC', got {data_format!r}")
        from ..initializer import Constant
        self._num_parameters = num_parameters
        self._init = _float_arg("PReLU", "init", init)
        self._weight_attr = weight_attr
        self._data_format = data_format
        self._name = name
        self._weight = self.create_parameter([num_parameters], attr=weight_attr,
                                             is_bias=False,
                                             default_initializer=Constant(float(init)))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self) -> str:
        name = f", name={self._name}" if self._name else ""
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, "
                f"init={self._init}, dtype={self._dtype}{name}")


class RReLU(Layer):
    """Randomized leaky relu: random slopes in U(lower, upper) in training, their mean in
    eval mode."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None) -> None:
        super().__init__()
        lower, upper = _float_arg("RReLU", "lower", lower), _float_arg("RReLU", "upper", upper)
        if not 0 <= lower <= upper <= 1:
            raise ValueError(f"RReLU: need 0 <= lower <= upper <= 1, got lower={lower}, "
                             f"upper={upper}")
        self._lower, self._upper, self._name = lower, upper, name

    def forward(self, x):
        return F.rrelu(x, self._lower, self._upper, training=self.training)

    def extra_repr(self) -> str:
        name = f", name={self._name}" if self._name else ""
        return (f"lower={self._lower}, upper={self._upper}, training={self.training}, "
                f"dtype={self._dtype}{name}")


class ELU(_Activation):
    """x where x > 0 else alpha * (exp(x) - 1)."""
    _fn = F.elu
    _args = ("alpha",)

    def __init__(self, alpha=1.0, name=None) -> None:
        super().__init__(name, alpha=_float_arg("ELU", "alpha", alpha))


class SELU(_Activation):
    """scale * elu(x, alpha)."""
    _fn = F.selu
    _args = ("scale", "alpha")

    def __init__(self, scale=1.0507009873554804934193349852946,
                 alpha=1.6732632423543772848170429916717, name=None) -> None:
        super().__init__(name, scale=_float_arg("SELU", "scale", scale),
                         alpha=_float_arg("SELU", "alpha", alpha))


class CELU(_Activation):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    _fn = F.celu
    _args = ("alpha",)

    def __init__(self, alpha=1.0, name=None) -> None:
        super().__init__(name, alpha=_float_arg("CELU", "alpha", alpha))


class GELU(_Activation):
    """x * Phi(x) (approximate: the tanh form)."""
    _fn = F.gelu
    _args = ("approximate",)

    def __init__(self, approximate=False, name=None) -> None:
        if approximate not in (True, False, "tanh", "none"):
            raise TypeError(f"GELU: approximate must be a bool, 'tanh' or 'none', got "
                            f"{approximate!r}")
        super().__init__(name, approximate=approximate)


class Silu(_Activation):
    """x * sigmoid(x)."""
    _fn = F.silu
    _args = ("inplace",)

    def __init__(self, inplace=False, name=None) -> None:
        super().__init__(name, inplace=bool(inplace))


SiLU = Silu  # Paddle 3.x alias


class Swish(_Activation):
    """x * sigmoid(x)."""
    _fn = F.swish

    def __init__(self, name=None) -> None:
        super().__init__(name)


class Mish(_Activation):
    """x * tanh(softplus(x))."""
    _fn = F.mish

    def __init__(self, name=None) -> None:
        super().__init__(name)


class Sigmoid(_Activation):
    """1 / (1 + exp(-x))."""
    _fn = F.sigmoid

    def __init__(self, name=None) -> None:
        super().__init__(name)


class Hardsigmoid(_Activation):
    """clip(x / 6 + 0.5, 0, 1)."""
    _fn = F.hardsigmoid

    def __init__(self, name=None) -> None:
        super().__init__(name)


class Hardswish(_Activation):
    """x * clip(x + 3, 0, 6) / 6."""
    _fn = F.hardswish

    def __init__(self, name=None) -> None:
        super().__init__(name)


class Hardtanh(_Activation):
    """clip(x, min, max)."""
    _fn = F.hardtanh
    _args = ("min", "max")

    def __init__(self, min=-1.0, max=1.0, name=None) -> None:  # noqa: A002
        super().__init__(name, min=_float_arg("Hardtanh", "min", min),
                         max=_float_arg("Hardtanh", "max", max))


class Tanh(_Activation):
    """tanh(x)."""
    _fn = F.tanh

    def __init__(self, name=None) -> None:
        super().__init__(name)


class Tanhshrink(_Activation):
    """x - tanh(x)."""
    _fn = F.tanhshrink

    def __init__(self, name=None) -> None:
        super().__init__(name)


class Softplus(_Activation):
    """log(1 + exp(beta * x)) / beta (x above threshold / beta)."""
    _fn = F.softplus
    _args = ("beta", "threshold")

    def __init__(self, beta=1, threshold=20, name=None) -> None:
        super().__init__(name, beta=_float_arg("Softplus", "beta", beta),
                         threshold=_float_arg("Softplus", "threshold", threshold))


class Softsign(_Activation):
    """x / (1 + |x|)."""
    _fn = F.softsign

    def __init__(self, name=None) -> None:
        super().__init__(name)


class Softshrink(_Activation):
    """x - threshold above threshold, x + threshold below -threshold, else 0."""
    _fn = F.softshrink
    _args = ("threshold",)

    def __init__(self, threshold=0.5, name=None) -> None:
        super().__init__(name, threshold=_float_arg("Softshrink", "threshold", threshold))


class Hardshrink(_Activation):
    """x where |x| > threshold else 0."""
    _fn = F.hardshrink
    _args = ("threshold",)

    def __init__(self, threshold=0.5, name=None) -> None:
        super().__init__(name, threshold=_float_arg("Hardshrink", "threshold", threshold))


class LogSigmoid(_Activation):
    """log(sigmoid(x))."""
    _fn = F.log_sigmoid

    def __init__(self, name=None) -> None:
        super().__init__(name)


class Softmax(_Activation):
    """softmax along `axis` (default -1)."""
    _fn = F.softmax
    _args = ("axis",)

    def __init__(self, axis=-1, name=None) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"Softmax: axis must be an int, got {type(axis).__name__}")
        super().__init__(name, axis=axis)


class LogSoftmax(_Activation):
    """log_softmax along `axis` (default -1)."""
    _fn = F.log_softmax
    _args = ("axis",)

    def __init__(self, axis=-1, name=None) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"LogSoftmax: axis must be an int, got {type(axis).__name__}")
        super().__init__(name, axis=axis)


class Softmax2D(_Activation):
    """softmax over the channel dim of a 3-D [C, H, W] or 4-D [N, C, H, W] input."""

    def __init__(self, name=None) -> None:
        super().__init__(name)

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2D: x must be 3-D or 4-D, got shape {list(x.shape)}")
        return F.softmax(x, axis=-3)


class Maxout(_Activation):
    """Max over groups of `groups` consecutive channels."""
    _fn = F.maxout
    _args = ("groups", "axis")

    def __init__(self, groups, axis=1, name=None) -> None:
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"Maxout: groups must be a positive int, got {groups!r}")
        if axis not in (1, -1, 3):
            raise ValueError(f"Maxout: axis must be 1, -1 or 3, got {axis!r}")
        super().__init__(name, groups=groups, axis=axis)


class ThresholdedReLU(_Activation):
    """x where x > threshold else value."""
    _fn = F.thresholded_relu
    _args = ("threshold", "value")

    def __init__(self, threshold=1.0, value=0.0, name=None) -> None:
        super().__init__(name, threshold=_float_arg("ThresholdedReLU", "threshold", threshold),
                         value=_float_arg("ThresholdedReLU", "value", value))


class GLU(_Activation):
    """a * sigmoid(b) for the halves a, b of x along `axis`."""
    _fn = F.glu
    _args = ("axis",)

    def __init__(self, axis=-1, name=None) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"GLU: axis must be an int, got {type(axis).__name__}")
        super().__init__(name, axis=axis)

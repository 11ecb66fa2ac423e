"""Activation functions (paddle.nn.functional.relu, softmax, gelu, ...).

Kernel-backed ones dispatch to ops/nn_activation.py; the rest are composites of tensor ops
(so they get gradients and static mode for free). Imports `framework`, `ops`, `tensor`.
"""
from __future__ import annotations

import inspect

from ... import tensor as _T
from ...framework import dtype as _dt
from ...framework.tensor import Tensor, is_variable
from ...ops.dispatch import call, dispatch
from ...ops.opdef import REGISTRY, norm_axis
from ...tensor._helpers import make_inplace

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "prelu", "rrelu", "elu",
           "elu_", "selu", "celu", "gelu", "silu", "swish", "mish", "sigmoid", "hardsigmoid",
           "hardswish", "hardtanh", "hardtanh_", "tanh", "tanh_", "tanhshrink", "softplus",
           "softsign", "softshrink", "hardshrink", "log_sigmoid", "softmax", "softmax_",
           "log_softmax", "maxout", "thresholded_relu", "thresholded_relu_", "glu",
           "gumbel_softmax", "logsigmoid", "swiglu"]

sigmoid = _T.sigmoid
tanh = _T.tanh
tanh_ = _T.tanh_

_RELU, _LEAKY, _ELU = REGISTRY["relu"], REGISTRY["leaky_relu"], REGISTRY["elu"]
_GELU, _SILU, _SOFTPLUS = REGISTRY["gelu"], REGISTRY["silu"], REGISTRY["softplus"]


def _float(api: str, arg: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, Tensor) and value.size == 1:
            return float(value.item())
        raise TypeError(f"{api}: {arg} must be a float, got {type(value).__name__}")
    return float(value)


def _check_float(api: str, x, arg: str = "x") -> None:
    """Activations take float tensors only (Paddle registers no integer kernels)."""
    if not isinstance(x, Tensor) and not is_variable(x):
        raise TypeError(f"{api}: {arg} must be a Tensor, got {type(x).__name__}")
    if getattr(x.dtype, "kind", "f") != "f":
        raise TypeError(f"{api}: {arg} must be a floating point tensor (float16, bfloat16, "
                        f"float32 or float64), got {x.dtype.name}")


def relu(x, name=None):
    """out = max(x, 0).

    Args:
        x (Tensor): float input.
    Returns:
        Tensor of x's shape and dtype.

    Examples:
        >>> import sampan as paddle
        >>> paddle.nn.functional.relu(paddle.to_tensor([-2., 0., 3.])).tolist()
        [0.0, 0.0, 3.0]
    """
    return dispatch(_RELU, (x,))


def relu6(x, name=None):
    """out = min(max(x, 0), 6)."""
    _check_float("relu6", x)
    return _T.clip(x, 0.0, 6.0)


def leaky_relu(x, negative_slope=0.01, name=None):
    """out = x where x > 0 else negative_slope * x.

    Args:
        x (Tensor): float input.
        negative_slope (float): slope below zero. Default 0.01.
    Returns:
        Tensor of x's shape and dtype.
    """
    return dispatch(_LEAKY, (x,), {"negative_slope": _float("leaky_relu", "negative_slope",
                                                             negative_slope)})


def prelu(x, weight, data_format="NCHW", name=None):
    """out = x where x > 0 else weight * x, with one weight or one per channel.

    Args:
        x (Tensor): float input with at least 1 dim (2 when weight has several values).
        weight (Tensor): 0-D slope, or 1-D slopes of size 1 or the number of channels.
        data_format (str): where the channel dim is: 'NC', 'NCL', 'NCHW', 'NCDHW' (dim 1)
            or 'NLC', 'NHWC', 'NDHWC' (last dim). Default 'NCHW'.
    Returns:
        Tensor of x's shape and dtype.
    """
    _check_float("prelu", x)
    if not isinstance(weight, Tensor) and not is_variable(weight):
        raise TypeError(f"prelu: weight must be a Tensor, got {type(weight).__name__}")
    if data_format not in ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"):
        raise ValueError(f"prelu: data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', "
                         f"'NLC', 'NHWC', 'NDHWC', got {data_format!r}")
    if len(weight.shape) > 1:
        raise _DimError(f"prelu: weight must be 0-D or 1-D (the dim count of weight shape "
                        f"should be 0 or 1), got shape {list(weight.shape)}")
    size = weight.shape[0] if weight.shape else 1
    if size != 1:
        if x.ndim < 2:
            raise ValueError(f"prelu: x (shape {list(x.shape)}) needs at least 2 dims when weight "
                             f"has {size} values (one per channel)")
        axis = 1 if data_format[1] == "C" else x.ndim - 1
        if x.shape[axis] != size:
            raise ValueError(f"prelu: weight has {size} values but x (shape {list(x.shape)}, "
                             f"data_format {data_format}) has {x.shape[axis]} channels")
        shape = [1] * x.ndim
        shape[axis] = size
        weight = _T.reshape(weight, shape)
    elif x.ndim == 0 or not weight.shape:
        weight = _T.reshape(weight, [])
    return _T.where(x > 0, x, weight * x)


class _DimError(AssertionError, ValueError):
    """prelu's weight rank: Paddle asserts (AssertionError); sampan raised ValueError."""


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Randomized leaky relu: below zero the slope is drawn from U(lower, upper) per element
    in training, and is (lower + upper) / 2 otherwise.

    Args:
        x (Tensor): float input.
        lower (float): lower bound of the slope, in [0, 1]. Default 1/8.
        upper (float): upper bound of the slope, in [lower, 1]. Default 1/3.
        training (bool): draw random slopes. Default True.
    Returns:
        Tensor of x's shape and dtype.
    """
    _check_float("rrelu", x)
    lower, upper = _float("rrelu", "lower", lower), _float("rrelu", "upper", upper)
    if not 0.0 <= lower <= 1.0:
        raise ValueError(f"rrelu: lower must be in [0, 1], got {lower}")
    if not 0.0 <= upper <= 1.0:
        raise ValueError(f"rrelu: upper must be in [0, 1], got {upper}")
    if upper < lower:
        raise ValueError(f"rrelu: lower must be <= upper, got lower={lower}, upper={upper}")
    if not training:
        return dispatch(_LEAKY, (x,), {"negative_slope": (lower + upper) / 2.0})
    slope = _T.uniform(x.shape, dtype=x.dtype, min=lower, max=upper)
    return _T.where(x >= 0, x, slope * x)


def elu(x, alpha=1.0, name=None):
    """out = x where x > 0 else alpha * (exp(x) - 1).

    Args:
        x (Tensor): float input.
        alpha (float): scale of the negative part. Default 1.0.
    Returns:
        Tensor of x's shape and dtype.
    """
    return dispatch(_ELU, (x,), {"alpha": _float("elu", "alpha", alpha)})


def selu(x, scale=1.0507009873554804934193349852946,
         alpha=1.6732632423543772848170429916717, name=None):
    """out = scale * (x where x > 0 else alpha * (exp(x) - 1)).

    Args:
        x (Tensor): float input.
        scale (float): must be > 1. Default 1.0507...
        alpha (float): must be >= 0. Default 1.6732...
    """
    _check_float("selu", x)
    scale, alpha = _float("selu", "scale", scale), _float("selu", "alpha", alpha)
    if scale <= 1.0:
        raise ValueError(f"selu: scale must be greater than 1.0, got {scale}")
    if alpha < 0:
        raise ValueError(f"selu: alpha must be no less than zero, got {alpha}")
    return dispatch(_ELU, (x,), {"alpha": alpha}) * scale


def celu(x, alpha=1.0, name=None):
    """out = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Args:
        x (Tensor): float input.
        alpha (float): must not be 0. Default 1.0.
    """
    _check_float("celu", x)
    alpha = _float("celu", "alpha", alpha)
    if alpha == 0:
        raise ZeroDivisionError("celu: alpha cannot be 0")
    if alpha == 1.0:
        return dispatch(_ELU, (x,), {"alpha": 1.0})
    return dispatch(_ELU, (x / alpha,), {"alpha": 1.0}) * alpha


def gelu(x, approximate=False, name=None):
    """Gaussian error linear unit: x * Phi(x).

    Args:
        x (Tensor): float input.
        approximate (bool|str): True or 'tanh' uses the tanh approximation; False or
            'none' the exact erf form. Default False.
    """
    if approximate in ("tanh", "none"):
        approximate = approximate == "tanh"
    if not isinstance(approximate, bool):
        raise TypeError(f"gelu: approximate must be a bool, 'tanh' or 'none', got "
                        f"{approximate!r}")
    return dispatch(_GELU, (x,), {"approximate": approximate} if approximate else {})


def silu(x, inplace=False, name=None):
    """out = x * sigmoid(x).

    Args:
        x (Tensor): float input.
        inplace (bool): update x in place. Default False.
    """
    if inplace:
        return _silu_inplace(x)
    return dispatch(_SILU, (x,))


def swish(x, name=None):
    """out = x * sigmoid(x) (the same function as silu)."""
    _check_float("swish", x)
    return dispatch(_SILU, (x,))


def mish(x, name=None):
    """out = x * tanh(softplus(x))."""
    _check_float("mish", x)
    return x * _T.tanh(dispatch(_SOFTPLUS, (x,)))


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """out = clip(slope * x + offset, 0, 1).

    Args:
        slope (float): Default 0.1666667.
        offset (float): Default 0.5.
    """
    _check_float("hardsigmoid", x)
    slope = _float("hardsigmoid", "slope", slope)
    offset = _float("hardsigmoid", "offset", offset)
    return _T.clip(x * slope + offset, 0.0, 1.0)


def hardswish(x, name=None):
    """out = x * clip(x + 3, 0, 6) / 6."""
    _check_float("hardswish", x)
    return x * _T.clip(x + 3.0, 0.0, 6.0) / 6.0


def hardtanh(x, min=-1.0, max=1.0, name=None):  # noqa: A002  (Paddle's argument names)
    """out = clip(x, min, max).

    Args:
        min (float): Default -1.0.
        max (float): Default 1.0.
    """
    _check_float("hardtanh", x)
    lo, hi = _float("hardtanh", "min", min), _float("hardtanh", "max", max)
    return _T.clip(x, lo, hi)


def tanhshrink(x, name=None):
    """out = x - tanh(x)."""
    _check_float("tanhshrink", x)
    return x - _T.tanh(x)


def softplus(x, beta=1, threshold=20, name=None):
    """out = log(1 + exp(beta * x)) / beta, and x where beta * x > threshold.

    Args:
        beta (float): Default 1.
        threshold (float): Default 20.
    """
    beta = _float("softplus", "beta", beta)
    if beta == 0:
        raise ZeroDivisionError("softplus: beta cannot be 0")
    return dispatch(_SOFTPLUS, (x,), {"beta": beta,
                                      "threshold": _float("softplus", "threshold", threshold)})


def softsign(x, name=None):
    """out = x / (1 + |x|)."""
    _check_float("softsign", x)
    return x / (_T.abs(x) + 1.0)


def softshrink(x, threshold=0.5, name=None):
    """out = x - threshold where x > threshold, x + threshold where x < -threshold, else 0.

    Args:
        threshold (float): must be >= 0. Default 0.5.
    """
    _check_float("softshrink", x)
    t = _float("softshrink", "threshold", threshold)
    if t < 0:
        raise ValueError(f"softshrink: threshold must be no less than zero, got {t}")
    return x - _T.clip(x, -t, t)


def hardshrink(x, threshold=0.5, name=None):
    """out = x where |x| > threshold, else 0.

    Args:
        threshold (float): Default 0.5.
    """
    _check_float("hardshrink", x)
    t = _float("hardshrink", "threshold", threshold)
    return _T.where(_T.abs(x) > t, x, 0.0)


def log_sigmoid(x, name=None):
    """out = log(sigmoid(x)) = -softplus(-x), computed without overflow."""
    _check_float("log_sigmoid", x)
    return -dispatch(_SOFTPLUS, (-x,), {"beta": 1.0, "threshold": 20.0})


logsigmoid = log_sigmoid  # Paddle 3.x alias


def swiglu(x, y=None, name=None):
    """SwiGLU (Paddle 3.x): silu(x) * y, or with y None, silu(a) * b where a, b are the two
    halves of x along the last axis.

    Args:
        x (Tensor): float input (last dim even when y is None).
        y (Tensor, optional): the gate input, same shape as x. Default None.

    Returns:
        Tensor: same dtype as x.
    """
    _check_float("swiglu", x)
    if y is None:
        n = x.shape[-1]
        if n % 2:
            raise ValueError(f"swiglu: with y=None the last dim of x must be even, got shape "
                             f"{list(x.shape)}")
        x, y = _T.split(x, 2, axis=-1)
    else:
        _check_float("swiglu", y, "y")
        if list(x.shape) != list(y.shape):
            raise ValueError(f"swiglu: x and y must have the same shape, got {list(x.shape)} "
                             f"and {list(y.shape)}")
    return dispatch(_SILU, (x,)) * y


def _with_dtype(api: str, x, dtype):
    if dtype is None:
        return x
    name = _dt.convert_dtype(dtype).name
    if _dt.convert_dtype(name).kind != "f":
        raise TypeError(f"{api}: dtype must be float16, bfloat16, float32 or float64, "
                        f"got {name}")
    return x if x.dtype.name == name else call("cast", x, dtype=name)


def _axis(api: str, axis) -> int:
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise TypeError(f"{api}: axis must be an int, got {type(axis).__name__}")
    return axis


def softmax(x, axis=-1, dtype=None, name=None):
    """out = exp(x) / sum(exp(x)) along `axis`.

    Args:
        x (Tensor): float input.
        axis (int): the axis to normalise. Default -1.
        dtype (str, optional): cast x to this float dtype first. Default None.
    Returns:
        Tensor of x's shape (dtype: `dtype` or x's).

    Examples:
        >>> import sampan as paddle
        >>> paddle.nn.functional.softmax(paddle.to_tensor([0., 0.])).tolist()
        [0.5, 0.5]
    """
    x = _with_dtype("softmax", x, dtype)
    return dispatch(REGISTRY["softmax"], (x,), {"axis": _axis("softmax", axis)})


def log_softmax(x, axis=-1, dtype=None, name=None):
    """out = log(softmax(x)) along `axis`, computed stably.

    Args:
        x (Tensor): float input.
        axis (int): Default -1.
        dtype (str, optional): cast x to this float dtype first. Default None.
    """
    x = _with_dtype("log_softmax", x, dtype)
    return dispatch(REGISTRY["log_softmax"], (x,), {"axis": _axis("log_softmax", axis)})


def maxout(x, groups, axis=1, name=None):
    """Max over groups of `groups` consecutive channels: channel c of the output is
    max(x[c * groups], ..., x[c * groups + groups - 1]).

    Args:
        x (Tensor): 4-D input (NCHW or NHWC).
        groups (int): group size; must divide the channel count.
        axis (int): channel axis: 1 or -1 / 3. Default 1.
    Returns:
        Tensor with channels / groups channels.
    """
    _check_float("maxout", x)
    if x.ndim != 4:
        raise ValueError(f"maxout: x must be 4-D, got shape {list(x.shape)}")
    if axis not in (1, -1, 3):
        raise ValueError(f"maxout: axis must be 1, -1 or 3, got {axis}")
    if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
        raise ValueError(f"maxout: groups must be a positive int, got {groups!r}")
    axis = axis % 4
    channels = x.shape[axis]
    if channels % groups:
        raise ValueError(f"maxout: the channel count {channels} of x (shape {list(x.shape)}) "
                         f"must be divisible by groups {groups}")
    shape = list(x.shape)
    shape[axis:axis + 1] = [channels // groups, groups]
    return _T.max(_T.reshape(x, shape), axis=axis + 1)


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """out = x where x > threshold, else `value`.

    Args:
        threshold (float): Default 1.0.
        value (float): Default 0.0.
    """
    _check_float("thresholded_relu", x)
    t = _float("thresholded_relu", "threshold", threshold)
    v = _float("thresholded_relu", "value", value)
    return _T.where(x > t, x, v)


def glu(x, axis=-1, name=None):
    """Gated linear unit: split x in halves a, b along `axis`; out = a * sigmoid(b).

    Args:
        x (Tensor): float input whose size along axis is even.
        axis (int): Default -1.
    """
    _check_float("glu", x)
    axis = norm_axis("glu", _axis("glu", axis), x.ndim)
    if x.shape[axis] % 2:
        raise ValueError(f"glu: the size of x (shape {list(x.shape)}) along axis {axis} must be "
                         f"even, got {x.shape[axis]}")
    a, b = _T.split(x, 2, axis=axis)
    return a * _T.sigmoid(b)


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """Samples from the Gumbel-softmax distribution: softmax((x + g) / temperature) with
    g = -log(-log(U(0, 1))). hard=True returns the one-hot of the argmax, with the soft
    sample's gradient (straight-through).

    Args:
        x (Tensor): unnormalized log-probabilities.
        temperature (float): > 0. Default 1.0.
        hard (bool): one-hot output. Default False.
        axis (int): Default -1.
    """
    _check_float("gumbel_softmax", x)
    temperature = _float("gumbel_softmax", "temperature", temperature)
    if temperature <= 0:
        raise ValueError(f"gumbel_softmax: temperature must be positive, got {temperature}")
    axis = norm_axis("gumbel_softmax", _axis("gumbel_softmax", axis), x.ndim)
    u = _T.uniform(x.shape, dtype=x.dtype, min=0.0, max=1.0)
    tiny = float(_dt.convert_dtype(x.dtype).np.type(1e-20)) or 1e-20
    noise = -_T.log(-_T.log(u + tiny) + tiny)
    soft = softmax((x + noise) / temperature, axis=axis)
    if not hard:
        return soft
    index = _T.argmax(soft, axis=axis, keepdim=True)
    one_hot = _T.put_along_axis(_T.zeros_like(soft), index, 1.0, axis)
    return one_hot - soft.detach() + soft


def _make(fn, api):
    inplace = make_inplace(fn, api)
    inplace.__doc__ = f"In-place version of `{fn.__name__}`: updates x and returns it."
    inplace.__signature__ = inspect.signature(fn)
    return inplace


relu_ = _make(relu, "relu_")
leaky_relu_ = _make(leaky_relu, "leaky_relu_")
elu_ = _make(elu, "elu_")
hardtanh_ = _make(hardtanh, "hardtanh_")
softmax_ = _make(softmax, "softmax_")
thresholded_relu_ = _make(thresholded_relu, "thresholded_relu_")
_silu_inplace = _make(lambda x: dispatch(_SILU, (x,)), "silu")


from ...tensor.out_arg import FUNCTIONAL_NAMES as _OUT_NAMES, install as _install_out  # noqa: E402
_install_out(globals(), _OUT_NAMES, "paddle.nn.functional.")  # Paddle 3.3.1's keyword-only `out=`

"""Public math functions over dispatch: the elementwise ones (math_binary.py, math_unary.py,
math_trig.py, re-exported here) and round, logit, clip, scale, lerp, add_n, addmm, ...

Imports `framework` and `ops`.
"""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from ..framework.tensor import Tensor, is_tensor_or_variable
from ..ops.dispatch import call, dispatch
from ..ops.opdef import REGISTRY
from . import math_binary, math_trig, math_unary
from ._helpers import binary, check_inplace, scalar_array
from .math_binary import *  # noqa: F401,F403
from .math_trig import *  # noqa: F401,F403
from .math_unary import *  # noqa: F401,F403

__all__ = math_binary.__all__ + math_unary.__all__ + math_trig.__all__ + [
    "round", "logit", "stanh", "polygamma", "clip", "scale", "lerp", "add_n", "addmm",
    "multiplex", "nan_to_num", "increment", "complex", "ldexp", "multigammaln", "polar"]


def _np_dtype(x):
    return _dt.convert_dtype(x.dtype).np


def _check_number(api: str, arg: str, value, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer,
                                                         np.floating)):
        raise TypeError(f"{api}: {arg} must be a {'float or None' if allow_none else 'float'}"
                        f", got {type(value).__name__}")


def round(x, decimals=0, name=None):  # noqa: A001  (Paddle's name)
    """Round x to `decimals` decimal places, halves to even (round(-0.5) = -0., round(1.5) = 2.).

    Args:
        x (Tensor): the input.
        decimals (int, optional): number of decimal places; negative rounds left of the
            point. Default 0.
        name (str, optional): unused.

    Returns:
        Tensor: rounded values, same dtype as x.
    """
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"round: decimals must be an int, got {type(decimals).__name__}")
    return dispatch(REGISTRY["round"], (x,), {"decimals": int(decimals)})


def logit(x, eps=None, name=None):
    """log(x / (1 - x)); with `eps`, x is first clipped to [eps, 1 - eps].

    Args:
        x (Tensor): the input, usually in (0, 1).
        eps (float, optional): clipping bound; None means no clipping. Default None.
        name (str, optional): unused.

    Returns:
        Tensor: the logit, shaped like x.
    """
    _check_number("logit", "eps", eps)
    return dispatch(REGISTRY["logit"], (x,), {"eps": None if eps is None else float(eps)})


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """Scaled tanh: scale_b * tanh(scale_a * x).

    Args:
        x (Tensor): the input.
        scale_a (float, optional): scale of the input. Default 0.67.
        scale_b (float, optional): scale of the output. Default 1.7159.
        name (str, optional): unused.

    Returns:
        Tensor: shaped like x.
    """
    _check_number("stanh", "scale_a", scale_a, False)
    _check_number("stanh", "scale_b", scale_b, False)
    return dispatch(REGISTRY["stanh"], (x,), {"scale_a": float(scale_a),
                                              "scale_b": float(scale_b)})


def polygamma(x, n, name=None):
    """The n-th derivative of the digamma function (n = 0 is digamma).

    Args:
        x (Tensor): the input.
        n (int): order of the derivative, >= 0.
        name (str, optional): unused.

    Returns:
        Tensor: shaped like x.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"polygamma: n must be a non-negative int, got {n!r}")
    return dispatch(REGISTRY["polygamma"], (x,), {"n": int(n)})


def _bound(x, value, api: str, arg: str):
    if value is None or is_tensor_or_variable(value):
        return value
    _check_number(api, arg, value)
    return np.asarray(value, dtype=_np_dtype(x))


def clip(x, min=None, max=None, name=None):  # noqa: A002  (Paddle's argument names)
    """Clamp every element of x into [min, max].

    Args:
        x (Tensor): the input (float or integer).
        min (float|Tensor, optional): lower bound, a number or 0-D Tensor. Default None
            (no lower bound).
        max (float|Tensor, optional): upper bound, a number or 0-D Tensor. Default None.
        name (str, optional): unused.

    Returns:
        Tensor: clipped values, same shape and dtype as x.

    Examples:
        >>> import sampan as paddle
        >>> paddle.clip(paddle.to_tensor([-1., 0.5, 3.]), min=0., max=1.)
        Tensor(shape=[3], dtype=float32, place=Place(cpu), stop_gradient=True,
               [0.        , 0.50000000, 1.        ])
    """
    return dispatch(REGISTRY["clip"], (x, _bound(x, min, "clip", "min"),
                                       _bound(x, max, "clip", "max")))


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (bias_after_scale=True) or scale * (x + bias), then `act`.

    Args:
        x (Tensor): the input.
        scale (float|Tensor, optional): the multiplier. Default 1.0.
        bias (float, optional): the offset. Default 0.0.
        bias_after_scale (bool, optional): add bias after scaling. Default True.
        act (str, optional): name of an activation applied to the result (e.g. "tanh",
            "sigmoid", "relu"). Default None.
        name (str, optional): unused.

    Returns:
        Tensor: same shape and dtype as x.
    """
    _check_number("scale", "bias", bias, False)
    if is_tensor_or_variable(scale):
        b = scalar_array(x, float(bias)) if isinstance(x, Tensor) else float(bias)
        out = x * scale + b if bias_after_scale else (x + b) * scale
        out = call("cast", out, dtype=x.dtype.name) if out.dtype != x.dtype else out
    else:
        _check_number("scale", "scale", scale, False)
        out = dispatch(REGISTRY["scale"], (x,), {"scale": float(scale), "bias": float(bias),
                                                 "bias_after_scale": bool(bias_after_scale)})
    if act is not None:
        if act not in REGISTRY:
            raise ValueError(f"scale: act {act!r} is not a known activation op")
        out = call(act, out)
    return out


def lerp(x, y, weight, name=None):
    """x + weight * (y - x) with broadcasting.

    Args:
        x (Tensor): start values.
        y (Tensor): end values.
        weight (float|Tensor): interpolation weight.
        name (str, optional): unused.

    Returns:
        Tensor: in the broadcast shape of x, y and weight.
    """
    if not is_tensor_or_variable(weight):
        _check_number("lerp", "weight", weight, False)
        weight = scalar_array(x, float(weight))
    return dispatch(REGISTRY["lerp"], (x, y, weight))


def add_n(inputs, name=None):
    """Sum of a list of Tensors of the same shape and dtype.

    Args:
        inputs (Tensor|list[Tensor]): the tensors to add.
        name (str, optional): unused.

    Returns:
        Tensor: the elementwise sum.
    """
    if is_tensor_or_variable(inputs):
        inputs = [inputs]
    return dispatch(REGISTRY["add_n"], (list(inputs),))


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002
    """beta * input + alpha * (x @ y) for 2-D x and y.

    Args:
        input (Tensor): added term, broadcastable to [x.shape[0], y.shape[1]].
        x (Tensor): 2-D left matrix.
        y (Tensor): 2-D right matrix.
        beta (float, optional): coefficient of input. Default 1.0.
        alpha (float, optional): coefficient of x @ y. Default 1.0.
        name (str, optional): unused.

    Returns:
        Tensor: of shape [x.shape[0], y.shape[1]].
    """
    for arg, t in (("x", x), ("y", y)):
        if len(t.shape) != 2:
            raise ValueError(f"addmm: {arg} must be a 2-D tensor, got shape {list(t.shape)}")
    if x.shape[1] != y.shape[0] and -1 not in (x.shape[1], y.shape[0]):
        raise ValueError(f"addmm: the second dim of x (shape {list(x.shape)}) must equal the "
                         f"first dim of y (shape {list(y.shape)}); got {x.shape[1]} vs "
                         f"{y.shape[0]}")
    _check_number("addmm", "beta", beta, False)
    _check_number("addmm", "alpha", alpha, False)
    prod = call("matmul", x, y, transpose_x=False, transpose_y=False)
    return call("scale", input, scale=float(beta), bias=0.0, bias_after_scale=True) + \
        call("scale", prod, scale=float(alpha), bias=0.0, bias_after_scale=True)


def multiplex(inputs, index, name=None):
    """Row-wise selection: out[i] = inputs[index[i]][i].

    Args:
        inputs (list[Tensor]): tensors of one shape [N, ...] and dtype.
        index (Tensor): int32/int64 tensor of shape [N, 1] with values in [0, len(inputs)).
        name (str, optional): unused.

    Returns:
        Tensor: shaped like inputs[0].
    """
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"multiplex: inputs must be a list of Tensors, got "
                        f"{type(inputs).__name__}")
    return dispatch(REGISTRY["multiplex"], (list(inputs), index))


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """Replace NaN, +inf and -inf by finite numbers.

    Args:
        x (Tensor): the input.
        nan (float, optional): replacement of NaN. Default 0.0.
        posinf (float, optional): replacement of +inf; None means the dtype's max.
        neginf (float, optional): replacement of -inf; None means the dtype's lowest.
        name (str, optional): unused.

    Returns:
        Tensor: same shape and dtype as x.
    """
    _check_number("nan_to_num", "nan", nan, False)
    _check_number("nan_to_num", "posinf", posinf)
    _check_number("nan_to_num", "neginf", neginf)
    return dispatch(REGISTRY["nan_to_num"], (x,), {
        "nan": float(nan), "posinf": None if posinf is None else float(posinf),
        "neginf": None if neginf is None else float(neginf)})


def increment(x, value=1.0, name=None):
    """Add `value` to the one-element tensor x, in place (as Paddle's dynamic mode does).

    Args:
        x (Tensor): a tensor with exactly one element.
        value (float, optional): the amount to add. Default 1.0.
        name (str, optional): unused.

    Returns:
        Tensor: x itself, updated.
    """
    _check_number("increment", "value", value, False)
    op = REGISTRY["increment"]
    if not isinstance(x, Tensor):
        return dispatch(op, (x,), {"value": float(value)})
    check_inplace(x, "increment")
    return x._rebind(dispatch(op, (x._alias(),), {"value": float(value)}))


def complex(real, imag, name=None):  # noqa: A001  (Paddle's name)
    """A complex tensor real + 1j * imag (float32 -> complex64, float64 -> complex128).

    Args:
        real (Tensor): the real part (float).
        imag (Tensor): the imaginary part (float), broadcast against real.
        name (str, optional): unused.

    Returns:
        Tensor: complex, in the broadcast shape of real and imag.
    """
    return dispatch(REGISTRY["complex"], (real, imag))


def _float_of(x):
    """x itself if floating point, else x cast to the default float (a recorded cast op)."""
    if _dt.convert_dtype(x.dtype).kind in "fc":
        return x
    return call("cast", x, dtype=_dt.default_float().name)


def ldexp(x, y, name=None):
    """x * 2 ** y elementwise, with broadcasting.

    Args:
        x (Tensor): the multiplier (float32, float64, int32, int64; integers give the
            default float).
        y (Tensor): the exponents of two, usually integers.
        name (str, optional): unused.

    Returns:
        Tensor: float, in the broadcast shape of x and y.
    """
    for arg, v in (("x", x), ("y", y)):
        if not is_tensor_or_variable(v):
            raise TypeError(f"ldexp: {arg} must be a Tensor, got {type(v).__name__}")
    x = _float_of(x)
    dtype = _dt.convert_dtype(x.dtype)
    two = np.asarray(2.0, dtype.np)
    power = binary(REGISTRY["pow"], two, call("cast", y, dtype=dtype.name))
    return binary(REGISTRY["multiply"], x, power)


def multigammaln(x, p, name=None):
    """Log of the multivariate gamma function of dimension p:
    p (p - 1) / 4 * log(pi) + sum_{i < p} lgamma(x - i / 2).

    Args:
        x (Tensor): the input; every element should exceed (p - 1) / 2.
        p (int): the dimension, >= 1.
        name (str, optional): unused.

    Returns:
        Tensor: shaped like x.
    """
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1:
        raise ValueError(f"multigammaln: p must be a positive int, got {p!r}")
    lgamma = REGISTRY["lgamma"]
    out = dispatch(lgamma, (x,))
    for i in range(1, int(p)):
        out = out + dispatch(lgamma, (x - 0.5 * i,))
    return out + float(p * (p - 1) / 4 * np.log(np.pi))


def polar(abs, angle, name=None):  # noqa: A002  (Paddle's argument names)
    """The complex tensor abs * (cos(angle) + 1j * sin(angle)).

    Args:
        abs (Tensor): the magnitudes (float32 or float64).
        angle (Tensor): the angles in radians, same dtype.
        name (str, optional): unused.

    Returns:
        Tensor: complex64 for float32 inputs, complex128 for float64.
    """
    real = abs * dispatch(REGISTRY["cos"], (angle,))
    imag = abs * dispatch(REGISTRY["sin"], (angle,))
    return dispatch(REGISTRY["complex"], (real, imag))

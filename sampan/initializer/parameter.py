"""make_parameter (the one way an eager Parameter is created) and paddle.create_parameter.

The initializer a parameter gets is chosen here for both modes (`choose_initializer`);
static `create_parameter` runs the same initializer into the startup Program.
"""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from ..framework.param_attr import ParamAttr
from ..framework.tensor import Parameter
from ..utils import unique_name
from .base import filling
from .constant import Constant
from .global_init import _global_bias_initializer, _global_weight_initializer
from .lazy import defer, deferring
from .xavier import XavierUniform

__all__ = ["create_parameter"]


def choose_initializer(api: str, dtype, attr_init, is_bias: bool, default_initializer):
    """The initializer of a new parameter, in Paddle's order: the ParamAttr's, the global
    one (set_global_initializer), `default_initializer`, else XavierUniform for weights
    and Constant(0.0) for biases (float dtypes only, as in Paddle)."""
    if attr_init is not None:
        return attr_init
    glob = _global_bias_initializer() if is_bias else _global_weight_initializer()
    if glob is not None:
        return glob
    if default_initializer is not None:
        return default_initializer
    if dtype.kind != "f":
        raise TypeError(f"{api}: can not create a parameter of dtype {dtype.name} with the "
                        f"default initializer (float16, bfloat16, float32 or float64 only); "
                        f"set default_initializer to fit the parameter dtype")
    return Constant(0.0) if is_bias else XavierUniform()


def check_shape(api: str, shape) -> list:
    """A parameter shape as a list of non-negative ints."""
    items = shape.tolist() if hasattr(shape, "tolist") else shape
    if not isinstance(items, (list, tuple)) or any(
            isinstance(s, bool) or not isinstance(s, (int, np.integer)) for s in items):
        raise TypeError(f"{api}: shape must be a list of ints (or a tuple), got {shape!r}")
    dims = [int(s) for s in items]
    if any(d < 0 for d in dims):
        raise ValueError(f"{api}: shape must not contain negative dims, got {dims}")
    return dims


def make_parameter(api: str, shape, dtype, attr, is_bias: bool, default_initializer,
                   name_prefix: str):
    """The one way an eager Parameter is created (Layer.create_parameter,
    paddle.create_parameter).

    `attr` is anything ParamAttr._to_attr accepts; False gives None. The initializer is
    chosen by `choose_initializer` and called as `init(param)` with grad off, eagerly even
    while a Program is being built. The name is the attr's or `<name_prefix>.w_N` / `.b_N`.
    """
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    dims = check_shape(api, shape)
    dtype = _dt.convert_dtype(dtype)
    init = choose_initializer(api, dtype, attr.initializer, is_bias, default_initializer)
    name = attr.name or unique_name.generate(f"{name_prefix}.{'b' if is_bias else 'w'}")
    param = Parameter(np.zeros(dims, dtype=dtype.np), name=name, trainable=attr.trainable)
    param.optimize_attr = {"learning_rate": attr.learning_rate}
    param.regularizer = attr.regularizer
    param.need_clip = attr.need_clip
    param.do_model_average = attr.do_model_average
    if deferring():      # inside paddle.LazyGuard: param.initialize() runs init later
        defer(param, init, _fill)
        return param
    _fill(init, param)
    return param


def _fill(init, param) -> None:
    with filling():
        init(param)


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None) -> Parameter:
    """A new trainable Parameter of `shape` and `dtype`, initialised like a Layer's.

    Args:
        shape (list|tuple): dims of the parameter.
        dtype (str|dtype): data type.
        name (str, optional): its name ('create_parameter_N.w_0' style if None).
        attr (ParamAttr, optional): name, initializer, learning_rate, regularizer, trainable.
        is_bias (bool): the default initializer is Constant(0.0) instead of XavierUniform.
        default_initializer (Initializer, optional): used when attr has no initializer and
            no global initializer is set.

    Returns:
        Parameter

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([2, 3], "float32", is_bias=True)
        >>> w.shape, float(w.sum()), w.stop_gradient
        (paddle.Size([2, 3]), 0.0, False)
    """
    attr = ParamAttr._to_attr(attr)
    if name is not None and attr is not False and attr.name is None:
        attr = ParamAttr(name, attr.initializer, attr.learning_rate, attr.regularizer,
                         attr.trainable, attr.do_model_average, attr.need_clip)
    dtype = _dt.default_float() if dtype is None else _dt.convert_dtype(dtype)
    return make_parameter("create_parameter", shape, dtype, attr, is_bias,
                          default_initializer, unique_name.generate("create_parameter"))

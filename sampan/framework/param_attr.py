"""ParamAttr: how a Layer creates one parameter (name, initializer, lr, regularizer, trainable).

Imports only `framework`; initializers are referenced, never imported here.
"""
from __future__ import annotations

import numpy as np

from . import dtype as _dt
from .tensor import Parameter


class ParamAttr:
    """Attributes of a learnable parameter.

    Args:
        name (str, optional): the parameter's name; a unique one is generated if None.
        initializer (Initializer, optional): how to fill it; the layer's default if None.
        learning_rate (float): multiplies the optimizer's learning rate for this parameter.
        regularizer (WeightDecayRegularizer, optional): overrides the optimizer's weight_decay.
        trainable (bool): False freezes the parameter (stop_gradient=True).
        do_model_average (bool): kept for ModelAverage.
        need_clip (bool): whether gradient clipping applies to it.

    Examples:
        >>> import sampan as paddle
        >>> attr = paddle.ParamAttr(name="w", learning_rate=0.5, trainable=False)
        >>> attr.learning_rate, attr.trainable
        (0.5, False)
    """

    def __init__(self, name: str | None = None, initializer=None, learning_rate: float = 1.0,
                 regularizer=None, trainable: bool = True, do_model_average: bool = True,
                 need_clip: bool = True) -> None:
        if name is not None and not isinstance(name, str):
            raise TypeError(f"ParamAttr: name must be a str or None, got {type(name).__name__}")
        if not isinstance(learning_rate, (int, float)) or isinstance(learning_rate, bool):
            raise TypeError(f"ParamAttr: learning_rate must be a float, got {learning_rate!r}")
        if initializer is not None and not callable(initializer):
            raise TypeError(f"ParamAttr: initializer must be an Initializer, got "
                            f"{type(initializer).__name__}")
        self.name = name
        self.initializer = initializer
        self.learning_rate = float(learning_rate)
        self.regularizer = regularizer
        self.trainable = bool(trainable)
        self.do_model_average = do_model_average
        self.need_clip = bool(need_clip)

    @staticmethod
    def _to_attr(arg):
        """Normalise a weight_attr/bias_attr argument: None, str, Initializer, ParamAttr, False."""
        if arg is None:
            return ParamAttr()
        if arg is False:
            return False
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        if callable(arg):  # an Initializer
            return ParamAttr(initializer=arg)
        if arg is True:
            return ParamAttr()
        raise TypeError(f"ParamAttr: cannot make a parameter attribute from "
                        f"{type(arg).__name__} {arg!r}")

    def __repr__(self) -> str:
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, regularizer={self.regularizer!r}, "
                f"trainable={self.trainable}, need_clip={self.need_clip})")


class WeightNormParamAttr(ParamAttr):
    """ParamAttr that asks for weight normalisation along `dim` (kept for API parity)."""

    def __init__(self, dim: int | None = None, name: str | None = None, initializer=None,
                 learning_rate: float = 1.0, regularizer=None, trainable: bool = True,
                 do_model_average: bool = False, need_clip: bool = True) -> None:
        super().__init__(name, initializer, learning_rate, regularizer, trainable,
                         do_model_average, need_clip)
        self.dim = dim


def make_parameter(api: str, shape, dtype, attr, is_bias: bool, default_initializer,
                   name_prefix: str):
    """The one way a Parameter is created (Layer.create_parameter, paddle.create_parameter).

    `attr` is anything ParamAttr._to_attr accepts; False gives None. The initializer is,
    in order: the attr's, the global one (nn.initializer.set_global_initializer),
    `default_initializer`, else XavierUniform for weights and Constant(0.0) for biases.
    The name is the attr's or `<name_prefix>.w_N` / `.b_N`.
    """
    from ..utils import unique_name
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    try:
        dims = [int(s) for s in shape]
    except (TypeError, ValueError):
        raise TypeError(f"{api}: shape must be a list of ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"{api}: shape must not contain negative dims, got {dims}")
    dtype = _dt.convert_dtype(dtype)
    name = attr.name or unique_name.generate(f"{name_prefix}.{'b' if is_bias else 'w'}")
    param = Parameter(np.zeros(dims, dtype=dtype.np), name=name, trainable=attr.trainable)
    param.optimize_attr = {"learning_rate": attr.learning_rate}
    param.regularizer = attr.regularizer
    param.need_clip = attr.need_clip
    param.do_model_average = attr.do_model_average
    init = attr.initializer or _default_initializer(is_bias, default_initializer)
    init(param)
    return param


def _default_initializer(is_bias: bool, default_initializer):
    from ..nn import initializer as init
    glob = init._global_bias_initializer() if is_bias else init._global_weight_initializer()
    if glob is not None:
        return glob
    if default_initializer is not None:
        return default_initializer
    return init.Constant(0.0) if is_bias else init.XavierUniform()

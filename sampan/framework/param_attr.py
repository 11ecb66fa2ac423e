"""ParamAttr: how a Layer creates one parameter (name, initializer, lr, regularizer, trainable).

Plain data: imports nothing; initializers are referenced, never imported here (parameters
are made by `sampan.initializer.make_parameter`, a room above).
"""
from __future__ import annotations


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


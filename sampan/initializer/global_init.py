"""set_global_initializer: the initializers later-created weights and biases default to."""
from __future__ import annotations

from .base import Initializer

__all__ = ["set_global_initializer"]

_global_weight_init = None
_global_bias_init = None


def set_global_initializer(weight_init, bias_init=None) -> None:
    """Set the initializers every later-created weight / bias parameter uses by default.

    A ParamAttr's initializer still takes precedence; a layer's own default initializer
    does not. Applies to eager parameters and to static `create_parameter` alike. Pass None
    to cancel.

    Args:
        weight_init (Initializer|None): for weights.
        bias_init (Initializer|None, optional): for biases. Default None.

    Examples:
        >>> import sampan as paddle
        >>> init = paddle.nn.initializer
        >>> init.set_global_initializer(init.Constant(2.0), init.Constant(-1.0))
        >>> paddle.nn.Linear(2, 1).bias.tolist()
        [-1.0]
        >>> init.set_global_initializer(None)
    """
    global _global_weight_init, _global_bias_init
    for arg, value in (("weight_init", weight_init), ("bias_init", bias_init)):
        if value is not None and not isinstance(value, Initializer):
            raise TypeError(f"set_global_initializer: {arg} must be an Initializer or None, "
                            f"got {type(value).__name__}")
    _global_weight_init = weight_init
    _global_bias_init = bias_init


def _global_weight_initializer():
    """The weight initializer set by set_global_initializer, or None."""
    return _global_weight_init


def _global_bias_initializer():
    """The bias initializer set by set_global_initializer, or None."""
    return _global_bias_init

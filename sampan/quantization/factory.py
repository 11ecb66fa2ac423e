"""paddle.quantization.quanter: the decorator that declares a QuanterFactory for a
BaseQuanter subclass, so a config can name it before the layer it quantizes exists."""
from __future__ import annotations

import inspect
from typing import Callable

from .base import BaseQuanter, QuanterFactory

__all__ = ["quanter"]


def quanter(class_name: str) -> Callable:
    """Declare a factory class `class_name` for the decorated quanter class, in the
    decorating module (added to its `__all__` when it has one). The factory keeps the
    arguments it is given; each quantized layer gets `QuanterLayer(layer, *args, **kwargs)`.

    Args:
        class_name (str): the name of the factory class to declare.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.quantization import BaseQuanter, QuantConfig, quanter
        >>> @quanter("MyQuanter")
        ... class MyQuanterLayer(BaseQuanter):
        ...     def __init__(self, layer, bits=8):
        ...         super().__init__()
        ...         self.bits = bits
        ...     def forward(self, x):
        ...         return x
        ...     def scales(self): return None
        ...     def zero_points(self): return None
        ...     def quant_axis(self): return -1
        ...     def bit_length(self): return self.bits
        >>> q = MyQuanter(bits=4)
        >>> q._instance(paddle.nn.Linear(2, 2)).bits
        4
    """
    if not isinstance(class_name, str) or not class_name.isidentifier():
        raise ValueError(f"quanter: class_name must be a Python identifier, got "
                         f"{class_name!r}")

    def wrapper(target: type) -> type:
        if not (isinstance(target, type) and issubclass(target, BaseQuanter)):
            raise TypeError(f"quanter: {class_name!r} must decorate a BaseQuanter "
                            f"subclass, got {target!r}")
        factory = type(class_name, (QuanterFactory,), {
            "__init__": _factory_init, "_instance": _factory_instance,
            "layer_class": target, "__module__": target.__module__})
        scope = inspect.currentframe().f_back.f_globals   # the decorating module
        scope[class_name] = factory
        if isinstance(scope.get("__all__"), list):
            scope["__all__"].append(class_name)
        return target
    return wrapper


def _factory_init(self, *args, **kwargs) -> None:
    QuanterFactory.__init__(self, **kwargs)
    self.partial_args = args


def _factory_instance(self, layer) -> BaseQuanter:
    return self.layer_class(layer, *self.partial_args, **self.partial_kwargs)

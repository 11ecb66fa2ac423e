"""paddle.LazyGuard: Parameters created inside the guard are not initialized until
`param.initialize()` (their initializer is kept; their value is zeros until then, and
`_is_initialized()` is False). Imports `framework` only; make_parameter asks `deferring()`.
"""
from __future__ import annotations

import threading

_LOCAL = threading.local()


def deferring() -> bool:
    """Whether parameters made now in this thread defer their initialization."""
    return getattr(_LOCAL, "depth", 0) > 0


class LazyGuard:
    """Create Layers whose parameters are initialized later, on `param.initialize()`: large
    models can be built first and initialized (or loaded) afterwards.

    Examples:
        >>> import sampan as paddle
        >>> with paddle.LazyGuard():
        ...     fc = paddle.nn.Linear(3, 2, bias_attr=paddle.ParamAttr(
        ...         initializer=paddle.nn.initializer.Constant(0.5)))
        >>> fc.bias._is_initialized(), fc.weight.shape
        (False, paddle.Size([3, 2]))
        >>> fc.bias.initialize()
        >>> fc.bias._is_initialized(), fc.bias.numpy().tolist()
        (True, [0.5, 0.5])
    """

    def __enter__(self) -> "LazyGuard":
        _LOCAL.depth = getattr(_LOCAL, "depth", 0) + 1
        return self

    def __exit__(self, *exc) -> bool:
        _LOCAL.depth -= 1
        return False


def defer(param, init, fill) -> None:
    """Mark `param` as not initialized; `fill(init, param)` initializes it later."""
    param._lazy_init = (init, fill)
    param._is_initialized = _not_initialized


def _not_initialized() -> bool:
    return False


def initialize(param) -> None:
    """Run a lazily created Parameter's initializer now (no-op when already initialized)."""
    pending = param.__dict__.pop("_lazy_init", None)
    if pending is None:
        return
    init, fill = pending
    fill(init, param)
    del param._is_initialized     # back to the class method: initialized

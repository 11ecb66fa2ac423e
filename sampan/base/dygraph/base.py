"""`paddle.base.dygraph.base`: dygraph guards and the mode switches, over sampan's one mode
state (`framework.flags.in_dynamic_mode`, `paddle.enable_static`/`disable_static`)."""
from __future__ import annotations

import contextlib
import functools

import numpy as np

from ...autograd import grad, no_grad  # noqa: F401
from ...framework.flags import in_dynamic_mode
from ...framework.tensor import Tensor
from ...static import disable_static, enable_static
from ...tensor import to_tensor
from ...utils import unique_name


def in_dygraph_mode() -> bool:
    """True unless a static Program is being built (`paddle.in_dynamic_mode`)."""
    return in_dynamic_mode()


def in_pir_mode() -> bool:
    """False: sampan's one IR behaves as Paddle's legacy Program."""
    return False


def in_dynamic_or_pir_mode() -> bool:
    return in_dynamic_mode()


enabled = in_dygraph_mode


def enable_dygraph(place=None) -> None:
    """Switch to dynamic mode (`paddle.disable_static`)."""
    disable_static(place)


def disable_dygraph() -> None:
    """Switch to static mode (`paddle.enable_static`)."""
    enable_static()


@contextlib.contextmanager
def _mode(dynamic: bool):
    """Run the block in dynamic (True) or static (False) mode, then restore the mode."""
    was = in_dynamic_mode()
    if was != dynamic:
        disable_static() if dynamic else enable_static()
    try:
        yield
    finally:
        if in_dynamic_mode() != was:
            disable_static() if was else enable_static()


@contextlib.contextmanager
def guard(place=None):
    """Run the block in dynamic mode with fresh unique names, then restore the mode.

    Args:
        place (CPUPlace|CUDAPlace|str, optional): accepted for compatibility; sampan computes
            on the CPU.

    Examples:
        >>> import sampan as paddle
        >>> with paddle.base.dygraph.guard():
        ...     print(paddle.in_dynamic_mode())
        True
    """
    with _mode(True), unique_name.guard():
        yield


def switch_to_static_graph(func):
    """Decorator: run `func` in static mode (Paddle's test and dy2static helper)."""
    @functools.wraps(func)
    def run(*args, **kwargs):
        with _mode(False):
            return func(*args, **kwargs)
    return run


def to_variable(value, name: str | None = None, zero_copy=None, dtype=None) -> Tensor:
    """Make a Tensor from a numpy array, a Tensor or Python numbers (Paddle 2.x dygraph).

    Args:
        value (ndarray|Tensor|list|tuple|scalar): the data; a Tensor is returned unchanged.
        name (str, optional): unused, for compatibility.
        zero_copy (bool, optional): unused; the data is copied.
        dtype (str|paddle.dtype, optional): convert to this dtype.

    Returns:
        Tensor: with stop_gradient=True.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> with paddle.base.dygraph.guard():
        ...     x = paddle.base.dygraph.to_variable(np.ones([2], "float32"))
        >>> x.shape, x.stop_gradient
        (paddle.Size([2]), True)
    """
    if isinstance(value, Tensor):
        return value if dtype is None else value.astype(dtype)
    if not isinstance(value, (np.ndarray, list, tuple, int, float, bool, complex, np.generic)):
        raise TypeError(f"to_variable: value must be a numpy.ndarray, Tensor, list, tuple or "
                        f"scalar, got {type(value).__name__}")
    return to_tensor(value, dtype=dtype)

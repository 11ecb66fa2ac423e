"""paddle.tensor.create_tensor and Tensor.block: the two Tensor names that speak of Programs.

Bound onto Tensor and sampan.tensor by the package face (sampan/__init__.py), since the tensor
room sits below static. Imports `framework`, `utils.unique_name` and `static.program/builder`.
"""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from ..framework.tensor import Tensor
from ..utils import unique_name
from .builder import building_active
from .program import default_main_program

_ALLOWED = ("bool", "float16", "float32", "float64", "int8", "int16", "int32", "int64")


def create_tensor(dtype, name: str | None = None, persistable: bool = False):
    """Create an empty Tensor (a Variable with no value in static mode) of data type `dtype`,
    to be filled later, e.g. by paddle.assign(x, output=t).

    Args:
        dtype (str|paddle.dtype|np.dtype): bool, float16, float32, float64, int8, int16,
            int32 or int64.
        name (str|None, optional): the name; None picks a unique one. Default: None.
        persistable (bool, optional): the persistable flag. Default: False.

    Returns:
        Tensor: an empty tensor (shape [0] in dynamic mode, [] as a static Variable).

    Examples:
        >>> import sampan as paddle
        >>> t = paddle.tensor.create_tensor(dtype='float32')
        >>> t.dtype, t.persistable
        (paddle.float32, False)
    """
    try:
        dt = _dt.convert_dtype(dtype)
    except (TypeError, ValueError):
        dt = None
    if dt is None or dt.name not in _ALLOWED:
        raise TypeError(f"create_tensor: dtype must be one of {list(_ALLOWED)}, got {dtype!r}")
    name = name or unique_name.generate("create_tensor")
    if building_active():
        block = default_main_program().global_block()
        return block.create_var(name, (), dt, persistable=bool(persistable),
                                stop_gradient=False)
    out = Tensor(np.zeros((0,), dtype=dt.np), name=name)
    out.persistable = bool(persistable)
    return out


def tensor_block(self):
    """The global Block of the default main Program (what Paddle's eager Tensor.block gives)."""
    return default_main_program().global_block()

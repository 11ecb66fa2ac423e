"""Public shape-manipulation functions (reshape, transpose, concat, ...) over dispatch."""
from __future__ import annotations

from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY
from ..framework.tensor import Tensor

__all__ = ["reshape", "expand_as", "cast"]

_RESHAPE = REGISTRY["reshape"]
_EXPAND_AS = REGISTRY["expand_as"]
_CAST = REGISTRY["cast"]


def _shape_list(api: str, shape) -> list:
    if isinstance(shape, Tensor):
        return [int(v) for v in shape.tolist()]
    if isinstance(shape, int):
        return [shape]
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{api}: shape must be a list, tuple or Tensor, got "
                        f"{type(shape).__name__}")
    return [int(s) if not isinstance(s, Tensor) else int(s.item()) for s in shape]


def reshape(x, shape, name=None):
    """x with a new shape; 0 keeps the input dim, one -1 is inferred."""
    return dispatch(_RESHAPE, (x,), {"shape": _shape_list("reshape", shape)})


def expand_as(x, y, name=None):
    """x broadcast to y's shape."""
    return dispatch(_EXPAND_AS, (x, y))


def cast(x, dtype):
    """x converted to `dtype`."""
    from ..framework.dtype import convert_dtype
    return dispatch(_CAST, (x,), {"dtype": convert_dtype(dtype).name})

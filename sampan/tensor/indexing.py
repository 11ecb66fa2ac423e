"""Public indexing functions over dispatch, and Tensor.__getitem__ / __setitem__.

Python indices are encoded into the `index` attr of the getitem/setitem ops (see
sampan/ops/indexing.py); array-valued indices travel as tensor inputs. Imports `framework`,
`ops` and `tensor._helpers`.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, wrap
from ..ops.dispatch import dispatch, spec_of
from ..ops.opdef import REGISTRY
from ._helpers import check_inplace

__all__ = ["take_along_axis", "put_along_axis"]

_GETITEM = REGISTRY["getitem"]
_SETITEM = REGISTRY["setitem"]


def _is_var(v) -> bool:
    return getattr(v, "_is_variable", False)


def _slice_part(v, api: str):
    if v is None:
        return None
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, Tensor) and v.size == 1 and v.dtype.kind in "iu":
        return int(v.item())
    raise TypeError(f"{api}: slice bounds must be ints or 1-element int Tensors, got "
                    f"{type(v).__name__}")


def _array_index(k, api: str):
    """A list/array/Tensor index item as an int or bool array (Tensor kept as is)."""
    if isinstance(k, Tensor) or _is_var(k):
        kind = k.dtype.kind
        value = k
    else:
        try:
            value = np.asarray(k)
        except ValueError as e:
            raise IndexError(f"{api}: list index must be rectangular ({e})") from None
        if value.dtype.kind in "iu":
            value = value.astype(np.int64)
        elif value.size == 0:
            value = value.astype(np.int64)
        kind = value.dtype.kind
    if kind not in "iub":
        raise IndexError(f"{api}: tensor/list indices must be integer or bool, got dtype "
                         f"{getattr(k, 'dtype', value.dtype)}")
    return value


def encode_index(x, key, api: str = "getitem"):
    """Python index `key` -> (index attr, list of index tensors/arrays).

    Eager bool masks become their nonzero() int indices (after a shape check), so shapes
    stay static; masks on static Variables stay masks.
    """
    if not isinstance(key, tuple):
        key = (key,)
    items, tensors = [], []
    for k in key:
        if k is None:
            items.append(None)
        elif k is Ellipsis:
            items.append("...")
        elif isinstance(k, slice):
            items.append([_slice_part(k.start, api), _slice_part(k.stop, api),
                          _slice_part(k.step, api)])
        elif isinstance(k, (bool, np.bool_)):
            items.append("t")
            tensors.append(np.asarray(bool(k)))
        elif isinstance(k, (int, np.integer)):
            items.append(int(k))
        elif isinstance(k, (Tensor, list, tuple, range, np.ndarray)) or _is_var(k):
            items.append("t")
            tensors.append(_array_index(k, api))
        else:
            raise TypeError(f"{api}: unsupported index type {type(k).__name__}; use ints, "
                            f"slices, None, Ellipsis, lists or Tensors")
    if any(_mask_data(t) is not None for t in tensors):
        items, tensors = _masks_to_ints(x, items, tensors, api)
    return items, [wrap(t) if isinstance(t, np.ndarray) else t for t in tensors]


def _mask_data(t):
    """The data of an eager bool mask with at least one dim, else None."""
    if isinstance(t, Tensor):
        t = t._data
    if isinstance(t, np.ndarray) and t.dtype.kind == "b" and t.ndim:
        return t
    return None


def _masks_to_ints(x, items, tensors, api):
    from ..ops.indexing import index_shape
    index_shape(api, tuple(x.shape), items, [spec_of(getattr(t, "_data", t))
                                              for t in tensors])
    new_items, new_tensors = [], []
    k = 0
    for item in items:
        if item != "t":
            new_items.append(item)
            continue
        t = tensors[k]
        k += 1
        mask = _mask_data(t)
        if mask is None:
            new_items.append("t")
            new_tensors.append(t)
        else:
            for part in np.nonzero(mask):
                new_items.append("t")
                new_tensors.append(part.astype(np.int64))
    return new_items, new_tensors


def getitem(x, key):
    """x[key] with NumPy semantics; int indices remove their dim (0-D for full indexing)."""
    index, tensors = encode_index(x, key, "getitem")
    return dispatch(_GETITEM, (x, tensors), {"index": index})


def _value_operand(x, value):
    if isinstance(value, Tensor) or _is_var(value):
        return value
    try:
        return np.asarray(value, dtype=x.dtype.np)
    except (TypeError, ValueError) as e:
        raise TypeError(f"setitem: value must be a number, a nested list or a Tensor, got "
                        f"{type(value).__name__} ({e})") from None


def setitem(x, key, value, accumulate: bool = False):
    """Out-of-place x[key] = value: a new tensor (differentiable w.r.t. x and value)."""
    index, tensors = encode_index(x, key, "setitem")
    return dispatch(_SETITEM, (x, _value_operand(x, value), tensors),
                    {"index": index, "accumulate": bool(accumulate)})


def _tensor_getitem(self, key):
    return getitem(self, key)


def _tensor_setitem(self, key, value) -> None:
    check_inplace(self, "setitem")
    self._rebind(setitem(self._alias(), key, value))


Tensor.__getitem__ = _tensor_getitem
Tensor.__setitem__ = _tensor_setitem


def _int_axis(axis, api: str) -> int:
    if isinstance(axis, Tensor):
        axis = axis.item()
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, (bool, np.bool_)):
        raise TypeError(f"{api}: axis must be an int, got {type(axis).__name__}")
    return int(axis)


def take_along_axis(arr, indices, axis, broadcast=True, name=None):
    """Take values of `arr` at `indices` along `axis`.

    Args:
        arr (Tensor): the source tensor.
        indices (Tensor): int32/int64 indices with arr's number of dims.
        axis (int): the axis to take along.
        broadcast (bool): broadcast indices and arr on the other dims. Default True.

    Returns:
        Tensor: arr's dtype, the (broadcast) shape of indices.
    """
    return dispatch(REGISTRY["take_along_axis"], (arr, indices),
                    {"axis": _int_axis(axis, "take_along_axis"), "broadcast": bool(broadcast)})


def put_along_axis(arr, indices, values, axis, reduce="assign", include_self=True,
                   broadcast=True, name=None):
    """Put `values` into a copy of `arr` at `indices` along `axis`.

    Args:
        arr (Tensor): the destination tensor.
        indices (Tensor): int32/int64 indices with arr's number of dims.
        values (Tensor|float): values broadcast to the indices' shape.
        axis (int): the axis to put along.
        reduce (str): 'assign', 'add', 'mul'/'multiply', 'mean', 'amin' or 'amax'.
        include_self (bool): whether arr's own values take part in the reduction.
        broadcast (bool): broadcast indices to arr on the other dims. Default True.

    Returns:
        Tensor: arr's shape and dtype.
    """
    if not isinstance(values, Tensor) and not _is_var(values):
        values = np.asarray(values, dtype=arr.dtype.np)
    return dispatch(REGISTRY["put_along_axis"], (arr, indices, values),
                    {"axis": _int_axis(axis, "put_along_axis"), "reduce": reduce,
                     "include_self": bool(include_self), "broadcast": bool(broadcast)})

"""Public indexing functions over dispatch, and Tensor.__getitem__ / __setitem__.

Python indices are encoded into the `index` attr of the getitem/setitem ops (see
sampan/ops/indexing.py); array-valued indices travel as tensor inputs. Imports `framework`,
`ops` and `tensor._helpers`.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, is_tensor_or_variable, is_variable, wrap
from ..ops.dispatch import dispatch, spec_of
from ..ops.opdef import AxisError, REGISTRY
from ._helpers import NotTensorError, check_inplace

__all__ = ["take_along_axis", "put_along_axis", "gather", "gather_nd", "scatter",
           "scatter_nd", "scatter_nd_add", "index_select", "index_add", "index_put",
           "index_fill", "take", "masked_fill", "slice", "strided_slice", "one_hot",
           "diagonal", "diagonal_scatter", "select_scatter"]

_pyslice = slice

_GETITEM = REGISTRY["getitem"]
_SETITEM = REGISTRY["setitem"]


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
    if is_tensor_or_variable(k):
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
        elif isinstance(k, _pyslice):
            items.append([_slice_part(k.start, api), _slice_part(k.stop, api),
                          _slice_part(k.step, api)])
        elif isinstance(k, (bool, np.bool_)):
            items.append("t")
            tensors.append(np.asarray(bool(k)))
        elif isinstance(k, (int, np.integer)):
            items.append(int(k))
        elif isinstance(k, (Tensor, list, tuple, range, np.ndarray)) or is_variable(k):
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
    """x[key] with NumPy semantics; int indices remove their dim (0-D for full indexing).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.arange(6).reshape([2, 3])
        >>> x[1, ::-1].tolist(), x[:, [0, 2]].tolist(), x[x > 3].tolist()
        ([5, 4, 3], [[0, 2], [3, 5]], [4, 5])
    """
    index, tensors = encode_index(x, key, "getitem")
    if isinstance(x, Tensor) and x._node is not None:
        # NOTE: the vjp reads only x's shape; a private handle keeps a later in-place
        # change of x (h[0] = ...) from tripping the saved-tensor version check.
        x = x._alias()
    return dispatch(_GETITEM, (x, tensors), {"index": index})


def _value_operand(x, value):
    if is_tensor_or_variable(value):
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

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[1, 2, 3], [4, 5, 6]])
        >>> paddle.take_along_axis(x, paddle.to_tensor([[2], [0]]), axis=1).tolist()
        [[3], [4]]
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

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[1, 2, 3], [4, 5, 6]])
        >>> idx = paddle.to_tensor([[0], [0]])
        >>> paddle.put_along_axis(x, idx, 10, axis=1, reduce="add").tolist()
        [[11, 2, 3], [14, 5, 6]]
    """
    if not is_tensor_or_variable(values):
        values = np.asarray(values, dtype=arr.dtype.np)
    return dispatch(REGISTRY["put_along_axis"], (arr, indices, values),
                    {"axis": _int_axis(axis, "put_along_axis"), "reduce": reduce,
                     "include_self": bool(include_self), "broadcast": bool(broadcast)})


def _op(name: str, *inputs, **attrs):
    return dispatch(REGISTRY[name], inputs, attrs)


def _const(x, value, api: str, arg: str = "value"):
    """A Python scalar operand as an array of x's dtype; Tensors pass through."""
    if is_tensor_or_variable(value):
        return value
    try:
        return np.asarray(value, dtype=x.dtype.np)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{api}: {arg} must be a number or a Tensor, got "
                        f"{type(value).__name__} ({e})") from None


def gather(x, index, axis=None, name=None):
    """Gather the entries of `x` along `axis` at `index`.

    Args:
        x (Tensor): tensor with rank >= 1.
        index (Tensor): 0-D or 1-D int32/int64 indices.
        axis (int|Tensor, optional): the axis to gather along. Default None (0).

    Returns:
        Tensor: x's dtype; x's shape with len(index) on `axis` (axis removed for 0-D index).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[1, 2], [3, 4], [5, 6]])
        >>> paddle.gather(x, paddle.to_tensor([2, 0])).tolist()
        [[5, 6], [1, 2]]
    """
    axis = 0 if axis is None else _int_axis(axis, "gather")
    return _op("gather", x, index, axis=axis)


def index_select(x, index, axis=0, name=None):
    """Select the entries of `x` along `axis` at the 1-D int tensor `index`.

    Returns:
        Tensor: x's dtype; x's shape with len(index) on `axis`.
    """
    if len(getattr(index, "shape", np.shape(index))) != 1:
        raise ValueError(f"index_select: index must be a 1-D tensor, got shape "
                         f"{list(getattr(index, 'shape', np.shape(index)))}")
    return _op("gather", x, index, axis=_int_axis(axis, "index_select"))


def gather_nd(x, index, name=None):
    """Gather slices of `x` addressed by the last dim of `index`.

    Returns:
        Tensor: shape index.shape[:-1] + x.shape[index.shape[-1]:].
    """
    return _op("gather_nd", x, index)


def scatter(x, index, updates, overwrite=True, name=None):
    """Rows `index` of a copy of `x` replaced by (overwrite=True) or set to the sum of
    (overwrite=False) the rows of `updates`.

    Args:
        x (Tensor): tensor with rank >= 1.
        index (Tensor): 1-D int32/int64 row indices.
        updates (Tensor): shape [len(index)] + x.shape[1:].
        overwrite (bool): see above. Default True.

    Returns:
        Tensor: x's shape and dtype.
    """
    return _op("scatter", x, index, updates, overwrite=bool(overwrite))


def scatter_nd_add(x, index, updates, name=None):
    """A copy of `x` with `updates` added at the positions addressed by `index`.

    Returns:
        Tensor: x's shape and dtype.
    """
    return _op("scatter_nd_add", x, index, updates)


def scatter_nd(index, updates, shape, name=None):
    """Zeros of `shape` with `updates` added at the positions addressed by `index`.

    Returns:
        Tensor: updates' dtype, the given shape.
    """
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    return _op("scatter_nd", index, updates, shape=[int(s) for s in shape])


def index_add(x, index, axis, value, alpha=1, name=None):
    """A copy of `x` with `alpha * value` added at `index` along `axis` (alpha: Paddle 3.x).

    Returns:
        Tensor: x's shape and dtype.
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise TypeError(f"index_add: alpha must be an int or float, got {type(alpha).__name__}")
    if alpha != 1:
        value = value * alpha
    return _op("index_add", x, index, value, axis=_int_axis(axis, "index_add"))


def index_put(x, indices, value, accumulate=False, name=None):
    """A copy of `x` with x[indices] = value (or += value when accumulate).

    Args:
        x (Tensor): the destination.
        indices (tuple[Tensor]): int or bool index tensors, one per leading dim of x.
        value (Tensor|float): broadcast to the indexed region.
        accumulate (bool): add instead of assigning. Default False.

    Returns:
        Tensor: x's shape and dtype.
    """
    if not isinstance(indices, (list, tuple)):
        raise TypeError(f"index_put: indices must be a tuple or list of Tensors, got "
                        f"{type(indices).__name__}")
    return setitem(x, tuple(indices), value, accumulate)


def index_fill(x, index, axis, value, name=None):
    """A copy of `x` filled with `value` at `index` (1-D) along `axis`.

    Returns:
        Tensor: x's shape and dtype.
    """
    if not is_tensor_or_variable(index):   # Paddle: ValueError, checked before x
        raise NotTensorError(f"index_fill: index must be a Tensor, got {type(index).__name__}")
    if is_tensor_or_variable(value) and int(np.prod(value.shape)) != 1:
        raise ValueError(f"index_fill: value must be a scalar or a Tensor with one element, "
                         f"got shape {list(value.shape)}")
    axis = _int_axis(axis, "index_fill")
    ndim = len(np.shape(x)) if not is_tensor_or_variable(x) else x.ndim
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise AxisError(f"index_fill: axis {axis} is out of range for a tensor with "
                        f"{ndim} dims")
    if not is_tensor_or_variable(x):
        raise NotTensorError(f"index_fill: x must be a Tensor, got {type(x).__name__}")
    key = (_pyslice(None),) * (axis % max(x.ndim, 1)) + (index,)
    return setitem(x, key, _const(x, value, "index_fill"))


def select_scatter(x, values, axis, index, name=None):
    """A copy of `x` whose slice `index` along `axis` is replaced by `values`.

    Returns:
        Tensor: x's shape and dtype.
    """
    axis = _int_axis(axis, "select_scatter")
    if not -max(x.ndim, 1) <= axis < max(x.ndim, 1):
        raise IndexError(f"select_scatter: axis {axis} is out of range for a tensor with "
                         f"{x.ndim} dims")
    key = (_pyslice(None),) * (axis % max(x.ndim, 1)) + (int(index),)
    return setitem(x, key, values)


def take(x, index, mode="raise", name=None):
    """Entries of the flattened `x` at `index`.

    Args:
        x (Tensor): the source.
        index (Tensor): int32/int64 indices of any shape.
        mode (str): 'raise' (-n <= index < n, else IndexError), 'wrap' or 'clip'.

    Returns:
        Tensor: x's dtype, index's shape.
    """
    if not is_tensor_or_variable(index):  # Paddle takes no NumPy/list indices here
        raise TypeError(f"take: index must be a Tensor, got {type(index).__name__}")
    return _op("take", x, index, mode=mode)


def masked_fill(x, mask, value, name=None):
    """where(mask, value, x) with mask broadcast against x.

    Args:
        x (Tensor): the source.
        mask (Tensor): bool mask broadcastable with x.
        value (float|Tensor): scalar or 0-D tensor.

    Returns:
        Tensor: x's dtype, the broadcast shape.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 2.0, 3.0])
        >>> paddle.masked_fill(x, x > 1.5, 0.0).tolist()
        [1.0, 0.0, 0.0]
    """
    return _op("masked_fill", x, mask, _const(x, value, "masked_fill"))


def _int_list(values, api: str, arg: str) -> list:
    if isinstance(values, Tensor):
        values = values.tolist()
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{api}: {arg} must be a list or tuple, got {type(values).__name__}")
    return [int(v.item()) if isinstance(v, Tensor) else int(v) for v in values]


def _sliced(x, api: str, axes, starts, ends, strides=None):
    axes = _int_list(axes, api, "axes")
    starts = _int_list(starts, api, "starts")
    ends = _int_list(ends, api, "ends")
    strides = [1] * len(axes) if strides is None else _int_list(strides, api, "strides")
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise ValueError(f"{api}: axes, starts, ends (and strides) must have the same "
                         f"length, got {len(axes)}, {len(starts)}, {len(ends)}, "
                         f"{len(strides)}")
    key = [_pyslice(None)] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, strides):
        if not -x.ndim <= a < x.ndim:
            raise IndexError(f"{api}: axis {a} is out of range for a tensor with {x.ndim} "
                             f"dims")
        if st == 0:
            raise ValueError(f"{api}: strides must not be 0")
        key[a % x.ndim] = _pyslice(s, e, st)
    return getitem(x, tuple(key))


def slice(input, axes, starts, ends):
    """input[starts:ends] on each of `axes` (out-of-range bounds are clamped).

    Returns:
        Tensor: input's dtype, same rank.
    """
    return _sliced(input, "slice", axes, starts, ends)


def strided_slice(x, axes, starts, ends, strides, name=None):
    """x[starts:ends:strides] on each of `axes`.

    Returns:
        Tensor: x's dtype, same rank.
    """
    return _sliced(x, "strided_slice", axes, starts, ends, strides)


def one_hot(x, num_classes, name=None):
    """One-hot encoding of the int tensor `x`: float32 of shape x.shape + [num_classes].

    Raises IndexError when an entry of x is outside [0, num_classes).

    Examples:
        >>> import sampan as paddle
        >>> paddle.one_hot(paddle.to_tensor([1, 0]), num_classes=3).tolist()
        [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
    """
    if isinstance(num_classes, Tensor):
        num_classes = num_classes.item()
    if not isinstance(num_classes, (int, np.integer)) or num_classes < 1:
        raise ValueError(f"one_hot: num_classes must be a positive int, got {num_classes!r}")
    return _op("one_hot", x, num_classes=int(num_classes))


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonals of `x` in the planes (axis1, axis2), appended as the last dim.

    Returns:
        Tensor: x's dtype.
    """
    return _op("diagonal", x, offset=int(offset), axis1=int(axis1), axis2=int(axis2))


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """A copy of `x` with the (offset, axis1, axis2) diagonal replaced by `y`.

    Returns:
        Tensor: x's shape and dtype.
    """
    return _op("diagonal_scatter", x, y, offset=int(offset), axis1=int(axis1),
               axis2=int(axis2))

"""Public search and sort functions (paddle.where, paddle.sort, paddle.topk, paddle.unique,
...) over dispatch."""
from __future__ import annotations

import numpy as np

from ..framework import dtype as _dt
from ..framework.tensor import Tensor, is_tensor_or_variable
from ..ops.dispatch import call, dispatch
from ..ops.opdef import REGISTRY
from ._helpers import _PY_SCALARS, check_inplace, require_tensor, scalar_array

__all__ = ["where", "where_", "argmax", "argmin", "argsort", "sort", "topk", "nonzero",
           "masked_select", "masked_scatter", "index_sample", "searchsorted", "bucketize",
           "unique", "unique_consecutive", "histogram", "bincount"]


def _int_arg(api: str, arg: str, value, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, Tensor) and value.size == 1 and value.dtype.kind in "iu":
        return int(value.item())
    if isinstance(value, bool) or not isinstance(value, int):
        if hasattr(value, "__index__") and not isinstance(value, (bool, float)):
            return int(value)
        raise TypeError(f"{api}: {arg} must be an int, got {type(value).__name__}")
    return value


def _where_operands(x, y):
    """Turn scalar x/y into arrays and cast both to their promoted dtype."""
    x_scalar, y_scalar = isinstance(x, _PY_SCALARS), isinstance(y, _PY_SCALARS)
    if x_scalar and y_scalar:
        x, y = Tensor(x), Tensor(y)
    elif x_scalar:
        x = scalar_array(y, x)
    elif y_scalar:
        y = scalar_array(x, y)
    dx, dy = _dtype_of(x), _dtype_of(y)
    if dx is not dy:
        target = _dt.promote_types(dx, dy)
        x = x if dx is target else call("cast", x, dtype=target.name)
        y = y if dy is target else call("cast", y, dtype=target.name)
    return x, y


def _dtype_of(v):
    if is_tensor_or_variable(v):
        return _dt.convert_dtype(v.dtype)
    if hasattr(v, "dtype"):
        return _dt.from_numpy(v.dtype)
    raise TypeError(f"where: x and y must be Tensors or scalars, got {type(v).__name__}")


def where(condition, x=None, y=None, name=None):
    """Elementwise select: x where condition is True, else y (all three broadcast).

    With only `condition`, returns `nonzero(condition, as_tuple=True)`.

    Args:
        condition (Tensor): bool tensor.
        x (Tensor|scalar): values where condition is True.
        y (Tensor|scalar): values where condition is False.
    Returns:
        Tensor: the broadcast shape, the promoted dtype of x and y.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0.9, 0.1, 3.2])
        >>> paddle.where(x > 1, x, paddle.zeros_like(x)).tolist()  # doctest: +SKIP
        [0.0, 0.0, 3.200000047683716]
    """
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise ValueError("where: x and y must both be given, or neither (then where "
                         "returns the nonzero indices of condition)")
    x, y = _where_operands(x, y)
    return dispatch(REGISTRY["where"], (condition, x, y))


def where_(condition, x=None, y=None, name=None):
    """In-place `where`: writes the result into x and returns it."""
    if x is None or y is None or not hasattr(x, "shape") or not hasattr(y, "shape"):
        raise ValueError(f"where_: x and y must both be given as Tensors (x is updated in "
                         f"place), got {type(x).__name__} and {type(y).__name__}")
    check_inplace(x, "where_")
    result = where(condition, x._alias(), y)
    if result.shape != x.shape:
        raise ValueError(f"where_: the result shape {list(result.shape)} differs from x's shape "
                         f"{list(x.shape)}; an in-place op cannot change the shape of x")
    if result.dtype is not x.dtype:
        result = call("cast", result, dtype=x.dtype.name)
    return x._rebind(result)


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Indices of the maximum values along `axis` (None: of the flattened x).

    Args:
        x (Tensor): input.
        axis (int, optional): the axis; None flattens x. Default None.
        keepdim (bool): keep the reduced axis as size 1. Default False.
        dtype (str): int32 or int64. Default int64.
    Returns:
        Tensor: the indices; 0-D when axis is None and not keepdim.
    """
    axis = _int_arg("argmax", "axis", axis, allow_none=True)
    return dispatch(REGISTRY["argmax"], (x,), {"axis": axis, "keepdim": bool(keepdim),
                                                "dtype": _dt.convert_dtype(dtype).name})


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """Indices of the minimum values along `axis` (None: of the flattened x); see argmax."""
    axis = _int_arg("argmin", "axis", axis, allow_none=True)
    return dispatch(REGISTRY["argmin"], (x,), {"axis": axis, "keepdim": bool(keepdim),
                                                "dtype": _dt.convert_dtype(dtype).name})


def _sort_attrs(api, axis, descending, stable) -> dict:
    return {"axis": _int_arg(api, "axis", axis), "descending": bool(descending),
            "stable": bool(stable)}


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """Indices (int64) that sort x along `axis`; equal elements keep their order.

    Args:
        x (Tensor): input.
        axis (int): the axis to sort along. Default -1.
        descending (bool): sort from largest to smallest. Default False.
        stable (bool): accepted for Paddle compatibility; sorting is always stable.
    Returns:
        Tensor: int64, x's shape.
    """
    return dispatch(REGISTRY["argsort"], (x,), _sort_attrs("argsort", axis, descending, stable))


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """x sorted along `axis` (see argsort). Returns a Tensor of x's shape and dtype."""
    return dispatch(REGISTRY["sort"], (x,), _sort_attrs("sort", axis, descending, stable))[0]


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """The k largest (or smallest) elements along `axis` and their indices.

    Args:
        x (Tensor): input.
        k (int|Tensor): how many elements to take.
        axis (int, optional): the axis; None means -1. Default None.
        largest (bool): take the largest (True) or the smallest. Default True.
        sorted (bool): results are always sorted; accepted for compatibility.
    Returns:
        tuple: (values, indices int64), the shape of x with `axis` of size k.
    """
    attrs = {"k": _int_arg("topk", "k", k), "axis": -1 if axis is None else
             _int_arg("topk", "axis", axis), "largest": bool(largest), "sorted": bool(sorted)}
    return dispatch(REGISTRY["topk"], (x,), attrs)


def nonzero(x, as_tuple=False):
    """Coordinates of the nonzero elements of x.

    Returns:
        Tensor: int64 [z, ndim] (as_tuple=False), or (Paddle 3) a tuple of ndim int64 [z]
        tensors, one per dimension, ready for indexing.

    Examples:
        >>> import sampan as paddle
        >>> rows, cols = paddle.nonzero(paddle.to_tensor([[1, 0], [0, 3]]), as_tuple=True)
        >>> rows
        Tensor(shape=[2], dtype=int64, place=Place(cpu), stop_gradient=True,
               [0, 1])
    """
    if as_tuple and len(x.shape) == 0:
        raise ValueError("paddle.nonzero: x must have at least 1 dimension when "
                         "as_tuple=True, got a 0-D tensor")
    out = dispatch(REGISTRY["nonzero"], (x,))
    if not as_tuple:
        return out
    return tuple(_columns(out))


def _columns(out):
    """The n columns of a [z, n] tensor as [z] tensors (masked_select of one column)."""
    n = out.shape[1]
    cols = []
    for i in range(n):
        mask = Tensor([[j == i for j in range(n)]])
        cols.append(call("masked_select", out, mask))
    return cols


def masked_select(x, mask, name=None):
    """1-D tensor of the elements of x where the bool `mask` is True (x and mask
    broadcast)."""
    return dispatch(REGISTRY["masked_select"], (x, mask))


def masked_scatter(x, mask, value, name=None):
    """x with the positions where `mask` is True filled, in order, by elements of value.

    Args:
        x (Tensor): input (broadcast with mask).
        mask (Tensor): bool tensor.
        value (Tensor): x's dtype, at least as many elements as mask has True values.
    Returns:
        Tensor: the broadcast shape of x and mask.
    """
    return dispatch(REGISTRY["masked_scatter"], (x, mask, value))


def index_sample(x, index):
    """out[i, j] = x[i, index[i, j]] for 2-D x [N, M] and int32/int64 index [N, K]."""
    return dispatch(REGISTRY["index_sample"], (x, index))


def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None, *,
                 side=None, sorter=None):
    """Indices at which `values` would be inserted into the innermost dim of
    `sorted_sequence` to keep it sorted.

    Args:
        sorted_sequence (Tensor): 1-D, or N-D with the leading dims of values.
        values (Tensor): the values to place.
        out_int32 (bool): int32 output instead of int64. Default False.
        right (bool): the last suitable index instead of the first. Default False.
        side (str, optional): 'left' or 'right' (Paddle 3.x); 'right' is right=True.
        sorter (Tensor, optional): int indices that sort an unsorted `sorted_sequence` along
            its innermost dim (Paddle 3.x); the returned indices refer to the sorted order.
    Returns:
        Tensor: values' shape.
    """
    if side not in (None, "left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    right = bool(right) or side == "right"  # Paddle: either one asks for the right side
    if sorter is not None:
        require_tensor("searchsorted", "sorter", sorter)
        if list(sorter.shape) != list(sorted_sequence.shape) or sorter.dtype.kind not in "iu":
            raise ValueError(f"searchsorted: sorter must be an int tensor shaped like "
                             f"sorted_sequence {list(sorted_sequence.shape)}, got "
                             f"{sorter.dtype.name} {list(sorter.shape)}")
        sorted_sequence = call("take_along_axis", sorted_sequence, sorter, axis=-1)
    return dispatch(REGISTRY["searchsorted"], (sorted_sequence, values),
                    {"out_int32": bool(out_int32), "right": bool(right)})


def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None):
    """Index of the bucket of each element of x given 1-D bucket boundaries
    `sorted_sequence` (searchsorted with the arguments swapped)."""
    require_tensor("bucketize", "x", x)   # Paddle: ValueError for a NumPy x
    if len(sorted_sequence.shape) != 1:
        raise ValueError(f"bucketize: sorted_sequence must be 1-D, got shape "
                         f"{list(sorted_sequence.shape)}")
    return searchsorted(sorted_sequence, x, out_int32, right)


def _unique_axis(api, x, axis):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        if len(axis) != 1:
            raise ValueError(f"{api}: axis must be an int or a list of one int, got {axis}")
        axis = axis[0]
    return _int_arg(api, "axis", axis)


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype="int64", sorted=True, name=None):
    """Sorted unique elements of x (or unique slices along `axis`).

    Args:
        x (Tensor): input.
        return_index (bool): also return the index of each unique value's first occurrence.
        return_inverse (bool): also return, for each element, the index of its unique value.
        return_counts (bool): also return how often each unique value occurs.
        axis (int, optional): unique slices along this axis; None flattens. Default None.
        dtype (str): int32 or int64 for the index outputs. Default int64.
        sorted (bool): Paddle 3.x's flag; the result is sorted either way (as Paddle 3.3.1
            returns it on the CPU).
    Returns:
        Tensor, or a tuple (out, [index], [inverse], [counts]) when any flag is set.
    """
    if not isinstance(sorted, (bool, np.bool_)):
        raise TypeError(f"unique: sorted must be a bool, got {type(sorted).__name__}")
    attrs = {"axis": _unique_axis("unique", x, axis), "dtype": _dt.convert_dtype(dtype).name}
    out, index, inverse, counts = dispatch(REGISTRY["unique"], (x,), attrs)
    extra = [t for t, flag in ((index, return_index), (inverse, return_inverse),
                               (counts, return_counts)) if flag]
    return tuple([out] + extra) if extra else out


def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None,
                       dtype="int64", name=None):
    """x with consecutive repeated elements (or slices along `axis`) collapsed.

    Returns:
        Tensor, or a tuple (out, [inverse], [counts]) when any flag is set.
    """
    attrs = {"axis": _unique_axis("unique_consecutive", x, axis),
             "dtype": _dt.convert_dtype(dtype).name}
    out, inverse, counts = dispatch(REGISTRY["unique_consecutive"], (x,), attrs)
    extra = [t for t, flag in ((inverse, return_inverse), (counts, return_counts)) if flag]
    return tuple([out] + extra) if extra else out


def histogram(input, bins=100, min=0, max=0, weight=None, density=False, name=None):
    """Histogram of input with `bins` equal-width bins over [min, max].

    Args:
        input (Tensor): data.
        bins (int): number of bins. Default 100.
        min (float), max (float): the range; both 0 means the data's min and max.
        weight (Tensor, optional): per-element weights (input's shape).
        density (bool): normalize to a probability density. Default False.
    Returns:
        Tensor: [bins]; int64 counts, or float when weight or density is given.
    """
    for arg, value in (("min", min), ("max", max)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"histogram: {arg} must be a number, got {type(value).__name__}")
    attrs = {"bins": _int_arg("histogram", "bins", bins), "min": float(min),
             "max": float(max), "density": bool(density)}
    return dispatch(REGISTRY["histogram"], (input, weight), attrs)


def bincount(x, weights=None, minlength=0, name=None):
    """Count occurrences of each value in the non-negative int 1-D x.

    Args:
        x (Tensor): 1-D int tensor.
        weights (Tensor, optional): per-element weights (x's shape).
        minlength (int): minimum output length. Default 0.
    Returns:
        Tensor: 1-D, length max(max(x) + 1, minlength); int64, or weights' dtype.
    """
    return dispatch(REGISTRY["bincount"], (x, weights),
                    {"minlength": _int_arg("bincount", "minlength", minlength)})

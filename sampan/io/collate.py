"""Collation: merge a list of samples into a batch of NumPy arrays, and turn arrays into
Tensors in the main process. Imports framework only.

Collate functions produce NumPy arrays (picklable, shared-memory friendly); the loader
converts every array of the final batch into a Tensor, as Paddle's DataLoader does.
"""
from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..framework import dtype as _dt
from ..framework import place as _place
from ..framework.tensor import Tensor, to_array, wrap


def _number_array(batch: list) -> np.ndarray:
    sample = batch[0]
    if isinstance(sample, np.generic):
        return np.array(batch)
    if isinstance(sample, bool):
        return np.array(batch, dtype=np.bool_)
    if isinstance(sample, numbers.Integral):
        return np.array(batch, dtype=np.int64)
    if isinstance(sample, numbers.Real):
        return np.array(batch, dtype=np.float64)  # Paddle: np.array of Python floats
    return np.array(batch)


def default_collate_fn(batch: list) -> Any:
    """Merge a list of samples into one batch, field by field (recursively).

    NumPy arrays and Tensors are stacked on a new axis 0 (as NumPy arrays); Python ints
    become int64, floats float64 (as Paddle's np.array), bools bool; strings and bytes
    stay a list; dicts collate per key; lists/tuples collate per position into a list.

    Args:
        batch (list): the samples of one mini-batch.

    Returns:
        the collated batch, with NumPy arrays where the samples had numbers or arrays.

    Examples:
        >>> import numpy as np
        >>> from sampan.io import default_collate_fn
        >>> out = default_collate_fn([(np.zeros(2), 1), (np.ones(2), 2)])
        >>> out[0].shape, out[1].dtype
        ((2, 2), dtype('int64'))
    """
    return _collate(batch, "")


def _collate(batch: list, field: str) -> Any:
    """default_collate_fn on one field; `field` spells its place in a sample ('[0]')."""
    sample = batch[0]
    if isinstance(sample, (np.ndarray, Tensor)):
        arrays = [t._data if isinstance(t, Tensor) else t for t in batch]
        _check_same_shape(arrays, field)
        return np.stack(arrays, axis=0)
    if isinstance(sample, (numbers.Number, np.generic)) and not isinstance(sample, (str,
                                                                                     bytes)):
        return _number_array(batch)
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, Mapping):
        return {key: _collate([d[key] for d in batch], f"{field}[{key!r}]") for key in sample}
    if isinstance(sample, Sequence):
        width = len(sample)
        if any(len(s) != width for s in batch):
            raise RuntimeError(f"default_collate_fn: fields number not same among samples in "
                               f"a batch, got {[len(s) for s in batch]}")
        return [_collate(list(fields), f"{field}[{i}]") for i, fields in enumerate(zip(*batch))]
    raise TypeError(f"default_collate_fn: batch data can only contains: Tensor, numpy.ndarray, "
                    f"dict, list, number, str, bytes, but got {type(sample).__name__}")


def _check_same_shape(arrays: list, field: str) -> None:
    shapes = [list(a.shape) for a in arrays]
    if any(s != shapes[0] for s in shapes):
        where = f"field sample{field}" if field else "the samples"
        raise ValueError(f"default_collate_fn: cannot stack {where} into a batch: the shapes "
                         f"differ between samples, got {shapes}. Variable-length samples "
                         f"need a collate_fn that pads (or packs) them: "
                         f"DataLoader(..., collate_fn=my_collate), or pad them to one shape "
                         f"in the Dataset.")


def default_convert_fn(batch: Any) -> Any:
    """The collate function used when `batch_size=None`: keep one sample as it is, with
    Tensors as arrays and sequences as lists (no stacking).

    Examples:
        >>> from sampan.io import default_convert_fn
        >>> default_convert_fn((1, 'a'))
        [1, 'a']
    """
    if isinstance(batch, Tensor):
        return batch._data
    if isinstance(batch, (np.ndarray, str, bytes)):
        return batch
    if isinstance(batch, Mapping):
        return {key: default_convert_fn(batch[key]) for key in batch}
    if isinstance(batch, Sequence):
        return [default_convert_fn(d) for d in batch]
    return batch


def to_numpy_tree(data: Any) -> Any:
    """Replace every Tensor in a nested batch by its array (for transport between processes)."""
    if isinstance(data, Tensor):
        return data._data
    if isinstance(data, dict):
        return {k: to_numpy_tree(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [to_numpy_tree(v) for v in data]
    return data


def to_tensor_tree(data: Any, place=None) -> Any:
    """Replace every NumPy array in a nested batch by a Tensor; lists/tuples become lists.
    With a device `place` (a GPU) the arrays, and host Tensors, are copied there."""
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "OUSV":
            return data
        arr = data if data.dtype in _dt._BY_NP else to_array(data)
        return wrap(arr if place is None else _place.move(arr, place))
    if isinstance(data, Tensor):
        if place is None or _place.is_device_array(data._data):
            return data
        return wrap(_place.move(data._data, place))
    if isinstance(data, dict):
        return {k: to_tensor_tree(v, place) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [to_tensor_tree(v, place) for v in data]
    return data

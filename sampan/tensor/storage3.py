"""Paddle 3.x Tensor methods over a tensor's storage: resize_, set_ (share another tensor's
buffer through a shape/stride/offset view), _is_shared_buffer_with, dense_dim. Bound onto
Tensor through compat3_methods.METHODS. Imports `framework` and sibling tensor modules.

NOTE: sampan's in-place writes (x[i] = v, add_, ...) rebind a tensor to a new array, so a
buffer shared by set_ stays shared until the first such write.
"""
from __future__ import annotations

import numbers

import numpy as np

from ._helpers import check_inplace


def _int_list(api: str, arg: str, value) -> list:
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        raise TypeError(f"{api}: {arg} must be a list or tuple of ints, got {value!r}")
    return [int(v) for v in value]


def _replace(x, data):
    """x now holds `data`: a new value outside the autograd graph, version bumped."""
    x._data = data
    x._node = None
    x._out_idx = 0
    x._version += 1
    return x


def resize_(self, shape, fill_zero: bool = False, name=None):
    """Resize x in place to `shape`, keeping its elements in flat order: cut when smaller,
    extended when larger (with zeros; Paddle leaves the new elements undetermined unless
    fill_zero). Returns x.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1., 2., 3.])
        >>> x.resize_([2, 3], fill_zero=True).tolist()
        [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
    """
    check_inplace(self, "resize_")
    dims = _int_list("resize_", "shape", shape)
    if any(d < 0 for d in dims):
        raise ValueError(f"resize_: shape must not hold negative sizes, got {dims}")
    n = int(np.prod(dims))
    flat = self._data.reshape(-1)
    if n <= flat.size:
        data = flat[:n].copy()
    else:
        data = np.concatenate([flat, np.zeros(n - flat.size, flat.dtype)])
    return _replace(self, data.reshape(dims))


def _contiguous_stride(dims: list) -> list:
    stride, step = [], 1
    for d in reversed(dims):
        stride.append(step)
        step *= max(d, 1)
    return stride[::-1]


def set_(self, source=None, shape=None, stride=None, offset: int = 0, name=None):
    """Make x a view of `source`'s buffer with `shape` (default source's), `stride` in
    elements (default: source's when shape is None, else contiguous for shape) and `offset`
    in bytes; with no source, x becomes an empty tensor of its dtype. Returns x.

    Unlike Paddle, which reinterprets memory, a dtype other than x's and a view reaching
    past the end of source's buffer are refused.

    Examples:
        >>> import sampan as paddle
        >>> src = paddle.to_tensor([11., 22., 33., 44., 55., 66.])
        >>> x = paddle.to_tensor([1., 2., 3., 4., 5.])
        >>> x.set_(src, shape=[3], stride=[2]).tolist()
        [11.0, 33.0, 55.0]
        >>> x.set_(src, shape=[5], offset=4).tolist()
        [22.0, 33.0, 44.0, 55.0, 66.0]
    """
    check_inplace(self, "set_")
    if source is None:
        return _replace(self, np.zeros((0,), self._data.dtype))
    if source._data.dtype != self._data.dtype:
        raise TypeError(f"set_: source must have x's dtype {self.dtype.name}, got "
                        f"{source.dtype.name}")
    if shape is None and stride is None and offset == 0:
        return _replace(self, source._data)
    dims = list(source.shape) if shape is None else _int_list("set_", "shape", shape)
    steps = (_contiguous_stride(dims) if stride is None else
             _int_list("set_", "stride", stride))
    if len(steps) != len(dims) or any(s < 0 for s in steps) or any(d < 0 for d in dims):
        raise ValueError(f"set_: shape {dims} and stride {steps} must be as long as each "
                         f"other and non-negative")
    base = np.ascontiguousarray(source._data).reshape(-1)
    item = base.dtype.itemsize
    if not isinstance(offset, numbers.Integral) or offset < 0 or offset % item:
        raise ValueError(f"set_: offset must be a non-negative multiple of the element "
                         f"size {item} (bytes), got {offset!r}")
    start = offset // item
    last = start + sum((d - 1) * s for d, s in zip(dims, steps)) if all(dims) else start - 1
    if last >= base.size:
        raise ValueError(f"set_: shape {dims}, stride {steps} and offset {offset} reach "
                         f"element {last} of a source holding {base.size}")
    view = np.lib.stride_tricks.as_strided(base[start:], dims, [s * item for s in steps])
    return _replace(self, view)


def _is_shared_buffer_with(self, other) -> bool:
    """Whether x and other may hold the same memory."""
    return bool(np.may_share_memory(self._data, other._data))


def dense_dim(self) -> int:
    """The number of dense dims: all of them for a dense tensor."""
    return self._data.ndim


METHODS = {"resize_": resize_, "set_": set_, "_is_shared_buffer_with": _is_shared_buffer_with,
           "dense_dim": dense_dim}

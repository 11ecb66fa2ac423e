"""Public shape-manipulation functions (reshape, transpose, concat, split, pad, ...).

Paddle signatures over dispatch; Python arguments (lists that may hold Tensors, Tensor
axes) become plain attrs here. Composites (chunk, unbind, rot90, tensordot, ...) are short
combinations of the primitives in ops/manipulation*.py. This module owns the argument
helpers, reshaping, permuting, complex views/cast, tensordot and shard_index; the join/split/
broadcast functions (manipulation_join.py) and flip/roll/pad/crop/unfold
(manipulation_reorder.py) are re-exported at the bottom. Imports `framework` and `ops`.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from ..framework.tensor import Tensor, is_tensor_or_variable, is_variable, to_array, wrap
from ..ops.dispatch import call, dispatch
from ..ops.manipulation import axis_list
from ..ops.opdef import REGISTRY, norm_axis
from ._helpers import check_inplace, known_value

__all__ = [
    "reshape", "reshape_", "flatten", "flatten_", "squeeze", "squeeze_", "unsqueeze",
    "unsqueeze_", "transpose", "transpose_", "moveaxis", "t", "t_", "concat", "stack",
    "split", "tensor_split", "chunk", "unbind", "unstack", "vsplit", "hsplit", "dsplit",
    "tile", "expand", "expand_as", "broadcast_to", "broadcast_tensors", "broadcast_shape",
    "flip", "reverse", "roll", "rot90", "pad", "crop", "repeat_interleave", "as_complex",
    "as_real", "view", "view_as", "unflatten", "tensordot", "unfold", "atleast_1d",
    "atleast_2d", "atleast_3d", "shard_index", "cast", "cast_", "hstack", "vstack",
    "dstack", "column_stack", "row_stack",
]

_OPS = {name: REGISTRY[name] for name in (
    "reshape", "squeeze", "unsqueeze", "flatten", "transpose", "concat", "stack", "split",
    "tile", "expand", "expand_as", "flip", "roll", "pad", "crop", "repeat_interleave",
    "as_complex", "as_real", "view", "unfold", "shard_index", "cast")}


def _op(name: str, *inputs, **attrs):
    return dispatch(_OPS[name], inputs, attrs)


# --- argument conversion -------------------------------------------------------------------

def _to_int(api: str, arg: str, value) -> int:
    if isinstance(value, Tensor) or is_variable(value):
        value = known_value(api, arg, value)
        if value.size != 1:
            raise ValueError(f"{api}: {arg} given as a Tensor must hold one value, got shape "
                             f"{list(value.shape)}")
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"{api}: {arg} must be an int, got {type(value).__name__}")
    return int(value)


def _int_list(api: str, arg: str, value) -> list:
    """An int, a list/tuple of ints or 1-element Tensors, or a 1-D Tensor, as a list."""
    if isinstance(value, Tensor) or is_variable(value):
        return [int(v) for v in known_value(api, arg, value).reshape(-1).tolist()]
    if isinstance(value, (list, tuple)):
        return [_to_int(api, arg, v) for v in value]
    return [_to_int(api, arg, value)]


def _shape_list(api: str, shape) -> list:
    if not isinstance(shape, (list, tuple, Tensor)) and not isinstance(shape, int):
        raise TypeError(f"{api}: shape must be a list, tuple or Tensor, got "
                        f"{type(shape).__name__}")
    return _int_list(api, "shape", shape)


def _as_tensor(value) -> Tensor:
    return value if is_tensor_or_variable(value) else wrap(to_array(value))


def _tensor_list(api: str, x) -> list:
    if isinstance(x, Tensor) or not isinstance(x, (list, tuple)):
        raise TypeError(f"{api}: x must be a list or tuple of Tensors, got "
                        f"{type(x).__name__}")
    return list(x)


def _inplace(api: str, fn, x, *args, **kwargs):
    """Shape-changing in-place op: compute on an alias of x, then make x hold the result."""
    check_inplace(x, api)
    return x._rebind(fn(x._alias(), *args, **kwargs))


# --- reshaping -----------------------------------------------------------------------------

def reshape(x, shape, name=None):
    """x with a new shape.

    Args:
        x (Tensor): input.
        shape (list|tuple|Tensor): new shape; entries may be ints or 1-element Tensors.
            0 copies the input dim at that position, one -1 is inferred.
    Returns:
        Tensor with the same data as x.
    """
    if _holds_variable(shape):
        return _reshape_runtime("reshape", x, shape)
    return _op("reshape", x, shape=_shape_list("reshape", shape))


def _holds_variable(shape) -> bool:
    return is_variable(shape) or isinstance(shape, (list, tuple)) and any(
        is_variable(d) for d in shape)


def _reshape_runtime(api: str, x, shape, prefix=(), suffix=(), op: str = "_reshape_dims"):
    """reshape (or another `op` with shape/slots attrs: _expand_dims) to prefix + shape +
    suffix where `shape` is a 1-D int Variable or a list holding 1-element int Variables:
    those dims are read when the Program runs."""
    from .creation import _check_shape_var
    entries = [shape] if is_variable(shape) else list(shape)
    dims, slots, tensors = list(prefix), [], []
    for d in entries:
        if is_variable(d):
            _check_shape_var(api, d, whole=d is shape)
            n = d.shape[0] if d is shape else 1
            slots += range(len(dims), len(dims) + n)
            dims += [-1] * n
            tensors.append(d)
        else:
            dims.append(_to_int(api, "shape", d))
    return dispatch(REGISTRY[op], (x, tensors),
                    {"shape": dims + list(suffix), "slots": slots})


def reshape_(x, shape, name=None):
    """In-place reshape: x takes the new shape and is returned."""
    return _inplace("reshape_", reshape, x, shape)


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """Merge dims start_axis..stop_axis (inclusive) into one.

    Args:
        x (Tensor): input; a 0-D x gives shape [1].
        start_axis (int): first dim to merge. Default 0.
        stop_axis (int): last dim to merge. Default -1.
    Returns:
        Tensor.
    """
    return _op("flatten", x, start_axis=_to_int("flatten", "start_axis", start_axis),
               stop_axis=_to_int("flatten", "stop_axis", stop_axis))


def flatten_(x, start_axis=0, stop_axis=-1, name=None):
    """In-place flatten."""
    return _inplace("flatten_", flatten, x, start_axis, stop_axis)


def squeeze(x, axis=None, name=None):
    """Remove size-1 dims.

    Args:
        x (Tensor): input.
        axis (int|list|tuple|Tensor, optional): dims to remove; listed dims whose size is
            not 1 are kept. None removes every size-1 dim.
    Returns:
        Tensor.
    """
    axes = None if axis is None else _int_list("squeeze", "axis", axis)
    return _op("squeeze", x, axis=axes)


def squeeze_(x, axis=None, name=None):
    """In-place squeeze."""
    return _inplace("squeeze_", squeeze, x, axis)


def unsqueeze(x, axis, name=None):
    """Insert size-1 dims.

    Args:
        x (Tensor): input.
        axis (int|list|tuple|Tensor): positions of the new dims, applied one after another.
    Returns:
        Tensor.
    """
    return _op("unsqueeze", x, axis=_int_list("unsqueeze", "axis", axis))


def unsqueeze_(x, axis, name=None):
    """In-place unsqueeze."""
    return _inplace("unsqueeze_", unsqueeze, x, axis)


def unflatten(x, axis, shape, name=None):
    """Split dim `axis` of x into `shape` (one entry may be -1)."""
    ax = norm_axis("unflatten", _to_int("unflatten", "axis", axis), len(x.shape))
    if _holds_variable(shape):   # prefix dims copied (0), suffix dims as x has them
        return _reshape_runtime("unflatten", x, shape, [0] * ax, list(x.shape[ax + 1:]))
    dims = _shape_list("unflatten", shape)
    if not dims:
        raise ValueError("unflatten: shape must not be empty")
    new = list(x.shape[:ax]) + dims + list(x.shape[ax + 1:])
    if -1 not in dims and math.prod(dims) != x.shape[ax]:
        raise ValueError(f"unflatten: shape {dims} has {math.prod(dims)} elements but dim "
                         f"{ax} of x (shape {list(x.shape)}) is {x.shape[ax]}")
    return _op("reshape", x, shape=new)


def view(x, shape_or_dtype, name=None):
    """x with a new shape (list/tuple, reshape rules) or its bytes read as another dtype."""
    if isinstance(shape_or_dtype, (list, tuple, Tensor)):
        return reshape(x, shape_or_dtype)
    return _op("view", x, dtype=_dt.convert_dtype(shape_or_dtype).name)


def view_as(x, other, name=None):
    """x reshaped to other's shape."""
    return reshape(x, list(other.shape))


def _atleast(api: str, ndim: int, inputs):
    outs = []
    for v in inputs:
        v = _as_tensor(v)
        shape = list(v.shape)
        if len(shape) < ndim:
            if ndim == 3 and len(shape) == 2:
                shape = shape + [1]
            elif ndim == 3 and len(shape) == 1:
                shape = [1] + shape + [1]
            else:
                shape = [1] * (ndim - len(shape)) + shape
            v = _op("reshape", v, shape=shape)
        outs.append(v)
    return outs[0] if len(outs) == 1 else outs


def atleast_1d(*inputs, name=None):
    """Each input viewed with at least 1 dim (one Tensor in, one out; else a list)."""
    return _atleast("atleast_1d", 1, inputs)


def atleast_2d(*inputs, name=None):
    """Each input viewed with at least 2 dims: [n] -> [1, n]."""
    return _atleast("atleast_2d", 2, inputs)


def atleast_3d(*inputs, name=None):
    """Each input viewed with at least 3 dims: [n] -> [1, n, 1], [m, n] -> [m, n, 1]."""
    return _atleast("atleast_3d", 3, inputs)


# --- permuting -----------------------------------------------------------------------------

def transpose(x, perm, name=None):
    """Permute the dims of x: out.shape[i] = x.shape[perm[i]].

    Args:
        x (Tensor): input.
        perm (list|tuple): a permutation of range(x.ndim).
    Returns:
        Tensor.
    """
    if not isinstance(perm, (list, tuple, Tensor)):
        raise TypeError(f"transpose: perm must be a list or tuple, got {type(perm).__name__}")
    return _op("transpose", x, perm=_int_list("transpose", "perm", perm))


def transpose_(x, perm, name=None):
    """In-place transpose."""
    return _inplace("transpose_", transpose, x, perm)


def moveaxis(x, source, destination, name=None):
    """Move dims `source` of x to positions `destination`; the other dims keep their order."""
    ndim = len(x.shape)
    src = axis_list("moveaxis", _int_list("moveaxis", "source", source), ndim, "source")
    dst = axis_list("moveaxis", _int_list("moveaxis", "destination", destination), ndim,
                    "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {src} and destination {dst} must have the same "
                         f"number of dims")
    perm = [i for i in range(ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return _op("transpose", x, perm=perm)


def t(input, name=None):  # noqa: A002  (Paddle's argument name)
    """Transpose of a tensor with at most 2 dims (0-D and 1-D come back unchanged)."""
    ndim = len(input.shape)
    if ndim > 2:
        raise ValueError(f"t: input must have at most 2 dims, got shape {list(input.shape)}; use "
                         f"paddle.transpose")
    if ndim < 2:
        return input
    return _op("transpose", input, perm=[1, 0])


def t_(input, name=None):  # noqa: A002
    """In-place t."""
    return _inplace("t_", t, input)


# --- complex views and dtype ---------------------------------------------------------------

def as_complex(x, name=None):
    """A float tensor with last dim 2 (real, imag) as a complex tensor."""
    return _op("as_complex", x)


def as_real(x, name=None):
    """A complex tensor as a float tensor with a trailing dim 2 (real, imag)."""
    return _op("as_real", x)


def cast(x, dtype):
    """x converted to `dtype` (str, paddle dtype or numpy dtype)."""
    return _op("cast", x, dtype=_dt.convert_dtype(dtype).name)


def cast_(x, dtype):
    """In-place cast: x takes the new dtype and is returned."""
    return _inplace("cast_", cast, x, dtype)


# --- contraction and sharding --------------------------------------------------------------

class _AxesError(AssertionError, ValueError):
    """A negative int `axes` of tensordot (Paddle raises AssertionError)."""


def _non_negative(dims: list) -> list:
    if any(d < 0 for d in dims):   # Paddle asserts every listed axis is >= 0
        raise _AxesError(f"tensordot: every dim listed in axes must be non-negative, got "
                         f"{dims}")
    return dims


def _fits(dims: list, ndim: int) -> list:
    if len(dims) > ndim:   # Paddle asserts: no more contracted dims than the tensor has
        raise _AxesError(f"tensordot: axes lists {len(dims)} dims {dims} for a {ndim}-D "
                         f"tensor")
    return dims


def _tensordot_axes(axes, nx: int, ny: int):
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, int):
        if axes < 0:   # Paddle asserts; ValueError is what sampan raised before
            raise _AxesError(f"tensordot: an int axes must be non-negative, got {axes}")
        if axes > min(nx, ny):
            raise IndexError(f"tensordot: axes={axes} contracts more dims than x ({nx}-D) or "
                             f"y ({ny}-D) has")
        return list(range(nx - axes, nx)), list(range(axes))
    if not isinstance(axes, (list, tuple)) or not axes:
        raise TypeError(f"tensordot: axes must be an int, list, tuple or Tensor, got {axes!r}")
    if all(isinstance(a, int) for a in axes):
        dims = _non_negative(list(axes))
        return _fits(dims, nx), _fits(dims, ny)
    seqs = [_non_negative(_int_list("tensordot", "axes", a)) for a in axes[:2]]
    ax_x, ax_y = seqs[0], seqs[1] if len(seqs) > 1 else seqs[0]
    if len(ax_x) < len(ax_y):
        ax_x = ax_x + ax_y[len(ax_x):]
    elif len(ax_y) < len(ax_x):
        ax_y = ax_y + ax_x[len(ax_y):]
    return _fits(ax_x, nx), _fits(ax_y, ny)


def tensordot(x, y, axes=2, name=None):
    """Sum of products of x and y over the contracted `axes`.

    Args:
        x, y (Tensor): inputs of the same dtype.
        axes (int|list|tuple|Tensor): n (last n dims of x with first n of y), a list of
            dims used for both, or [dims_x, dims_y] (the shorter is extended by the longer).
    Returns:
        Tensor of shape free dims of x + free dims of y.
    """
    sx, sy = list(x.shape), list(y.shape)
    ax_x, ax_y = _tensordot_axes(axes, len(sx), len(sy))
    ax_x = axis_list("tensordot", ax_x, len(sx), "axes of x")
    ax_y = axis_list("tensordot", ax_y, len(sy), "axes of y")
    for a, b in zip(ax_x, ax_y):
        if sx[a] != sy[b]:
            if sx[a] == 1:  # broadcast: x is constant along a, so sum y there first
                y = call("sum", y, axis=[b], keepdim=True, dtype=None)
                sy[b] = 1
            elif sy[b] == 1:
                x = call("sum", x, axis=[a], keepdim=True, dtype=None)
                sx[a] = 1
            else:
                raise ValueError(f"tensordot: dim {a} of x (shape {list(x.shape)}) and dim "
                                 f"{b} of y (shape {list(y.shape)}) differ: {sx[a]} vs "
                                 f"{sy[b]}")
    free_x = [i for i in range(len(sx)) if i not in ax_x]
    free_y = [i for i in range(len(sy)) if i not in ax_y]
    k = math.prod(sx[a] for a in ax_x)
    m = math.prod(sx[i] for i in free_x)
    n = math.prod(sy[i] for i in free_y)
    a2 = _op("reshape", _op("transpose", x, perm=free_x + ax_x), shape=[m, k])
    b2 = _op("reshape", _op("transpose", y, perm=ax_y + free_y), shape=[k, n])
    out = call("matmul", a2, b2, transpose_x=False, transpose_y=False)
    return _op("reshape", out, shape=[sx[i] for i in free_x] + [sy[i] for i in free_y])


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):  # noqa: A002
    """Global indices -> indices local to shard `shard_id` (ignore_value outside it)."""
    return _op("shard_index", input, index_num=_to_int("shard_index", "index_num", index_num),
               nshards=_to_int("shard_index", "nshards", nshards),
               shard_id=_to_int("shard_index", "shard_id", shard_id),
               ignore_value=_to_int("shard_index", "ignore_value", ignore_value))


# the join/split/broadcast and flip/roll/pad families, listed in __all__ above
from .manipulation_join import (broadcast_shape, broadcast_tensors, broadcast_to,  # noqa: E402
                                chunk, column_stack, concat, dsplit, dstack, expand,
                                expand_as, hsplit, hstack, row_stack, vstack,
                                repeat_interleave, split, stack, tensor_split, tile, unbind,
                                unstack, vsplit)
from .manipulation_reorder import crop, flip, pad, reverse, roll, rot90, unfold  # noqa: E402


from .array import tensor_array_to_tensor  # noqa: E402,F401  (Paddle's path for it)

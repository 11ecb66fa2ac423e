"""Public shape-manipulation functions (reshape, transpose, concat, split, pad, ...).

Paddle signatures over dispatch; Python arguments (lists that may hold Tensors, Tensor
axes) become plain attrs here. Composites (chunk, unbind, rot90, tensordot, ...) are short
combinations of the primitives in ops/manipulation.py. Imports `framework` and `ops`.
"""
from __future__ import annotations

import math

from ..framework import dtype as _dt
from ..framework.tensor import Tensor, to_array, wrap
from ..ops.dispatch import call, dispatch
from ..ops.manipulation import axis_list
from ..ops.opdef import REGISTRY, broadcast_shapes, norm_axis
from ._helpers import check_inplace

__all__ = [
    "reshape", "reshape_", "flatten", "flatten_", "squeeze", "squeeze_", "unsqueeze",
    "unsqueeze_", "transpose", "transpose_", "moveaxis", "t", "t_", "concat", "stack",
    "split", "tensor_split", "chunk", "unbind", "unstack", "vsplit", "hsplit", "dsplit",
    "tile", "expand", "expand_as", "broadcast_to", "broadcast_tensors", "broadcast_shape",
    "flip", "reverse", "roll", "rot90", "pad", "crop", "repeat_interleave", "as_complex",
    "as_real", "view", "view_as", "unflatten", "tensordot", "unfold", "atleast_1d",
    "atleast_2d", "atleast_3d", "shard_index", "cast", "cast_",
]

_OPS = {name: REGISTRY[name] for name in (
    "reshape", "squeeze", "unsqueeze", "flatten", "transpose", "concat", "stack", "split",
    "tile", "expand", "expand_as", "flip", "roll", "pad", "crop", "repeat_interleave",
    "as_complex", "as_real", "view", "unfold", "shard_index", "cast")}


def _op(name: str, *inputs, **attrs):
    return dispatch(_OPS[name], inputs, attrs)


# --- argument conversion -------------------------------------------------------------------

def _to_int(api: str, arg: str, value) -> int:
    if isinstance(value, Tensor):
        if value.size != 1:
            raise ValueError(f"{api}: {arg} given as a Tensor must hold one value, got shape "
                             f"{value.shape}")
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise TypeError(f"{api}: {arg} must be an int, got {type(value).__name__}")
    return int(value)


def _int_list(api: str, arg: str, value) -> list:
    """An int, a list/tuple of ints or 1-element Tensors, or a 1-D Tensor, as a list."""
    if isinstance(value, Tensor):
        return [int(v) for v in value.numpy().reshape(-1).tolist()]
    if isinstance(value, (list, tuple)):
        return [_to_int(api, arg, v) for v in value]
    return [_to_int(api, arg, value)]


def _shape_list(api: str, shape) -> list:
    if not isinstance(shape, (list, tuple, Tensor)) and not isinstance(shape, int):
        raise TypeError(f"{api}: shape must be a list, tuple or Tensor, got "
                        f"{type(shape).__name__}")
    return _int_list(api, "shape", shape)


def _as_tensor(value) -> Tensor:
    return value if isinstance(value, Tensor) else wrap(to_array(value))


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
    return _op("reshape", x, shape=_shape_list("reshape", shape))


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
    dims = _shape_list("unflatten", shape)
    if not dims:
        raise ValueError("unflatten: shape must not be empty")
    new = list(x.shape[:ax]) + dims + list(x.shape[ax + 1:])
    if -1 not in dims and math.prod(dims) != x.shape[ax]:
        raise ValueError(f"unflatten: shape {dims} has {math.prod(dims)} elements but dim "
                         f"{ax} of x (shape {x.shape}) is {x.shape[ax]}")
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
        raise ValueError(f"t: input must have at most 2 dims, got shape {input.shape}; use "
                         f"paddle.transpose")
    if ndim < 2:
        return input
    return _op("transpose", input, perm=[1, 0])


def t_(input, name=None):  # noqa: A002
    """In-place t."""
    return _inplace("t_", t, input)


def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006  (Paddle's default)
    """Rotate x by 90 degrees k times in the plane of `axes`, from axes[0] toward axes[1]."""
    ndim = len(x.shape)
    if ndim < 2:
        raise ValueError(f"rot90: x must have at least 2 dims, got shape {x.shape}")
    axes = _int_list("rot90", "axes", axes)
    if len(axes) != 2:
        raise ValueError(f"rot90: axes must hold exactly 2 dims, got {axes}")
    a0, a1 = axis_list("rot90", axes, ndim, "axes")
    k = _to_int("rot90", "k", k) % 4
    perm = list(range(ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 0:
        return _op("flip", x, axis=[])
    if k == 2:
        return _op("flip", x, axis=[a0, a1])
    if k == 1:
        return _op("transpose", _op("flip", x, axis=[a1]), perm=perm)
    return _op("flip", _op("transpose", x, perm=perm), axis=[a1])


def flip(x, axis, name=None):
    """Reverse x along each dim in `axis` (int, list or tuple)."""
    return _op("flip", x, axis=_int_list("flip", "axis", axis))


def reverse(x, axis, name=None):
    """Alias of flip."""
    return flip(x, axis)


def roll(x, shifts, axis=None, name=None):
    """Shift x cyclically by `shifts` along `axis` (None: over the flattened x)."""
    shifts = _int_list("roll", "shifts", shifts)
    axes = None if axis is None else _int_list("roll", "axis", axis)
    return _op("roll", x, shifts=shifts, axis=axes)


# --- joining and splitting -----------------------------------------------------------------

def concat(x, axis=0, name=None):
    """Join tensors of the same rank and dtype along `axis` (int or 1-element Tensor)."""
    return _op("concat", _tensor_list("concat", x), axis=_to_int("concat", "axis", axis))


def stack(x, axis=0, name=None):
    """Join tensors of the same shape along a new dim `axis`."""
    return _op("stack", _tensor_list("stack", x), axis=_to_int("stack", "axis", axis))


def split(x, num_or_sections, axis=0, name=None):
    """Split x along `axis`.

    Args:
        x (Tensor): input.
        num_or_sections (int|list|tuple): number of equal parts, or the size of each part
            (entries may be 1-element Tensors; one may be -1).
        axis (int|Tensor): dim to split. Default 0.
    Returns:
        list of Tensors.
    """
    if isinstance(num_or_sections, (list, tuple)):
        sections = _int_list("split", "num_or_sections", num_or_sections)
    else:
        sections = _to_int("split", "num_or_sections", num_or_sections)
    out = _op("split", x, num_or_sections=sections, axis=_to_int("split", "axis", axis))
    return list(out)


def tensor_split(x, num_or_indices, axis=0, name=None):
    """Split x into `n` nearly equal parts (the first ones one larger) or at the given
    indices along `axis`; returns a list."""
    ndim = len(x.shape)
    ax = norm_axis("tensor_split", _to_int("tensor_split", "axis", axis), ndim)
    size = x.shape[ax]
    if isinstance(num_or_indices, (list, tuple, Tensor)):
        bounds = [0]
        for i in _int_list("tensor_split", "num_or_indices", num_or_indices):
            i = i + size if i < 0 else i
            bounds.append(min(max(i, 0), size))
        bounds.append(size)
        parts = []
        for start, stop in zip(bounds[:-1], bounds[1:]):
            start = min(start, size)
            shape = list(x.shape)
            shape[ax] = max(stop - start, 0)
            offsets = [0] * ndim
            offsets[ax] = start
            parts.append(_op("crop", x, shape=shape, offsets=offsets))
        return parts
    n = _to_int("tensor_split", "num_or_indices", num_or_indices)
    if n <= 0:
        raise ValueError(f"tensor_split: num_or_indices must be positive, got {n}")
    q, r = divmod(size, n)
    return split(x, [q + 1] * r + [q] * (n - r), axis=ax)


def _split_dim(api: str, x, num_or_indices, min_ndim: int, axis: int):
    if len(x.shape) < min_ndim:
        raise ValueError(f"{api}: x must have at least {min_ndim} dims, got shape {x.shape}")
    return tensor_split(x, num_or_indices, axis=axis)


def vsplit(x, num_or_indices, name=None):
    """tensor_split along axis 0 (x must have at least 2 dims)."""
    return _split_dim("vsplit", x, num_or_indices, 2, 0)


def hsplit(x, num_or_indices, name=None):
    """tensor_split along axis 1 (axis 0 for a 1-D x)."""
    return _split_dim("hsplit", x, num_or_indices, 1, 1 if len(x.shape) > 1 else 0)


def dsplit(x, num_or_indices, name=None):
    """tensor_split along axis 2 (x must have at least 3 dims)."""
    return _split_dim("dsplit", x, num_or_indices, 3, 2)


def chunk(x, chunks, axis=0, name=None):
    """Split x into `chunks` equal parts along `axis` (the dim must divide evenly)."""
    return split(x, _to_int("chunk", "chunks", chunks), axis=axis)


def unbind(input, axis=0):  # noqa: A002
    """The slices of `input` along `axis`, as a list of tensors without that dim."""
    ax = norm_axis("unbind", _to_int("unbind", "axis", axis), len(input.shape))
    n = input.shape[ax]
    if n == 0:
        return []
    return [_op("squeeze", p, axis=[ax]) for p in _op("split", input, num_or_sections=n,
                                                      axis=ax)]


def unstack(x, axis=0, num=None):
    """Like unbind; `num`, when given, must equal x.shape[axis]."""
    ax = norm_axis("unstack", _to_int("unstack", "axis", axis), len(x.shape))
    if num is not None and num != x.shape[ax]:
        raise ValueError(f"unstack: num ({num}) must equal dim {ax} of x (shape {x.shape})")
    return unbind(x, ax)


# --- broadcasting and repeating ------------------------------------------------------------

def tile(x, repeat_times, name=None):
    """Repeat x repeat_times[i] times along dim i (list, tuple or Tensor)."""
    if not isinstance(repeat_times, (list, tuple, Tensor)):
        raise TypeError(f"tile: repeat_times must be a list, tuple or Tensor, got "
                        f"{type(repeat_times).__name__}")
    return _op("tile", x, repeat_times=_int_list("tile", "repeat_times", repeat_times))


def expand(x, shape, name=None):
    """Broadcast x to `shape`; -1 keeps the dim of x, new dims are prepended."""
    return _op("expand", x, shape=_shape_list("expand", shape))


def broadcast_to(x, shape, name=None):
    """Broadcast x to `shape` (expand rules)."""
    return _op("expand", x, shape=_shape_list("broadcast_to", shape))


def expand_as(x, y, name=None):
    """x broadcast to y's shape."""
    return _op("expand_as", x, y)


def broadcast_shape(x_shape, y_shape):
    """The broadcast of two shapes, as a list."""
    return list(broadcast_shapes("broadcast_shape", tuple(x_shape), tuple(y_shape),
                                 ("x_shape", "y_shape")))


def broadcast_tensors(input, name=None):  # noqa: A002
    """All tensors of `input` broadcast to their common shape, as a list."""
    tensors = _tensor_list("broadcast_tensors", input)
    shape = ()
    for v in tensors:
        shape = broadcast_shapes("broadcast_tensors", shape, tuple(v.shape),
                                 ("the inputs so far", "the next input"))
    return [_op("expand", v, shape=list(shape)) for v in tensors]


def repeat_interleave(x, repeats, axis=None, name=None):
    """Repeat each element of x `repeats` times along `axis` (None: flattened x).

    Args:
        x (Tensor): input.
        repeats (int|Tensor): a count for every element, or one count per element along
            axis (1-D Tensor).
        axis (int, optional): dim to repeat along. Default None.
    Returns:
        Tensor.
    """
    if isinstance(repeats, Tensor) and repeats.ndim > 0:
        reps = _int_list("repeat_interleave", "repeats", repeats)
    elif isinstance(repeats, (list, tuple)):
        reps = _int_list("repeat_interleave", "repeats", repeats)
    else:
        reps = _to_int("repeat_interleave", "repeats", repeats)
    if axis is not None:
        axis = _to_int("repeat_interleave", "axis", axis)
    return _op("repeat_interleave", x, repeats=reps, axis=axis)


# --- padding and cropping ------------------------------------------------------------------

_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}


def _spatial_axes(ndim: int, data_format, mode: str) -> list:
    if ndim not in _FORMATS:
        raise ValueError(f"pad: mode {mode!r} (or a Tensor pad / a pad of 2*(ndim-2) values) "
                         f"needs a 3-D, 4-D or 5-D x, got {ndim} dims")
    fmt = _FORMATS[ndim][0] if data_format is None else data_format
    if fmt not in _FORMATS[ndim]:
        raise ValueError(f"pad: data_format must be one of {list(_FORMATS[ndim])} for a "
                         f"{ndim}-D x, got {data_format!r}")
    return list(range(2, ndim)) if fmt[1] == "C" else list(range(1, ndim - 1))


def pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True,
        name=None):
    """Pad x (paddle.nn.functional.pad).

    Args:
        x (Tensor): input.
        pad (list|tuple|Tensor): pad sizes. In 'constant' mode a list of 2*ndim values pads
            every dim in order [d0_before, d0_after, d1_before, ...] (pad_from_left_axis
            True) and any other even length pads from the last dim backwards
            [last_before, last_after, ...]. Otherwise x must be 3/4/5-D and pad has
            2*(ndim-2) values [left, right, top, bottom, front, back] for the spatial dims
            of data_format.
        mode (str): 'constant', 'reflect', 'replicate' or 'circular'. Default 'constant'.
        value (float): fill value of 'constant' mode. Default 0.0.
        data_format (str, optional): 'NCL', 'NLC', 'NCHW', 'NHWC', 'NCDHW' or 'NDHWC';
            None means channel-first.
        pad_from_left_axis (bool): order of a full-length constant pad. Default True.
    Returns:
        Tensor of x's dtype.
    """
    ndim = len(x.shape)
    is_tensor = isinstance(pad, Tensor)
    if not is_tensor and not isinstance(pad, (list, tuple)):
        raise TypeError(f"pad: pad must be a list, tuple or Tensor, got {type(pad).__name__}")
    sizes = _int_list("pad", "pad", pad)
    if len(sizes) % 2:
        raise ValueError(f"pad: pad must have an even number of values, got {sizes}")
    full = [0] * (2 * ndim)
    spatial = (mode != "constant" or is_tensor
               or (len(sizes) == 2 * (ndim - 2) and ndim in _FORMATS))
    if spatial:
        axes = _spatial_axes(ndim, data_format, mode)
        if len(sizes) != 2 * len(axes):
            raise ValueError(f"pad: mode {mode!r} on a {ndim}-D x needs {2 * len(axes)} pad "
                             f"values (2 per spatial dim), got {sizes}")
        order = list(reversed(axes))
    elif len(sizes) > 2 * ndim:
        raise ValueError(f"pad: pad has {len(sizes)} values but x (shape {x.shape}) has "
                         f"only {ndim} dims (at most {2 * ndim} values)")
    elif len(sizes) == 2 * ndim and pad_from_left_axis:
        order = list(range(ndim))
    else:
        order = list(range(ndim - 1, ndim - 1 - len(sizes) // 2, -1))
    for k, ax in enumerate(order):
        full[2 * ax], full[2 * ax + 1] = sizes[2 * k], sizes[2 * k + 1]
    if isinstance(value, Tensor):
        value = value.item()
    return _op("pad", x, pad=full, mode=mode, value=float(value) if not isinstance(
        value, complex) else value)


def crop(x, shape=None, offsets=None, name=None):
    """The box of x starting at `offsets` (default zeros) with `shape` (default x.shape;
    -1 runs to the end of that dim). Entries may be ints or 1-element Tensors."""
    size = None if shape is None else _shape_list("crop", shape)
    offs = None if offsets is None else _int_list("crop", "offsets", offsets)
    return _op("crop", x, shape=size, offsets=offs)


def unfold(x, axis, size, step, name=None):
    """Sliding windows of `size` elements every `step` along `axis` (Tensor.unfold): that
    dim becomes the window count and a new last dim of length `size` is appended."""
    return _op("unfold", x, axis=_to_int("unfold", "axis", axis),
               size=_to_int("unfold", "size", size), step=_to_int("unfold", "step", step))


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

def _tensordot_axes(axes, nx: int, ny: int):
    if isinstance(axes, Tensor):
        axes = axes.tolist()
    if isinstance(axes, int):
        if axes < 0:
            raise ValueError(f"tensordot: an int axes must be non-negative, got {axes}")
        return list(range(nx - axes, nx)), list(range(axes))
    if not isinstance(axes, (list, tuple)) or not axes:
        raise TypeError(f"tensordot: axes must be an int, list, tuple or Tensor, got {axes!r}")
    if all(isinstance(a, int) for a in axes):
        return list(axes), list(axes)
    seqs = [_int_list("tensordot", "axes", a) for a in axes[:2]]
    ax_x, ax_y = seqs[0], seqs[1] if len(seqs) > 1 else seqs[0]
    if len(ax_x) < len(ax_y):
        ax_x = ax_x + ax_y[len(ax_x):]
    elif len(ax_y) < len(ax_x):
        ax_y = ax_y + ax_x[len(ax_y):]
    return ax_x, ax_y


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

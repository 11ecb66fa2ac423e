"""Public functions that move elements within their dims: rot90, flip/reverse, roll, pad,
crop, unfold. Re-exported by tensor/manipulation.py, which lists them in `__all__`.
"""
from __future__ import annotations

from ..framework.tensor import Tensor
from ..ops.manipulation import axis_list
from .manipulation import _int_list, _op, _shape_list, _to_int


# --- rotating, flipping and rolling --------------------------------------------------------

def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006  (Paddle's default)
    """Rotate x by 90 degrees k times in the plane of `axes`, from axes[0] toward axes[1]."""
    ndim = len(x.shape)
    if ndim < 2:
        raise ValueError(f"rot90: x must have at least 2 dims, got shape {list(x.shape)}")
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
        raise ValueError(f"pad: pad has {len(sizes)} values but x (shape {list(x.shape)}) has "
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

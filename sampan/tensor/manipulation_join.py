"""Public join/split, broadcast and repeat functions: concat, stack, h/v/d/column/row_stack,
split and its variants
(tensor_split, v/h/dsplit, chunk, unbind, unstack), tile, expand, broadcast_*,
repeat_interleave. Re-exported by tensor/manipulation.py, which lists them in `__all__`.
"""
from __future__ import annotations

from ..framework.flags import in_dynamic_mode
from ..framework.tensor import Tensor, is_variable
from ..ops.opdef import broadcast_shapes, norm_axis
from .manipulation import (_atleast, _holds_variable, _int_list, _op, _reshape_runtime,
                           _shape_list, _tensor_list, _to_int)


# --- joining and splitting -----------------------------------------------------------------

class DTypeMismatchError(TypeError, ValueError):
    """Inputs of a join disagree in dtype. Paddle raises ValueError in dynamic mode and
    TypeError while building a static program; this error is both."""


def _join(api: str, xs: list, axis: int):
    """concat, refusing mixed dtypes with an error naming the API and the dtypes."""
    dtypes = [str(v.dtype).replace("paddle.", "") for v in xs]
    if len(set(dtypes)) > 1:
        raise DTypeMismatchError(f"{api}: all inputs must have the same dtype, got {dtypes}")
    return _op("concat", xs, axis=axis)


def concat(x, axis=0, name=None):
    """Join tensors of the same rank and dtype along `axis` (int or 1-element Tensor)."""
    return _join("concat", _tensor_list("concat", x), _to_int("concat", "axis", axis))


def stack(x, axis=0, name=None):
    """Join tensors of the same shape along a new dim `axis`."""
    return _op("stack", _tensor_list("stack", x), axis=_to_int("stack", "axis", axis))


def _stack_inputs(api: str, x, ndim: int) -> list:
    return [_atleast(api, ndim, (v,)) for v in _tensor_list(api, x)]


def hstack(x, name=None):
    """Join tensors column-wise: along axis 0 for 1-D inputs, else axis 1 (Paddle 3).

    Args:
        x (list[Tensor]|tuple[Tensor]): tensors of one dtype; 0-D ones count as [1].

    Returns:
        Tensor: the joined tensor.

    Examples:
        >>> import sampan as paddle
        >>> paddle.hstack([paddle.to_tensor([1, 2]), paddle.to_tensor([3])])
        Tensor(shape=[3], dtype=int64, place=Place(cpu), stop_gradient=True,
               [1, 2, 3])
    """
    xs = _stack_inputs("hstack", x, 1)
    return _join("hstack", xs, 0 if len(xs[0].shape) == 1 else 1)


def vstack(x, name=None):
    """Join tensors row-wise: inputs viewed as at least 2-D ([n] -> [1, n]), joined on axis 0.

    Examples:
        >>> import sampan as paddle
        >>> paddle.vstack([paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4])]).shape
        paddle.Size([2, 2])
    """
    return _join("vstack", _stack_inputs("vstack", x, 2), 0)


def row_stack(x, name=None):
    """Alias of `vstack` (Paddle 3)."""
    return _join("row_stack", _stack_inputs("row_stack", x, 2), 0)


def dstack(x, name=None):
    """Join tensors depth-wise: inputs viewed as at least 3-D ([n] -> [1, n, 1],
    [m, n] -> [m, n, 1]), joined on axis 2.

    Examples:
        >>> import sampan as paddle
        >>> paddle.dstack([paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4])]).shape
        paddle.Size([1, 2, 2])
    """
    return _join("dstack", _stack_inputs("dstack", x, 3), 2)


def column_stack(x, name=None):
    """Join tensors as columns: 0-D and 1-D inputs become [n, 1] columns, others are joined
    as they are on axis 1.

    Examples:
        >>> import sampan as paddle
        >>> paddle.column_stack([paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4])]).tolist()
        [[1, 3], [2, 4]]
    """
    xs = [v if len(v.shape) >= 2 else _op("reshape", v, shape=[-1, 1])
          for v in _tensor_list("column_stack", x)]
    return _join("column_stack", xs, 1)


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
    if ndim == 0:
        raise ValueError("tensor_split: x must have at least 1 dim, got a 0-D tensor")
    ax = _to_int("tensor_split", "axis", axis)
    if not -ndim <= ax < ndim:  # Paddle raises ValueError here, not IndexError
        raise ValueError(f"tensor_split: axis {ax} is out of range for x of shape {list(x.shape)}")
    ax = norm_axis("tensor_split", ax, ndim)
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
        raise ValueError(f"{api}: x must have at least {min_ndim} dims, got shape {list(x.shape)}")
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
        raise ValueError(f"unstack: num ({num}) must equal dim {ax} of x (shape {list(x.shape)})")
    return unbind(x, ax)


# --- broadcasting and repeating ------------------------------------------------------------

def tile(x, repeat_times, name=None):
    """Repeat x repeat_times[i] times along dim i (list, tuple or Tensor)."""
    if not isinstance(repeat_times, (list, tuple, Tensor)):
        raise TypeError(f"tile: repeat_times must be a list, tuple or Tensor, got "
                        f"{type(repeat_times).__name__}")
    return _op("tile", x, repeat_times=_int_list("tile", "repeat_times", repeat_times))


def expand(x, shape, name=None):
    """Broadcast x to `shape`; -1 keeps the dim of x, new dims are prepended. In a static
    Program, shape may be a 1-D int Variable or hold 1-element int Variables (read when the
    Program runs)."""
    return _expand("expand", x, shape)


def broadcast_to(x, shape, name=None):
    """Broadcast x to `shape` (expand rules)."""
    return _expand("broadcast_to", x, shape)


def _expand(api: str, x, shape):
    if not in_dynamic_mode():  # Paddle's static checks
        if not isinstance(x, Tensor) and not is_variable(x):
            raise TypeError(f"{api}: x must be a Variable or Tensor, got {type(x).__name__}")
        if not isinstance(shape, (list, tuple)) and not is_variable(shape):
            raise TypeError(f"{api}: shape must be a list, tuple or Variable, got "
                            f"{type(shape).__name__}")
        if x.dtype.name == "bool" and not x.stop_gradient:
            raise ValueError(f"{api}: a bool x must have stop_gradient=True (bool tensors "
                             f"have no gradient), got stop_gradient=False")
    if _holds_variable(shape):
        return _reshape_runtime(api, x, shape, op="_expand_dims")
    return _op("expand", x, shape=_shape_list(api, shape))


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


def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    """Repeat each element of x `repeats` times along `axis` (None: flattened x).

    Args:
        x (Tensor): input.
        repeats (int|Tensor): a count for every element, or one count per element along
            axis (1-D Tensor).
        axis (int, optional): dim to repeat along. Default None.
        output_size (int, optional): the total length along axis (Paddle 3.x); it must equal
            the sum of the repeats.
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
    out = _op("repeat_interleave", x, repeats=reps, axis=axis)
    if output_size is not None:
        got = out.shape[-1 if axis is None else axis]
        if _to_int("repeat_interleave", "output_size", output_size) != got:
            raise ValueError(f"repeat_interleave: output_size must equal the sum of repeats, "
                             f"got output_size={output_size}, sum of repeats={got}")
    return out

"""Miscellaneous public tensor functions of the Paddle 2.6 surface: as_strided, combinations,
trapezoid / cumulative_trapezoid, renorm, fill_diagonal_tensor, top_p_sampling, the legacy
reader decorator `batch` and `check_shape`. All but top_p_sampling are composites of other
ops (their gradients come for free). Imports `framework`, `ops` and sibling families.
"""
from __future__ import annotations

import itertools
import numbers

import numpy as np

from ..framework import dtype as _dt
from ..framework.flags import in_dynamic_mode
from ..framework.random import op_seed
from ..framework.tensor import Tensor, to_array, wrap, is_variable
from ..ops import extra as _extra_ops  # noqa: F401  (registers top_p_sampling)
from ..ops.dispatch import call

__all__ = ["as_strided", "combinations", "trapezoid", "cumulative_trapezoid", "renorm",
           "fill_diagonal_tensor", "top_p_sampling", "batch", "check_shape"]


def _int_list(api: str, arg: str, value) -> list:
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        raise TypeError(f"{api}: {arg} must be a list or tuple of ints, got {value!r}")
    return [int(v) for v in value]


def _index(values) -> Tensor:
    return wrap(to_array(np.asarray(values, dtype=np.int64)))


# --- views and index-built composites ----------------------------------------------------

def as_strided(x, shape, stride, offset=0, name=None):
    """A tensor of `shape` reading x's (row-major, contiguous) elements at
    offset + sum(i_k * stride[k]), strides counted in elements.

    Unlike Paddle, the result is a copy, not a view sharing x's memory; positions outside x
    raise instead of reading past the buffer. The gradient sums into every position read.

    Args:
        x (Tensor): the source tensor.
        shape (list[int]): result shape.
        stride (list[int]): non-negative element strides, one per result dim.
        offset (int): element offset of the first value. Default 0.

    Returns:
        Tensor: x's dtype, `shape`.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.tensor.extra import as_strided
        >>> as_strided(paddle.arange(6), [2, 3], [1, 2]).numpy()
        array([[0, 2, 4],
               [1, 3, 5]])
    """
    shape = _int_list("as_strided", "shape", shape)
    stride = _int_list("as_strided", "stride", stride)
    if len(shape) != len(stride):
        raise ValueError(f"as_strided: shape {shape} and stride {stride} must have the same "
                         f"length")
    if any(s < 0 for s in shape) or any(s < 0 for s in stride) or offset < 0:
        raise ValueError(f"as_strided: shape, stride and offset must be non-negative, got "
                         f"shape {shape}, stride {stride}, offset {offset}")
    numel = int(np.prod(x.shape))
    pos = np.full(shape, int(offset), np.int64)
    for axis, (n, st) in enumerate(zip(shape, stride)):
        view = [1] * len(shape)
        view[axis] = n
        pos = pos + (np.arange(n, dtype=np.int64) * st).reshape(view)
    if pos.size and int(pos.max()) >= numel:
        raise ValueError(f"as_strided: shape {shape}, stride {stride} and offset {offset} "
                         f"read element {int(pos.max())} but x (shape {list(x.shape)}) has "
                         f"{numel} elements")
    flat = call("reshape", x, shape=[-1])
    return call("take", flat, _index(pos), mode="raise")


def combinations(x, r=2, with_replacement=False, name=None):
    """All length-r combinations of the elements of the 1-D x, as rows (itertools order).

    Args:
        x (Tensor): 1-D input.
        r (int): combination length (>= 0). Default 2.
        with_replacement (bool): allow repeated elements. Default False.

    Returns:
        Tensor: [count, r] of x's dtype; [0] when r == 0, [0, r] when there are none.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.tensor.extra import combinations
        >>> combinations(paddle.to_tensor([1, 2, 3])).numpy()
        array([[1, 2],
               [1, 3],
               [2, 3]])
    """
    if len(x.shape) != 1:
        raise TypeError(f"combinations: expect a 1-D vector, but got x shape {list(x.shape)}")
    if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r < 0:
        raise ValueError(f"combinations: expect a non-negative int, but got r={r!r}")
    if r == 0:
        return call("take", x, _index([]), mode="raise")
    pick = (itertools.combinations_with_replacement if with_replacement
            else itertools.combinations)
    rows = list(pick(range(x.shape[0]), r))
    index = np.asarray(rows, np.int64).reshape(len(rows), r)
    return call("take", x, _index(index), mode="raise")


def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """x with its diagonal in the (dim1, dim2) planes, shifted by `offset`, replaced by y.

    Args:
        x (Tensor): at least 2-D.
        y (Tensor): shape = x's shape without dim1 and dim2, plus the diagonal length.
        offset (int): > 0 above the main diagonal. Default 0.
        dim1, dim2 (int): the two dims of the planes. Default 0, 1.

    Returns:
        Tensor: like x. Gradients: x gets g with the diagonal zeroed, y the diagonal of g.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.tensor.extra import fill_diagonal_tensor
        >>> fill_diagonal_tensor(paddle.ones([3, 2]), paddle.zeros([2])).numpy()
        array([[0., 1.],
               [1., 0.],
               [1., 1.]], dtype=float32)
    """
    shape = list(x.shape)
    nd = len(shape)
    if nd < 2:
        raise ValueError(f"fill_diagonal_tensor: x must have at least 2 dims, got shape "
                         f"{shape}")
    for arg, d in (("dim1", dim1), ("dim2", dim2)):
        if not -nd <= d < nd:
            raise ValueError(f"fill_diagonal_tensor: {arg} {d} should be in [{-nd}, {nd}) "
                             f"for x of shape {shape}")
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise ValueError(f"fill_diagonal_tensor: dim1 and dim2 must differ, got {dim1} and "
                         f"{dim2}")
    n1, n2 = shape[d1], shape[d2]
    length = max(0, min(n1, n1 + offset, n2, n2 - offset))
    want = [s for i, s in enumerate(shape) if i not in (d1, d2)] + [length]
    if list(y.shape) != want:
        raise ValueError(f"fill_diagonal_tensor: the y shape should be {want}, got "
                         f"{list(y.shape)}")
    if y.dtype != x.dtype:
        y = call("cast", y, dtype=x.dtype.name)
    return call("diagonal_scatter", x, y, offset=int(offset), axis1=d1, axis2=d2)


# --- integration and renormalisation ------------------------------------------------------

def _slice(t, axis: int, start: int, stop: int):
    shape = list(t.shape)
    offsets = [0] * len(shape)
    offsets[axis] = start
    shape[axis] = stop - start
    return call("crop", t, shape=shape, offsets=offsets)


def _trapezoid(api: str, y, x, dx, axis: int, cumulative: bool):
    if x is not None and dx is not None:
        raise ValueError(f"{api}: not permitted to specify both x and dx input args")
    if not isinstance(y, Tensor) and not is_variable(y):
        raise TypeError(f"{api}: y must be a Tensor, got {type(y).__name__}")
    if y.dtype.kind != "f":
        raise TypeError(f"{api}: y must be a float16, float32 or float64 tensor, got "
                        f"{y.dtype.name}")
    nd = len(y.shape)
    if not -nd <= axis < max(nd, 1) or nd == 0:
        raise ValueError(f"{api}: axis {axis} is out of range for y of shape {list(y.shape)}")
    axis %= nd
    n = y.shape[axis]
    if x is None:
        step = 1.0 if dx is None else dx
        if isinstance(step, Tensor):
            if len(step.shape) > 1:
                raise ValueError(f"{api}: expected dx to be a scalar, got shape "
                                 f"{list(step.shape)}")
            step = call("cast", step, dtype=y.dtype.name)
    else:
        if x.dtype.kind != "f":
            raise TypeError(f"{api}: x must be a float16, float32 or float64 tensor, got "
                            f"{x.dtype.name}")
        if x.dtype != y.dtype:
            x = call("cast", x, dtype=y.dtype.name)
        if len(x.shape) == 1:
            if x.shape[0] != n:
                raise ValueError(f"{api}: a 1-D x must have the length of y along axis "
                                 f"{axis} ({n}), got {x.shape[0]}")
            shape = [1] * nd
            shape[axis] = max(n - 1, 0)
            step = call("reshape", _slice(x, 0, 1, n) - _slice(x, 0, 0, n - 1) if n else x,
                        shape=shape)
        else:
            if list(x.shape) != list(y.shape):
                raise ValueError(f"{api}: x must be 1-D or have y's shape {list(y.shape)}, "
                                 f"got {list(x.shape)}")
            step = _slice(x, axis, 1, n) - _slice(x, axis, 0, n - 1) if n else x
    if n == 0:
        raise ValueError(f"{api}: y has no elements along axis {axis}")
    pairs = (_slice(y, axis, 1, n) + _slice(y, axis, 0, n - 1)) * step
    if cumulative:
        return call("cumsum", pairs, axis=axis, dtype=None) * 0.5
    return call("sum", pairs, axis=[axis], keepdim=False, dtype=None) * 0.5


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Integral of y along `axis` by the trapezoidal rule.

    Args:
        y (Tensor): float samples.
        x (Tensor, optional): sample points, 1-D (length of y along axis) or y's shape.
        dx (float|Tensor, optional): constant spacing when x is None. Default 1.0.
        axis (int): the integration axis. Default -1.

    Returns:
        Tensor: y's shape without `axis`.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.tensor.extra import trapezoid
        >>> trapezoid(paddle.to_tensor([1.0, 2.0, 4.0]), dx=2.0).numpy()
        array(9., dtype=float32)
    """
    return _trapezoid("trapezoid", y, x, dx, int(axis), False)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Running trapezoidal integral of y along `axis` (one element shorter there).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.tensor.extra import cumulative_trapezoid
        >>> cumulative_trapezoid(paddle.to_tensor([1.0, 2.0, 4.0])).numpy()
        array([1.5, 4.5], dtype=float32)
    """
    return _trapezoid("cumulative_trapezoid", y, x, dx, int(axis), True)


def renorm(x, p, axis, max_norm):
    """Rescale each slice of x along `axis` whose p-norm exceeds max_norm to norm max_norm
    (factor max_norm / norm, as Paddle's kernel); other slices are unchanged.

    Args:
        x (Tensor): float input.
        p (float): the norm power (> 0).
        axis (int): the dim whose slices are renormalised.
        max_norm (float): the largest allowed norm.

    Returns:
        Tensor: like x.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.tensor.extra import renorm
        >>> renorm(paddle.to_tensor([[3.0, 4.0], [0.3, 0.4]]), 2.0, 0, 1.0).numpy()
        array([[0.6, 0.8],
               [0.3, 0.4]], dtype=float32)
    """
    nd = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"renorm: axis must be an int, got {axis!r}")
    if not axis < nd:
        raise ValueError(f"renorm: the axis:{axis} should be less then the shape's size "
                         f"{nd}:{list(x.shape)}")
    if not axis >= -nd:
        raise ValueError(f"renorm: the axis:{axis} should not be less than -1 * length of "
                         f"input_shape:{-nd}")
    p = float(p)
    if p <= 0:
        raise ValueError(f"renorm: p must be positive, got {p}")
    axis %= nd
    if x.dtype.kind != "f":
        raise TypeError(f"renorm: x must be a float32 or float64 tensor, got {x.dtype.name}")
    others = [i for i in range(nd) if i != axis]
    mags = call("abs", x)
    powered = mags * mags if p == 2.0 else (mags if p == 1.0 else mags ** p)
    total = call("sum", powered, axis=others, keepdim=True, dtype=None) if others else powered
    over = total > float(max_norm) ** p  # decided before the root: no 0 ** (1/p) gradients
    one = call("full_like", total, fill_value=1.0, dtype=None)
    norm = call("where", over, total, one) ** (1.0 / p)
    factor = call("where", over, float(max_norm) / norm, one)
    return x * factor


# --- sampling ------------------------------------------------------------------------------

def top_p_sampling(x, ps, threshold=None, topp_seed=None, seed=-1, k=0, mode="truncated",
                   return_top=False, name=None):
    """Nucleus (top-p) sampling of one token per row of the probabilities x.

    Args:
        x (Tensor): [batch, vocab] probabilities (float).
        ps (Tensor): [batch] top-p mass per row.
        threshold (Tensor, optional): [batch] minimum score of a sampled token.
        topp_seed (Tensor, optional): [batch] int64 seed per row.
        seed (int): the op seed; -1 (default) draws one from the global generator.
        k (int): also return the top-k scores and ids. Default 0.
        mode (str): "truncated" (default) or "non-truncated".
        return_top (bool): return (scores, ids, topk_scores, topk_ids). Default False.

    Returns:
        tuple(Tensor): the sampled scores [batch, 1] and ids [batch, 1] (int64).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[0.1, 0.6, 0.3], [0.5, 0.2, 0.3]])
        >>> from sampan.tensor.extra import top_p_sampling
        >>> value, index = top_p_sampling(x, paddle.to_tensor([0.1, 0.1]))
        >>> index.numpy().tolist()
        [[1], [0]]
    """
    if mode not in ("truncated", "non-truncated"):
        raise ValueError(f"top_p_sampling: mode must be 'truncated' or 'non-truncated', got "
                         f"{mode!r}")
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"top_p_sampling: k must be an int, got {k!r}")
    seed = op_seed() if seed is None or int(seed) < 0 else int(seed)
    outs = call("top_p_sampling", x, ps, threshold, topp_seed, seed=seed, k=int(k), mode=mode)
    return tuple(outs) if return_top else (outs[0], outs[1])


# --- legacy helpers -----------------------------------------------------------------------

def batch(reader, batch_size, drop_last=False):
    """Wrap a sample reader (a callable returning an iterator) into a batch reader that
    yields lists of `batch_size` samples; the last short batch is kept unless drop_last.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.tensor.extra import batch
        >>> list(batch(lambda: iter(range(5)), 2)())
        [[0, 1], [2, 3], [4]]
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) \
            or batch_size <= 0:
        raise ValueError(f"batch_size should be a positive integer value, but got "
                         f"batch_size={batch_size}")
    batch_size = int(batch_size)

    def batch_reader():
        group = []
        for sample in reader():
            group.append(sample)
            if len(group) == batch_size:
                yield group
                group = []
        if group and not drop_last:
            yield group
    return batch_reader


def check_shape(shape, op_name, expected_shape_type=(list, tuple), expected_element_type=(int,),
                expected_tensor_dtype=("int32", "int64")):
    """Validate a `shape` argument of `op_name` in static mode (a no-op in dynamic mode, as
    in Paddle): a list/tuple of ints or int Tensors, or an int Tensor. TypeError otherwise.
    Static Variables always count as an accepted shape or element type."""
    if in_dynamic_mode():
        return

    def is_tensor(v):
        return isinstance(v, Tensor) or is_variable(v)

    def check_dtype(v, what):
        if expected_tensor_dtype is not None and \
                _dt.convert_dtype(v.dtype).name not in expected_tensor_dtype:
            raise TypeError(f"The data type of '{what}' in {op_name} must be "
                            f"{list(expected_tensor_dtype)}, but received "
                            f"{_dt.convert_dtype(v.dtype).name}.")
    if is_tensor(shape):
        check_dtype(shape, "shape")
        return
    if not isinstance(shape, expected_shape_type):
        raise TypeError(f"The type of 'shape' in {op_name} must be {expected_shape_type}, but "
                        f"received {type(shape)}.")
    if expected_element_type is None:
        return
    for item in shape:
        if is_tensor(item):
            check_dtype(item, "element of shape")
        elif not isinstance(item, expected_element_type) or isinstance(item, bool):
            raise TypeError(f"The type of 'element of shape' in {op_name} must be "
                            f"{expected_element_type}, but received {type(item)}.")

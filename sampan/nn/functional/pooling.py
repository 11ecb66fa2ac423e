"""Pooling functions: max (op with argmax mask), average and Lp (a convolution with a constant
kernel times the divisor), adaptive average (reshape-mean or matmul with an averaging matrix
per dim), adaptive max (op), max_unpool (put_along_axis).

'SAME' padding stays an op attr (padding_algorithm) wherever the spatial size is unknown when
the Program is built, so it is resolved against the run-time size; average pooling then
counts the window elements with a second window sum instead of a constant table.
"""
from __future__ import annotations

import math

import numpy as np

from ...backend.window import is_channel_last, same_pads, split_channels
from ...ops.dispatch import call
from ...ops.nn_pool import adaptive_bounds, pool_out_len
from .conv import check_format, norm_padding, to_list

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d"]

_CF = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


def _check_x(api: str, x, nd: int) -> None:
    if x.ndim != nd + 2:
        raise ValueError(f"{api}: x must be a {nd + 2}-D tensor, got shape {list(x.shape)}")


def _pool_args(api, nd, x, kernel_size, stride, padding, ceil_mode, data_format):
    """kernel, stride, pads, padding_algorithm ("EXPLICIT", "SAME", "VALID"; pads are zeros
    unless EXPLICIT) and the spatial size (-1 where unknown) of a pooling call."""
    check_format(api, data_format, nd)
    _check_x(api, x, nd)
    kernel = to_list(api, "kernel_size", kernel_size, nd)
    stride = kernel if stride is None else to_list(api, "stride", stride, nd)
    pad = norm_padding(api, padding, nd, data_format)
    spatial = split_channels(list(x.shape), data_format)[2]
    if pad == "VALID" and ceil_mode:   # Paddle's rule (with SAME, ceil_mode changes nothing)
        raise ValueError(f"{api}: ceil_mode must be False when padding is 'VALID', got "
                         f"ceil_mode=True")
    if isinstance(pad, str):
        return kernel, stride, [0] * (2 * nd), pad, spatial
    return kernel, stride, pad, "EXPLICIT", spatial


def _composite_args(api, nd, x, kernel_size, stride, padding, ceil_mode, data_format):
    """_pool_args for the window-sum composites: 'SAME' resolved to explicit pads when the
    spatial size is known (kept as the algorithm otherwise), plus the output size ([] when
    unknown: ceil_mode then cannot be honoured when building)."""
    kernel, stride, pads, algorithm, spatial = _pool_args(api, nd, x, kernel_size, stride,
                                                          padding, ceil_mode, data_format)
    if -1 in spatial:
        if ceil_mode:
            raise ValueError(f"{api}: ceil_mode=True needs the spatial size of x when the "
                             f"program is built, got shape {list(x.shape)}")
        return kernel, stride, pads, algorithm, spatial, []
    if algorithm == "SAME":
        pads = same_pads(spatial, kernel, stride)
    out_len = [pool_out_len(n, k, s, pads[2 * i], pads[2 * i + 1], bool(ceil_mode))
               for i, (n, k, s) in enumerate(zip(spatial, kernel, stride))]
    if min(out_len) <= 0:
        raise ValueError(f"{api}: kernel_size {kernel} is larger than the padded input of "
                         f"spatial shape {spatial} (padding {pads})")
    return kernel, stride, pads, "EXPLICIT", spatial, out_len


def _max_pool(api, nd, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format):
    kernel, stride, pads, algorithm, _ = _pool_args(api, nd, x, kernel_size, stride, padding,
                                                    ceil_mode, data_format)
    if return_mask and is_channel_last(data_format):
        raise ValueError(f"{api}: return_mask=True needs data_format {_CF[nd]!r}, got "
                         f"{data_format!r}")
    out, mask = call(api, x, kernel_size=kernel, stride=stride, padding=pads,
                     padding_algorithm=algorithm, ceil_mode=bool(ceil_mode),
                     data_format=data_format)
    return (out, mask) if return_mask else out


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """Max pooling of x [N, C, L]; see max_pool2d."""
    return _max_pool("max_pool1d", 1, x, kernel_size, stride, padding, return_mask,
                     ceil_mode, "NCL")


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    """Max pooling of x [N, C, H, W] (or NHWC).

    Args:
        kernel_size (int|list): window size. stride (int|list|None): defaults to kernel_size.
        padding (int|list|str): int, [ph, pw], [top, bottom, left, right], pairs, 'SAME' or
            'VALID'; padded positions never win.
        return_mask (bool): also return the int32 flat index (into H * W) of each maximum.
        ceil_mode (bool): round the output size up.
    Returns:
        Tensor, or (Tensor, mask) when return_mask.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> paddle.nn.functional.max_pool2d(x, 2).flatten().tolist()
        [5.0, 7.0, 13.0, 15.0]
    """
    return _max_pool("max_pool2d", 2, x, kernel_size, stride, padding, return_mask,
                     ceil_mode, data_format)


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCDHW", name=None):
    """Max pooling of x [N, C, D, H, W] (or NDHWC); see max_pool2d."""
    return _max_pool("max_pool3d", 3, x, kernel_size, stride, padding, return_mask,
                     ceil_mode, data_format)


def _to_cf(x, data_format):
    if not is_channel_last(data_format):
        return x
    return call("transpose", x, perm=[0, x.ndim - 1] + list(range(1, x.ndim - 1)))


def _from_cf(x, data_format):
    if not is_channel_last(data_format):
        return x
    return call("transpose", x, perm=[0] + list(range(2, x.ndim)) + [1])


def _divisor(spatial, kernel, stride, pads, out_len, exclusive):
    """Per-output-position divisor of average pooling (Paddle's rule), as a NumPy array."""
    total = np.ones((), "float64")
    for n, k, s, (pb, pa), o in zip(spatial, kernel, stride, zip(pads[0::2], pads[1::2]),
                                    out_len):
        start = np.arange(o) * s
        end = np.minimum(start + k, n + pb + pa)
        if exclusive:
            count = np.maximum(np.minimum(end, pb + n) - np.maximum(start, pb), 0)
        else:
            count = end - start
        total = np.multiply.outer(total, count)
    return total


def _window_sum(nd, x_cf, kernel, stride, pads, out_len, algorithm="EXPLICIT"):
    """Sum over each window of a channels-first x: a convolution with a ones kernel over
    [N * C, 1, *spatial] (extra after-padding holds ceil_mode's last window). With an unknown
    spatial size (out_len []) a depthwise convolution instead, which needs no reshape."""
    c = x_cf.shape[1]
    spatial = list(x_cf.shape[2:])
    full = list(pads)
    for i, (o, k, s) in enumerate(zip(out_len, kernel, stride)):
        full[2 * i + 1] += max((o - 1) * s + k - (spatial[i] + pads[2 * i] + pads[2 * i + 1]),
                               0)
    conv = dict(stride=stride, padding=full, padding_algorithm=algorithm, dilation=[1] * nd,
                data_format=_CF[nd])
    if not out_len:
        ones = call("full", shape=[c, 1, *kernel], fill_value=1.0, dtype=x_cf.dtype.name)
        return call(f"conv{nd}d", x_cf, ones, None, groups=c, **conv)
    flat = call("reshape", x_cf, shape=[-1, 1, *spatial])
    ones = call("full", shape=[1, 1, *kernel], fill_value=1.0, dtype=x_cf.dtype.name)
    out = call(f"conv{nd}d", flat, ones, None, groups=1, **conv)
    return call("reshape", out, shape=[-1, c, *out_len])


def _avg_pool(api, nd, x, kernel_size, stride, padding, ceil_mode, exclusive,
              divisor_override, data_format):
    if x.dtype.kind != "f":
        raise TypeError(f"{api}: x must be a floating point tensor, got {x.dtype.name}")
    kernel, stride, pads, algorithm, spatial, out_len = _composite_args(
        api, nd, x, kernel_size, stride, padding, ceil_mode, data_format)
    x_cf = _to_cf(x, data_format)
    summed = _window_sum(nd, x_cf, kernel, stride, pads, out_len, algorithm)
    scale = float(divisor_override) / math.prod(kernel) if divisor_override else 1.0
    if not out_len:  # unknown size: count the window elements at run time
        if exclusive and (algorithm == "SAME" or any(pads)):
            ones = call("full_like", x_cf, fill_value=1.0, dtype=None)
            count = _window_sum(nd, ones, kernel, stride, pads, out_len, algorithm)
            return _from_cf(summed * (1.0 / (count * scale)), data_format)
        return _from_cf(summed * float(1.0 / (math.prod(kernel) * scale)), data_format)
    div = _divisor(spatial, kernel, stride, pads, out_len, exclusive)
    if divisor_override:  # NOTE: Paddle rescales the average: avg * prod(kernel) / override
        div = div * scale
    if (div == div.flat[0]).all():
        out = summed * float(1.0 / div.flat[0]) if div.flat[0] else summed / 0.0
    else:
        with np.errstate(divide="ignore"):
            inv = (1.0 / div).astype(x.dtype.name)
        out = summed * call("assign", inv)
    return _from_cf(out, data_format)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """Average pooling of x [N, C, L]; see avg_pool2d."""
    return _avg_pool("avg_pool1d", 1, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     None, "NCL")


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """Average pooling of x [N, C, H, W] (or NHWC).

    Args:
        exclusive (bool): divide by the number of non-padding elements of each window (True)
            or by the window size clipped to the padded input (False).
        divisor_override (float|None): if set, the average is rescaled by
            prod(kernel_size) / divisor_override (Paddle's rule).
        other args: as max_pool2d.
    Returns:
        Tensor.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> paddle.nn.functional.avg_pool2d(x, 2).flatten().tolist()
        [2.5, 4.5, 10.5, 12.5]
    """
    return _avg_pool("avg_pool2d", 2, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     divisor_override, data_format)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCDHW", name=None):
    """Average pooling of x [N, C, D, H, W] (or NDHWC); see avg_pool2d."""
    return _avg_pool("avg_pool3d", 3, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     divisor_override, data_format)


def _adaptive_sizes(api, nd, output_size, spatial) -> list:
    if isinstance(output_size, int) or output_size is None:
        sizes = [output_size] * nd
    else:
        if hasattr(output_size, "numpy"):
            output_size = output_size.numpy().tolist()
        sizes = list(output_size)
        if len(sizes) != nd:
            raise ValueError(f"{api}: output_size must be an int or {nd} ints, got "
                             f"{output_size}")
    out = [n if o is None else int(o) for o, n in zip(sizes, spatial)]
    if any(o <= 0 for o in out):
        raise ValueError(f"{api}: output_size must be positive, got {output_size}")
    return out


def _averaging_matrix(n: int, o: int, dtype: str):
    mat = np.zeros((n, o), dtype)
    for i, (s, e) in enumerate(adaptive_bounds(n, o)):
        mat[s:e, i] = 1.0 / (e - s)
    return mat


def _adaptive_avg(api, nd, x, output_size, data_format):
    check_format(api, data_format, nd)
    _check_x(api, x, nd)
    if x.dtype.kind != "f":
        raise TypeError(f"{api}: x must be a floating point tensor, got {x.dtype.name}")
    spatial = split_channels(list(x.shape), data_format)[2]
    sizes = _adaptive_sizes(api, nd, output_size, spatial)
    first = 1 if is_channel_last(data_format) else 2
    axes = list(range(first, first + nd))
    if all(o == 1 for o in sizes):
        return call("mean", x, axis=axes, keepdim=True)
    for ax, n, o in zip(axes, spatial, sizes):
        if o == n:
            continue
        shape = list(x.shape)
        if n % o == 0:
            x = call("reshape", x, shape=shape[:ax] + [o, n // o] + shape[ax + 1:])
            x = call("mean", x, axis=[ax + 1], keepdim=False)
            continue
        perm = list(range(x.ndim))
        perm[ax], perm[-1] = perm[-1], perm[ax]
        x = call("transpose", x, perm=perm)
        x = call("matmul", x, call("assign", _averaging_matrix(n, o, x.dtype.name)))
        x = call("transpose", x, perm=perm)
    return x


def adaptive_avg_pool1d(x, output_size, name=None):
    """Adaptive average pooling of x [N, C, L] to L = output_size; window i spans
    [floor(i * L / out), ceil((i + 1) * L / out))."""
    return _adaptive_avg("adaptive_avg_pool1d", 1, x, output_size, "NCL")


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Adaptive average pooling of x [N, C, H, W] (or NHWC) to output_size (int or [h, w];
    None keeps that input dim).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.arange(16, dtype="float32").reshape([1, 1, 4, 4])
        >>> paddle.nn.functional.adaptive_avg_pool2d(x, 1).flatten().tolist()
        [7.5]
    """
    return _adaptive_avg("adaptive_avg_pool2d", 2, x, output_size, data_format)


def adaptive_avg_pool3d(x, output_size, data_format="NCDHW", name=None):
    """Adaptive average pooling of x [N, C, D, H, W] (or NDHWC); see adaptive_avg_pool2d."""
    return _adaptive_avg("adaptive_avg_pool3d", 3, x, output_size, data_format)


def _adaptive_max(api, nd, x, output_size, return_mask):
    _check_x(api, x, nd)
    sizes = _adaptive_sizes(api, nd, output_size, list(x.shape[2:]))
    out, mask = call(api, x, output_size=sizes)
    return (out, mask) if return_mask else out


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """Adaptive max pooling of x [N, C, L]; return_mask adds the int32 argmax index."""
    return _adaptive_max("adaptive_max_pool1d", 1, x, output_size, return_mask)


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Adaptive max pooling of x [N, C, H, W]; return_mask adds the int32 flat argmax
    index into H * W."""
    return _adaptive_max("adaptive_max_pool2d", 2, x, output_size, return_mask)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """Adaptive max pooling of x [N, C, D, H, W]; see adaptive_max_pool2d."""
    return _adaptive_max("adaptive_max_pool3d", 3, x, output_size, return_mask)


def _max_unpool(api, nd, x, indices, kernel_size, stride, padding, data_format, output_size):
    if data_format != _CF[nd]:
        raise ValueError(f"{api}: data_format must be {_CF[nd]!r}, got {data_format!r}")
    _check_x(api, x, nd)
    if list(indices.shape) != list(x.shape):
        raise ValueError(f"{api}: indices (shape {list(indices.shape)}) must have the shape "
                         f"of x ({list(x.shape)})")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{api}: indices must be an integer tensor, got {indices.dtype.name}")
    kernel = to_list(api, "kernel_size", kernel_size, nd)
    stride = kernel if stride is None else to_list(api, "stride", stride, nd)
    pad = to_list(api, "padding", padding, nd, minimum=0)
    spatial = list(x.shape[2:])
    if output_size is None:
        size = [(n - 1) * s - 2 * p + k for n, s, p, k in zip(spatial, stride, pad, kernel)]
    else:
        if hasattr(output_size, "numpy"):
            output_size = output_size.numpy().tolist()
        size = [int(v) for v in output_size][-nd:]
        if len(size) != nd:
            raise ValueError(f"{api}: output_size must have {nd} (or {nd + 2}) entries, got "
                             f"{output_size}")
    c, count = x.shape[1], math.prod(spatial)
    x3 = call("reshape", x, shape=[-1, c, count])
    # zeros [N, C, prod(size)] built from x so that an unknown batch size works (static)
    zeros = call("expand", call("full_like", x3[:, :, 0:1], fill_value=0.0, dtype=None),
                 shape=[-1, -1, math.prod(size)])
    try:
        out = call("put_along_axis", zeros, call("reshape", indices, shape=[-1, c, count]), x3,
                   axis=2, reduce="assign", include_self=True, broadcast=False)
    except IndexError as err:
        raise ValueError(f"{api}: indices must index the output of spatial size {size} (i.e. "
                         f"be in [0, {math.prod(size)})); {err}") from err
    return call("reshape", out, shape=[-1, c, *size])


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None):
    """Inverse of max_pool1d: x [N, C, L] placed at `indices` of a zero [N, C, L_out]."""
    return _max_unpool("max_unpool1d", 1, x, indices, kernel_size, stride, padding,
                       data_format, output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None):
    """Inverse of max_pool2d: each x value goes to its flat `indices` position of a zero
    [N, C, H_out, W_out], H_out = (H - 1) * stride - 2 * padding + kernel_size unless
    output_size is given."""
    return _max_unpool("max_unpool2d", 2, x, indices, kernel_size, stride, padding,
                       data_format, output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None):
    """Inverse of max_pool3d; see max_unpool2d."""
    return _max_unpool("max_unpool3d", 3, x, indices, kernel_size, stride, padding,
                       data_format, output_size)


def _lp_pool(api, nd, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format):
    p = float(norm_type)
    if p == float("inf"):
        return _max_pool(f"max_pool{nd}d", nd, x, kernel_size, stride, padding, False,
                         ceil_mode, data_format)
    if p <= 0:
        raise ValueError(f"{api}: norm_type must be positive, got {norm_type}")
    kernel, stride, pads, algorithm, _, out_len = _composite_args(
        api, nd, x, kernel_size, stride, padding, ceil_mode, data_format)
    summed = _window_sum(nd, _to_cf(x ** p, data_format), kernel, stride, pads, out_len,
                         algorithm)
    return _from_cf(summed ** (1.0 / p), data_format)


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCL", name=None):
    """Power-average pooling of x [N, C, L]: (sum of x ** p over the window) ** (1 / p)."""
    return _lp_pool("lp_pool1d", 1, x, norm_type, kernel_size, stride, padding, ceil_mode,
                    data_format)


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCHW", name=None):
    """Power-average pooling of x [N, C, H, W]: (sum of x ** p over the window) ** (1 / p);
    norm_type inf is max pooling."""
    return _lp_pool("lp_pool2d", 2, x, norm_type, kernel_size, stride, padding, ceil_mode,
                    data_format)

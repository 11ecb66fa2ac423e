"""Paddle 3.x fractional max pooling: fractional_max_pool2d / fractional_max_pool3d over
the fractional_max_pool OpDefs (sampan/ops/nn_pool_fractional.py). No mode checks.
"""
from __future__ import annotations

from ...framework import random as _random
from ...framework.tensor import Tensor, is_variable
from ...ops.dispatch import call

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d"]


def _attrs(api: str, nd: int, x, output_size, kernel_size, random_u) -> dict:
    if not isinstance(x, Tensor) and not is_variable(x):
        raise TypeError(f"{api}: x must be a Tensor, got {type(x).__name__}")
    if len(x.shape) != nd + 2:
        raise ValueError(f"{api}: x must be a {nd + 2}-D tensor [N, C, ...], got shape "
                         f"{list(x.shape)}")
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = [output_size] * nd
    if not isinstance(output_size, (list, tuple)) or len(output_size) != nd:
        raise ValueError(f"{api}: output_size must be an int or {nd} ints (None: the input "
                         f"size), got {output_size!r}")
    output_size = [int(x.shape[2 + d]) if o is None else int(o)
                   for d, o in enumerate(output_size)]
    if kernel_size is not None:
        kernel_size = [int(kernel_size)] * nd if isinstance(kernel_size, int) else [
            int(k) for k in kernel_size]
        if len(kernel_size) != nd or any(k <= 0 for k in kernel_size):
            raise ValueError(f"{api}: kernel_size must be a positive int or {nd} of them, "
                             f"got {kernel_size}")
    if random_u is None:  # one draw of the global generator (paddle.seed makes it repeat)
        random_u = max(float(_random.rng(_random.next_seed()).uniform()), 1e-7)
    elif not 0.0 < float(random_u) < 1.0:
        raise ValueError(f"{api}: the param `random_u` should be a `float` in (0, 1), got "
                         f"{random_u}")
    return {"output_size": output_size, "kernel_size": kernel_size,
            "random_u": float(random_u)}


def fractional_max_pool2d(x: Tensor, output_size, kernel_size=None, random_u=None,
                          return_mask: bool = False, name=None):
    """2-D fractional max pooling (Graham, 2015) of x [N, C, H, W] to output_size.

    Window i of a dim spans [int((i + u) * a) - int(u * a), int((i + 1 + u) * a) -
    int(u * a)) with a = in / out (u rescaled to keep windows inside); with kernel_size
    the windows are kernel_size long, a = (in - kernel) / (out - 1).

    Args:
        x (Tensor): float input [N, C, H, W].
        output_size (int|list): (H, W) of the output; None keeps that input size.
        kernel_size (int|list, optional): fixed window size; default None.
        random_u (float, optional): u in (0, 1); None draws one from the global
            generator (repeatable with paddle.seed).
        return_mask (bool): also return the int32 flat index (h * W + w) of each max.
        name (str, optional): unused.

    Returns:
        Tensor [N, C, *output_size], or (out, mask).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([2., 4., 3., 1., 5., 2., 3.]).reshape([1, 1, 1, 7])
        >>> paddle.nn.functional.fractional_max_pool2d(x, [1, 5], random_u=0.3).tolist()
        [[[[2.0, 4.0, 1.0, 5.0, 3.0]]]]
    """
    attrs = _attrs("fractional_max_pool2d", 2, x, output_size, kernel_size, random_u)
    out, mask = call("fractional_max_pool2d", x, **attrs)
    return (out, mask) if return_mask else out


def fractional_max_pool3d(x: Tensor, output_size, kernel_size=None, random_u=None,
                          return_mask: bool = False, name=None):
    """3-D fractional max pooling of x [N, C, D, H, W]; arguments as
    fractional_max_pool2d with three sizes (mask: d * H * W + h * W + w).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.arange(27, dtype="float32").reshape([1, 1, 3, 3, 3])
        >>> paddle.nn.functional.fractional_max_pool3d(x, 2, random_u=0.5).shape
        paddle.Size([1, 1, 2, 2, 2])
    """
    attrs = _attrs("fractional_max_pool3d", 3, x, output_size, kernel_size, random_u)
    out, mask = call("fractional_max_pool3d", x, **attrs)
    return (out, mask) if return_mask else out

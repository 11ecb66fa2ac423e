"""Distances between tensors: pairwise_distance, pdist.

Composes public tensor functions; no mode checks.
"""
from __future__ import annotations

import math

from ...framework.tensor import Tensor, is_variable
from ...ops.dispatch import call

__all__ = ["pairwise_distance", "pdist"]


def _p_norm(d, p: float, axis: int, keepdim: bool):
    """The p-norm of d over `axis` (p = inf: max |d|; p = 0: count of non-zeros)."""
    if p == 0:
        nz = call("cast", call("not_equal", d, call("full_like", d, fill_value=0.0,
                                                    dtype=None)), dtype=d.dtype.name)
        return call("sum", nz, axis=[axis], keepdim=keepdim, dtype=None)
    if math.isinf(p):
        reduce = "max" if p > 0 else "min"
        return call(reduce, call("abs", d), axis=[axis], keepdim=keepdim)
    return call("norm", d, p=float(p), axis=[axis], keepdim=keepdim)


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None) -> Tensor:
    """p-norm distance between the rows of x and y: ||x - y + epsilon||_p over the last axis.

    Args:
        x (Tensor): [N, D] or [D] float input.
        y (Tensor): y's shape broadcastable to x's.
        p (float): the norm degree (0, inf and -inf allowed); default 2.0.
        epsilon (float): added to the difference to avoid a zero norm; default 1e-6.
        keepdim (bool): keep the reduced axis; default False.
        name (str, optional): unused.

    Returns:
        Tensor: [N] ([N, 1] with keepdim); a 1-D input gives a 0-D result ([1] with keepdim).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[1.0, 3.0], [3.0, 5.0]])
        >>> y = paddle.to_tensor([[5.0, 6.0], [7.0, 8.0]])
        >>> paddle.nn.functional.pairwise_distance(x, y, epsilon=0.0).tolist()
        [5.0, 5.0]
    """
    for arg, t in (("x", x), ("y", y)):
        if not isinstance(t, Tensor) and not is_variable(t):
            raise TypeError(f"pairwise_distance: {arg} must be a Tensor, got "
                            f"{type(t).__name__}")
    if len(x.shape) == 0:
        raise ValueError("pairwise_distance: x must be at least 1-D, got a 0-D tensor")
    d = x - y
    if epsilon:
        d = call("scale", d, scale=1.0, bias=float(epsilon), bias_after_scale=True)
    return _p_norm(d, float(p), -1, bool(keepdim))


def pdist(x, p=2.0, name=None) -> Tensor:
    """p-norm distances between all pairs of rows of the 2-D x (upper triangle, row-major).

    Args:
        x (Tensor): [N, M] float input.
        p (float): the norm degree; default 2.0.
        name (str, optional): unused.

    Returns:
        Tensor: [N * (N - 1) / 2].
    """
    if len(x.shape) != 2:
        raise ValueError(f"pdist: x must be 2-D [N, M], got shape {list(x.shape)}")
    n = x.shape[0]
    if n < 2:
        return call("full", shape=[0], fill_value=0.0, dtype=x.dtype.name)
    rows, cols = [], []
    for i in range(n - 1):
        rows += [i] * (n - 1 - i)
        cols += list(range(i + 1, n))
    from ...tensor.creation import to_tensor
    d = x.gather(to_tensor(rows)) - x.gather(to_tensor(cols))
    return _p_norm(d, float(p), -1, False)

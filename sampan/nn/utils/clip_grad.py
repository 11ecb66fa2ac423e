"""paddle.nn.utils.clip_grad_norm_ and clip_grad_value_: clip the .grad of parameters in place.

Written in sampan ops. Imports only sampan's public tensor functions.
"""
from __future__ import annotations

import math

from ...autograd import no_grad
from ...framework.tensor import Tensor
from ...tensor import stack, to_tensor
from ...tensor.linalg import norm
from ..clip import _sum_squares

__all__ = ["clip_grad_norm_", "clip_grad_value_"]

_NORM_TYPES = (math.inf, 0, 1, 2)


def _with_grads(parameters) -> list:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False):
    """Scale the gradients of `parameters` in place so that their joint norm is <= max_norm.

    The joint norm is the `norm_type` norm of the per-gradient norms (inf: the largest
    absolute element); every gradient is multiplied by min(max_norm / (norm + 1e-6), 1).

    Args:
        parameters (Tensor|list[Tensor]): parameters whose .grad to clip.
        max_norm (float): the largest joint norm.
        norm_type (float, optional): order of the norm: inf, 0, 1 or 2. Default 2.0.
        error_if_nonfinite (bool, optional): raise RuntimeError when the norm is nan or inf.

    Returns:
        Tensor: the joint norm of the gradients before clipping (0-D).

    Examples:
        >>> import sampan as paddle
        >>> p = paddle.create_parameter([2], "float32")
        >>> p.grad = paddle.to_tensor([3.0, 4.0])
        >>> float(paddle.nn.utils.clip_grad_norm_([p], max_norm=1.0))
        5.0
        >>> [round(v, 4) for v in p.grad.tolist()]
        [0.6, 0.8]
    """
    if norm_type not in _NORM_TYPES:
        raise ValueError(f"clip_grad_norm_: norm_type must be one of [inf, 0, 1, 2] (as in "
                         f"Paddle), got {norm_type!r}")
    params = _with_grads(parameters)
    if not params:
        return to_tensor(0.0)
    max_norm, norm_type = float(max_norm), float(norm_type)
    with no_grad():
        if norm_type == math.inf:
            norms = [p.grad.abs().max() for p in params]
            total = norms[0] if len(norms) == 1 else stack(norms).max()
        elif norm_type == 2.0:
            norms = [_sum_squares(p.grad).sqrt() for p in params]
            total = norm(stack(norms), p=norm_type)
        else:
            norms = [norm(p.grad.flatten(), p=norm_type) for p in params]
            total = norm(stack(norms), p=norm_type)
        if error_if_nonfinite and not math.isfinite(float(total)):
            raise RuntimeError(f"clip_grad_norm_: the total norm of order {norm_type} of the "
                               f"gradients is non-finite ({float(total)}), so it cannot be "
                               f"clipped; set error_if_nonfinite=False to skip this check")
        coef = (max_norm / (total + 1e-6)).clip(max=1.0)
        for p in params:
            p.grad.multiply_(coef.astype(p.grad.dtype))
    return total


def clip_grad_value_(parameters, clip_value: float) -> None:
    """Clip every gradient element of `parameters` into [-clip_value, clip_value], in place.

    Args:
        parameters (Tensor|list[Tensor]): parameters whose .grad to clip.
        clip_value (float): the bound (positive).

    Examples:
        >>> import sampan as paddle
        >>> p = paddle.create_parameter([3], "float32")
        >>> p.grad = paddle.to_tensor([-2.0, 0.5, 3.0])
        >>> paddle.nn.utils.clip_grad_value_([p], 1.0)
        >>> p.grad.tolist()
        [-1.0, 0.5, 1.0]
    """
    clip_value = float(clip_value)
    with no_grad():
        for p in _with_grads(parameters):
            p.grad.clip_(min=-clip_value, max=clip_value)

"""rms_norm (Paddle 3.x): root-mean-square normalization over trailing dims, composed of
public tensor functions (gradients, static mode and export follow). No mode checks.
"""
from __future__ import annotations

from collections.abc import Sequence

from ...framework.tensor import Tensor, is_variable
from ...tensor.manipulation import reshape
from ...tensor.math_unary import rsqrt
from ...tensor.stat import mean

__all__ = ["rms_norm"]

_LOW = ("float16", "bfloat16")


def rms_norm(input: Tensor, normalized_shape: Sequence[int] | int, weight: Tensor | None = None,
             eps: float = 1e-5, name: str | None = None) -> tuple[Tensor, Tensor]:
    """RMS normalization: out = input / sqrt(mean(input ** 2) + eps) * weight, the mean
    over the trailing dims `normalized_shape`.

    Args:
        input (Tensor): float input whose shape ends with normalized_shape.
        normalized_shape (int|list|tuple): the normalized trailing dims.
        weight (Tensor, optional): scale shaped like normalized_shape; default None.
        eps (float): added to the mean square; default 1e-5.
        name (str, optional): unused.

    Returns:
        (out, invvar): out has input's shape and dtype; invvar is the float32 inverse RMS
        of each of the rows (the leading dims flattened).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[3.0, 4.0], [1.0, 1.0]])
        >>> out, invvar = paddle.nn.functional.rms_norm(x, [2], eps=0.0)
        >>> print(out.numpy().round(4))
        [[0.8485 1.1314]
         [1.     1.    ]]
        >>> print(invvar.numpy().round(4))
        [0.2828 1.    ]
    """
    api = "paddle.nn.functional.rms_norm"
    if not isinstance(input, Tensor) and not is_variable(input):
        raise TypeError(f"{api}: input must be a Tensor, got {type(input).__name__}")
    shape = _normalized(api, input, normalized_shape)
    if weight is not None and list(weight.shape) != shape:
        raise ValueError(f"{api}: weight shape {list(weight.shape)} must equal "
                         f"normalized_shape {shape}")
    dtype = input.dtype.name if hasattr(input.dtype, "name") else str(input.dtype)
    x = input.astype("float32") if dtype in _LOW else input
    axes = list(range(len(input.shape) - len(shape), len(input.shape)))
    inv = rsqrt(mean(x * x, axis=axes, keepdim=True) + float(eps))
    out = x * inv
    if weight is not None:
        out = out * weight.astype(out.dtype)
    return out.astype(input.dtype), reshape(inv, [-1]).astype("float32")


def _normalized(api: str, x, normalized_shape) -> list:
    if isinstance(normalized_shape, int) and not isinstance(normalized_shape, bool):
        normalized_shape = [normalized_shape]
    if not isinstance(normalized_shape, (list, tuple)):
        raise TypeError(f"{api}: normalized_shape must be an int, list or tuple, got "
                        f"{type(normalized_shape).__name__}")
    shape = [int(d) for d in normalized_shape]
    k = len(shape)
    if not 0 < k <= len(x.shape) or list(x.shape[len(x.shape) - k:]) != shape:
        raise ValueError(f"{api}: normalized_shape {shape} must match the trailing dims of "
                         f"input (shape {list(x.shape)})")
    return shape

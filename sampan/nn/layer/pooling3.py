"""Paddle 3.x FractionalMaxPool2D / FractionalMaxPool3D layers over
nn.functional.fractional_max_pool2d/3d. Imports `nn.functional`, `nn.layer.layers`.
"""
from __future__ import annotations

from ..functional import pooling3 as F3
from .layers import Layer

__all__ = ["FractionalMaxPool2D", "FractionalMaxPool3D"]


class FractionalMaxPool2D(Layer):
    """2-D fractional max pooling layer; random_u None draws a new u on every call.

    Args:
        output_size (int|list): output (H, W); None keeps that input size.
        kernel_size (int|list, optional): fixed window size. Default None.
        random_u (float, optional): u in (0, 1). Default None (random).
        return_mask (bool): also return the argmax indices. Default False.

    Examples:
        >>> import sampan as paddle
        >>> pool = paddle.nn.FractionalMaxPool2D(3, random_u=0.3)
        >>> pool
        FractionalMaxPool2D(output_size=3, return_mask=False)
        >>> pool(paddle.rand([1, 2, 7, 7])).shape
        paddle.Size([1, 2, 3, 3])
    """

    _fn = staticmethod(F3.fractional_max_pool2d)

    def __init__(self, output_size, kernel_size=None, random_u=None,
                 return_mask: bool = False, name=None) -> None:
        super().__init__()
        self._output_size = output_size
        self._kernel_size = kernel_size
        self._random_u = random_u
        self._return_mask = return_mask
        self._name = name

    def forward(self, x):
        return type(self)._fn(x, self._output_size, self._kernel_size, self._random_u,
                              self._return_mask)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class FractionalMaxPool3D(FractionalMaxPool2D):
    """3-D fractional max pooling layer; arguments as FractionalMaxPool2D."""

    _fn = staticmethod(F3.fractional_max_pool3d)

"""paddle.vision.ops.deform_conv2d and DeformConv2D over the composite in ops/nn_deform.py
(shared with paddle.static.nn.deform_conv2d). Imports nn and ops."""
from __future__ import annotations

from ... import nn
from ...ops import nn_deform
from ...ops.nn_deform import pair as _pair


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups: int = 1, groups: int = 1, mask=None, name=None):
    """Deformable convolution: each kernel tap samples x at its position plus a learned
    offset (bilinear; zero outside), optionally scaled by a mask (DCN v2).

    Args:
        x (Tensor): [N, C, H, W] input.
        offset (Tensor): [N, 2 * deformable_groups * kh * kw, OH, OW] (dy, dx) per tap.
        weight (Tensor): [out_channels, C / groups, kh, kw].
        bias (Tensor, optional): [out_channels]. Default None.
        stride, padding, dilation (int|tuple, optional): as in conv2d. Defaults 1, 0, 1.
        deformable_groups (int, optional): channel groups sharing one offset set. Default 1.
        groups (int, optional): convolution groups. Default 1.
        mask (Tensor, optional): [N, deformable_groups * kh * kw, OH, OW] modulation.
        name (str, optional): unused.

    Returns:
        Tensor: [N, out_channels, OH, OW].

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import deform_conv2d
        >>> x = paddle.rand([1, 2, 5, 5])
        >>> w = paddle.rand([4, 2, 3, 3])
        >>> offset = paddle.zeros([1, 18, 3, 3])
        >>> out = deform_conv2d(x, offset, w)
        >>> bool(paddle.allclose(out, paddle.nn.functional.conv2d(x, w), atol=1e-5))
        True
    """
    return nn_deform.deform_conv2d(x, offset, weight, bias, stride, padding, dilation,
                                   deformable_groups, groups, mask)


class DeformConv2D(nn.Layer):
    """Layer form of :func:`deform_conv2d`; forward(x, offset, mask=None).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import DeformConv2D
        >>> layer = DeformConv2D(2, 4, 3)
        >>> layer(paddle.rand([1, 2, 5, 5]), paddle.zeros([1, 18, 3, 3])).shape
        paddle.Size([1, 4, 3, 3])
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1,
                 padding=0, dilation=1, deformable_groups: int = 1, groups: int = 1,
                 weight_attr=None, bias_attr=None) -> None:
        super().__init__()
        kh, kw = _pair("DeformConv2D", "kernel_size", kernel_size)
        if in_channels % groups:
            raise ValueError(f"DeformConv2D: in_channels ({in_channels}) must divide by "
                             f"groups ({groups})")
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._deformable_groups, self._groups = deformable_groups, groups
        fan_in = in_channels // groups * kh * kw
        std = (2.0 / fan_in) ** 0.5
        self.weight = self.create_parameter(
            [out_channels, in_channels // groups, kh, kw], attr=weight_attr,
            default_initializer=nn.initializer.Normal(0.0, std))
        self.bias = None if bias_attr is False else self.create_parameter(
            [out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._deformable_groups, self._groups, mask)

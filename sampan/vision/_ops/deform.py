"""deform_conv2d (deformable convolution v1, and v2 with a mask) and DeformConv2D, written
as a composite of sampan ops (bilinear gathers + matmul), so gradients for x, offset, mask,
weight and bias, static Programs and to_static come from the primitives."""
from __future__ import annotations

import numpy as np

from ... import nn
from ... import tensor as T


def _pair(api: str, arg: str, value) -> tuple:
    if isinstance(value, int) and not isinstance(value, bool):
        return value, value
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return int(value[0]), int(value[1])
    raise TypeError(f"{api}: {arg} must be an int or a pair of ints, got {value!r}")


def _check(x, offset, weight, mask, dg: int, groups: int, out_hw: tuple) -> None:
    api = "deform_conv2d"
    for arg, t in (("x", x), ("offset", offset), ("weight", weight)):
        if t.ndim != 4:
            raise ValueError(f"{api}: {arg} must be 4-D, got shape {list(t.shape)}")
    c, k = x.shape[1], weight.shape[2] * weight.shape[3]
    if c % groups or weight.shape[0] % groups or weight.shape[1] * groups != c:
        raise ValueError(f"{api}: weight {list(weight.shape)} does not fit x with {c} channels "
                         f"and groups={groups}")
    if c % dg:
        raise ValueError(f"{api}: channels of x ({c}) must divide by deformable_groups ({dg})")
    want = [x.shape[0], 2 * dg * k, *out_hw]
    if list(offset.shape) != want:
        raise ValueError(f"{api}: offset must have shape {want}, got {list(offset.shape)}")
    if mask is not None and list(mask.shape) != [want[0], dg * k, *out_hw]:
        raise ValueError(f"{api}: mask must have shape {[want[0], dg * k, *out_hw]}, got "
                         f"{list(mask.shape)}")


def _base_grid(kh, kw, oh, ow, stride, padding, dilation) -> tuple:
    """Undeformed sampling rows/cols [K, oh*ow] of every kernel tap."""
    i, j = np.meshgrid(np.arange(kh), np.arange(kw), indexing="ij")
    oy, ox = np.meshgrid(np.arange(oh), np.arange(ow), indexing="ij")
    rows = oy.ravel()[None, :] * stride[0] - padding[0] + i.ravel()[:, None] * dilation[0]
    cols = ox.ravel()[None, :] * stride[1] - padding[1] + j.ravel()[:, None] * dilation[1]
    return rows.astype("float64"), cols.astype("float64")


def _sample(x, py, px, dg: int):
    """Bilinear samples of x [N, C, H, W] at py/px [N, dg, L] (zero outside), [N, C, L]."""
    n, c, h, w = x.shape
    xg = T.reshape(x, [n, dg, c // dg, h * w])
    valid = T.cast(T.logical_and(T.logical_and(py > -1, py < h),
                                 T.logical_and(px > -1, px < w)), x.dtype)
    y0, x0 = T.floor(py), T.floor(px)
    ly, lx = py - y0, px - x0
    out = 0
    for dy, wy in ((0, 1 - ly), (1, ly)):
        for dx, wx in ((0, 1 - lx), (1, lx)):
            yy, xx = y0 + dy, x0 + dx
            inside = T.logical_and(T.logical_and(yy >= 0, yy <= h - 1),
                                   T.logical_and(xx >= 0, xx <= w - 1))
            idx = T.cast(T.clip(yy, 0, h - 1) * w + T.clip(xx, 0, w - 1), "int64")
            idx = T.expand(T.unsqueeze(idx, 2), [n, dg, c // dg, idx.shape[-1]])
            vals = T.take_along_axis(xg, idx, axis=3)  # [N, dg, C/dg, L]
            tap = wy * wx * T.cast(inside, x.dtype) * valid
            out = out + vals * T.unsqueeze(tap, 2)
    return T.reshape(out, [n, c, -1])


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
    api = "deform_conv2d"
    stride, padding = _pair(api, "stride", stride), _pair(api, "padding", padding)
    dilation = _pair(api, "dilation", dilation)
    n, c, h, w = x.shape
    cout, _, kh, kw = weight.shape
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    _check(x, offset, weight, mask, deformable_groups, groups, (oh, ow))
    k, dg = kh * kw, deformable_groups
    rows, cols = _base_grid(kh, kw, oh, ow, stride, padding, dilation)
    off = T.reshape(offset, [n, dg, k, 2, oh * ow])
    py = off[:, :, :, 0] + T.to_tensor(rows, dtype=x.dtype)
    px = off[:, :, :, 1] + T.to_tensor(cols, dtype=x.dtype)
    cols_ = _sample(x, T.reshape(py, [n, dg, k * oh * ow]), T.reshape(px, [n, dg, -1]), dg)
    cols_ = T.reshape(cols_, [n, dg, c // dg, k, oh * ow])
    if mask is not None:
        cols_ = cols_ * T.unsqueeze(T.reshape(mask, [n, dg, k, oh * ow]), 2)
    cols_ = T.reshape(cols_, [n, groups, c // groups * k, oh * ow])
    wmat = T.reshape(weight, [groups, cout // groups, c // groups * k])
    out = T.reshape(T.matmul(wmat, cols_), [n, cout, oh, ow])
    if bias is not None:
        out = out + T.reshape(bias, [1, cout, 1, 1])
    return out


class DeformConv2D(nn.Layer):
    """Layer form of :func:`deform_conv2d`; forward(x, offset, mask=None).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.vision.ops import DeformConv2D
        >>> layer = DeformConv2D(2, 4, 3)
        >>> layer(paddle.rand([1, 2, 5, 5]), paddle.zeros([1, 18, 3, 3])).shape
        [1, 4, 3, 3]
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

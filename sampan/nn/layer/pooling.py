"""Pooling layers: thin wrappers over nn.functional pooling with Paddle's extra_repr.

Imports `nn.functional` and `nn.layer.layers`.
"""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ["MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
           "AdaptiveAvgPool1D", "AdaptiveAvgPool2D", "AdaptiveAvgPool3D", "AdaptiveMaxPool1D",
           "AdaptiveMaxPool2D", "AdaptiveMaxPool3D", "MaxUnPool1D", "MaxUnPool2D",
           "MaxUnPool3D", "LPPool1D", "LPPool2D"]


def _window_repr(layer) -> str:
    return f"kernel_size={layer.ksize}, stride={layer.stride}, padding={layer.padding}"


class MaxPool1D(Layer):
    """Max pooling over [N, C, L]; see paddle.nn.functional.max_pool1d."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.name = return_mask, ceil_mode, name

    @property
    def kernel_size(self):
        return self.ksize

    def forward(self, x):
        return F.max_pool1d(x, self.ksize, self.stride, self.padding, self.return_mask,
                            self.ceil_mode)

    extra_repr = _window_repr


class MaxPool2D(Layer):
    """Max pooling over [N, C, H, W] (or NHWC); see paddle.nn.functional.max_pool2d.

    Examples:
        >>> import sampan as paddle
        >>> pool = paddle.nn.MaxPool2D(2)
        >>> pool
        MaxPool2D(kernel_size=2, stride=None, padding=0)
        >>> pool(paddle.ones([1, 3, 4, 4])).shape
        paddle.Size([1, 3, 2, 2])
    """

    fn = staticmethod(F.max_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCHW", name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.return_mask, self.ceil_mode, self.name = return_mask, ceil_mode, name
        self.data_format = data_format

    def forward(self, x):
        return type(self).fn(x, self.ksize, self.stride, self.padding, self.return_mask,
                             self.ceil_mode, self.data_format)

    extra_repr = _window_repr


class MaxPool3D(MaxPool2D):
    """Max pooling over [N, C, D, H, W] (or NDHWC); see paddle.nn.functional.max_pool3d."""

    fn = staticmethod(F.max_pool3d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False,
                 ceil_mode=False, data_format="NCDHW", name=None) -> None:
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format,
                         name)


class AvgPool1D(Layer):
    """Average pooling over [N, C, L]; see paddle.nn.functional.avg_pool1d."""

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.exclusive, self.ceil_mode, self.name = exclusive, ceil_mode, name

    @property
    def ksize(self):
        return self.kernel_size

    def forward(self, x):
        return F.avg_pool1d(x, self.kernel_size, self.stride, self.padding, self.exclusive,
                            self.ceil_mode)

    extra_repr = _window_repr


class AvgPool2D(Layer):
    """Average pooling over [N, C, H, W] (or NHWC); see paddle.nn.functional.avg_pool2d."""

    fn = staticmethod(F.avg_pool2d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.exclusive, self.divisor = ceil_mode, exclusive, divisor_override
        self.data_format = data_format
        self.name = name

    def forward(self, x):
        return type(self).fn(x, self.ksize, self.stride, self.padding, self.ceil_mode,
                             self.exclusive, self.divisor, self.data_format)

    extra_repr = _window_repr


class AvgPool3D(AvgPool2D):
    """Average pooling over [N, C, D, H, W] (or NDHWC); see avg_pool3d."""

    fn = staticmethod(F.avg_pool3d)

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCDHW", name=None) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format, name)


class _Adaptive(Layer):
    fn = None
    has_format = True

    def __init__(self, output_size, data_format=None, name=None) -> None:
        super().__init__()
        self._output_size, self._data_format, self.name = output_size, data_format, name

    @property
    def output_size(self):
        return self._output_size

    @output_size.setter
    def output_size(self, value) -> None:
        self._output_size = value

    def forward(self, x):
        if self._data_format is None:
            return type(self).fn(x, self._output_size)
        return type(self).fn(x, self._output_size, self._data_format)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}"


class AdaptiveAvgPool1D(_Adaptive):
    """Adaptive average pooling of [N, C, L] to output_size."""

    fn = staticmethod(F.adaptive_avg_pool1d)

    def __init__(self, output_size, name=None) -> None:
        super().__init__(output_size, None, name)


class AdaptiveAvgPool2D(_Adaptive):
    """Adaptive average pooling of [N, C, H, W] (or NHWC) to output_size.

    Examples:
        >>> import sampan as paddle
        >>> paddle.nn.AdaptiveAvgPool2D(1)(paddle.ones([2, 3, 4, 4])).shape
        paddle.Size([2, 3, 1, 1])
    """

    fn = staticmethod(F.adaptive_avg_pool2d)

    def __init__(self, output_size, data_format="NCHW", name=None) -> None:
        super().__init__(output_size, data_format, name)


class AdaptiveAvgPool3D(_Adaptive):
    """Adaptive average pooling of [N, C, D, H, W] (or NDHWC) to output_size."""

    fn = staticmethod(F.adaptive_avg_pool3d)

    def __init__(self, output_size, data_format="NCDHW", name=None) -> None:
        super().__init__(output_size, data_format, name)


class _AdaptiveMax(Layer):
    fn = None

    def __init__(self, output_size, return_mask=False, name=None) -> None:
        super().__init__()
        self._output_size, self._return_mask, self.name = output_size, return_mask, name

    @property
    def output_size(self):
        return self._output_size

    @property
    def return_mask(self):
        return self._return_mask

    def forward(self, x):
        return type(self).fn(x, self._output_size, self._return_mask)

    def extra_repr(self) -> str:
        return f"output_size={self._output_size}, return_mask={self._return_mask}"


class AdaptiveMaxPool1D(_AdaptiveMax):
    """Adaptive max pooling of [N, C, L]; return_mask adds the argmax indices."""

    fn = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2D(_AdaptiveMax):
    """Adaptive max pooling of [N, C, H, W]; return_mask adds the argmax indices."""

    fn = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3D(_AdaptiveMax):
    """Adaptive max pooling of [N, C, D, H, W]; return_mask adds the argmax indices."""

    fn = staticmethod(F.adaptive_max_pool3d)


class _MaxUnPool(Layer):
    fn = None

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None) -> None:
        super().__init__()
        self.ksize, self.stride, self.padding = kernel_size, stride, padding
        self.data_format = data_format
        self.output_size, self.name = output_size, name

    def forward(self, x, indices):
        return type(self).fn(x, indices, self.ksize, self.stride, self.padding,
                             self.data_format, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxUnPool1D(_MaxUnPool):
    """Inverse of MaxPool1D given its mask; forward(x, indices)."""

    fn = staticmethod(F.max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCL",
                 output_size=None, name=None) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool2D(_MaxUnPool):
    """Inverse of MaxPool2D given its mask; forward(x, indices)."""

    fn = staticmethod(F.max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW",
                 output_size=None, name=None) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class MaxUnPool3D(_MaxUnPool):
    """Inverse of MaxPool3D given its mask; forward(x, indices)."""

    fn = staticmethod(F.max_unpool3d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCDHW",
                 output_size=None, name=None) -> None:
        super().__init__(kernel_size, stride, padding, data_format, output_size, name)


class LPPool1D(Layer):
    """Power-average pooling of [N, C, L]; see paddle.nn.functional.lp_pool1d."""

    fn = staticmethod(F.lp_pool1d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format="NCL", name=None) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = float(norm_type), kernel_size
        # NOTE: Paddle's LPPool2D (not LPPool1D) stores stride = kernel_size when None
        self.stride = kernel_size if stride is None and type(self) is LPPool2D else stride
        self.padding, self.ceil_mode, self.name = padding, ceil_mode, name
        self.data_format = data_format

    @property
    def ksize(self):
        return self.kernel_size

    def forward(self, x):
        return type(self).fn(x, self.norm_type, self.kernel_size, self.stride, self.padding,
                             self.ceil_mode, self.data_format)

    def extra_repr(self) -> str:
        return f"norm_type={self.norm_type}, " + _window_repr(self)


class LPPool2D(LPPool1D):
    """Power-average pooling of [N, C, H, W]; see paddle.nn.functional.lp_pool2d."""

    fn = staticmethod(F.lp_pool2d)

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format="NCHW", name=None) -> None:
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format, name)

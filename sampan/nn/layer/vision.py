"""Vision layers: Pad1D/2D/3D, ZeroPad1D/2D/3D, Upsample, UpsamplingNearest2D,
UpsamplingBilinear2D, PixelShuffle, PixelUnshuffle, ChannelShuffle.

Thin wrappers over nn.functional.vision with Paddle's extra_repr. Imports `nn.functional`,
`nn.layer.layers`.
"""
from __future__ import annotations

from ...framework.tensor import Tensor
from .. import functional as F
from .layers import Layer

__all__ = ["Pad1D", "Pad2D", "Pad3D", "ZeroPad1D", "ZeroPad2D", "ZeroPad3D", "Upsample",
           "UpsamplingNearest2D", "UpsamplingBilinear2D", "PixelShuffle", "PixelUnshuffle",
           "ChannelShuffle"]

_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _name_suffix(name) -> str:
    return f", name={name}" if name else ""


class _PadND(Layer):
    """Pad the spatial dims: padding is an int (all sides) or 2 * nd sizes
    [left, right, top, bottom, front, back] (a Tensor is passed through)."""

    _nd = 1
    _formats: tuple = ("NCL", "NLC")

    def __init__(self, padding, mode="constant", value=0.0, data_format=None,
                 name=None) -> None:
        super().__init__()
        layer = type(self).__name__
        data_format = self._formats[0] if data_format is None else data_format
        if mode not in _PAD_MODES:
            raise ValueError(f"{layer}: mode must be one of {list(_PAD_MODES)}, got {mode!r}")
        if data_format not in self._formats:
            raise ValueError(f"{layer}: data_format must be one of {list(self._formats)}, "
                             f"got {data_format!r}")
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = [padding] * (2 * self._nd)
        elif isinstance(padding, (list, tuple)):
            if len(padding) != 2 * self._nd or not all(
                    isinstance(p, int) and not isinstance(p, bool) for p in padding):
                raise ValueError(f"{layer}: padding must be an int or {2 * self._nd} ints, "
                                 f"got {list(padding)}")
            padding = list(padding)
        elif not isinstance(padding, Tensor):
            raise TypeError(f"{layer}: padding must be an int, list, tuple or Tensor, got "
                            f"{type(padding).__name__}")
        self._pad = padding
        self._mode = mode
        self._value = float(value)
        self._data_format = data_format
        self._name = name

    def forward(self, x):
        return F.pad(x, self._pad, mode=self._mode, value=self._value,
                     data_format=self._data_format)

    def extra_repr(self) -> str:
        return (f"padding={self._pad}, mode={self._mode}, value={self._value}, "
                f"data_format={self._data_format}{_name_suffix(self._name)}")


class Pad1D(_PadND):
    """Pad the last dim of a 3-D input: padding = [left, right].

    Args:
        padding (int|list|Tensor): sizes. mode (str): 'constant', 'reflect', 'replicate',
        'circular'. value (float): fill of constant mode. data_format: 'NCL' or 'NLC'.
    """

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL",
                 name=None) -> None:
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadND):
    """Pad H and W of a 4-D input: padding = [left, right, top, bottom]."""

    _nd = 2
    _formats = ("NCHW", "NHWC")

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW",
                 name=None) -> None:
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_PadND):
    """Pad D, H and W of a 5-D input: padding = [left, right, top, bottom, front, back]."""

    _nd = 3
    _formats = ("NCDHW", "NDHWC")

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW",
                 name=None) -> None:
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad1D(Pad1D):
    """Zero padding of a 3-D input: padding = [left, right]."""

    def __init__(self, padding, data_format="NCL", name=None) -> None:
        super().__init__(padding, "constant", 0.0, data_format, name)


class ZeroPad2D(Pad2D):
    """Zero padding of a 4-D input: padding = [left, right, top, bottom]."""

    def __init__(self, padding, data_format="NCHW", name=None) -> None:
        super().__init__(padding, "constant", 0.0, data_format, name)


class ZeroPad3D(Pad3D):
    """Zero padding of a 5-D input: padding = [left, right, top, bottom, front, back]."""

    def __init__(self, padding, data_format="NCDHW", name=None) -> None:
        super().__init__(padding, "constant", 0.0, data_format, name)


def _check_resize(layer: str, size, scale_factor) -> None:
    if size is None and scale_factor is None:
        raise ValueError(f"{layer}: one of size and scale_factor must be given")
    if size is not None and scale_factor is not None:
        raise ValueError(f"{layer}: only one of size and scale_factor may be given")


class Upsample(Layer):
    """Resize the spatial dims (see nn.functional.interpolate for the arguments)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False,
                 align_mode=0, data_format=None, recompute_scale_factor=None,
                 name=None) -> None:
        super().__init__()
        _check_resize("Upsample", size, scale_factor)
        if not isinstance(mode, str) or mode.lower() not in (
                "nearest", "linear", "bilinear", "bicubic", "trilinear", "area"):
            raise ValueError(f"Upsample: mode must be one of 'nearest', 'linear', "
                             f"'bilinear', 'bicubic', 'trilinear', 'area', got {mode!r}")
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode.lower()
        self.align_corners = align_corners
        self.align_mode = align_mode
        self.data_format = data_format
        self.recompute_scale_factor = recompute_scale_factor
        self.name = name

    def forward(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.align_mode, self.data_format, self.recompute_scale_factor)

    def extra_repr(self) -> str:
        main = (f"scale_factor={self.scale_factor}" if self.scale_factor is not None
                else f"size={self.size}")
        return (f"{main}, mode={self.mode}, align_corners={self.align_corners}, "
                f"align_mode={self.align_mode}, data_format={self.data_format}"
                f"{_name_suffix(self.name)}")


class UpsamplingNearest2D(Layer):
    """Nearest-neighbour resize of a 4-D input."""

    _mode = "nearest"
    _align_corners = False

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None) -> None:
        super().__init__()
        _check_resize(type(self).__name__, size, scale_factor)
        self.size = size
        self.scale_factor = scale_factor
        self.data_format = data_format
        self.name = name

    def forward(self, x):
        return F.interpolate(x, self.size, self.scale_factor, self._mode, self._align_corners,
                             0, self.data_format)

    def extra_repr(self) -> str:
        main = (f"scale_factor={self.scale_factor}" if self.scale_factor is not None
                else f"size={self.size}")
        return f"{main}, data_format={self.data_format}{_name_suffix(self.name)}"


class UpsamplingBilinear2D(UpsamplingNearest2D):
    """Bilinear resize of a 4-D input with align_corners=True."""

    _mode = "bilinear"
    _align_corners = True


class PixelShuffle(Layer):
    """[N, C*r*r, H, W] -> [N, C, H*r, W*r] (see nn.functional.pixel_shuffle)."""

    def __init__(self, upscale_factor, data_format="NCHW", name=None) -> None:
        super().__init__()
        if isinstance(upscale_factor, bool) or not isinstance(upscale_factor, int) or \
                upscale_factor <= 0:
            raise ValueError(f"PixelShuffle: upscale_factor must be a positive int, got "
                             f"{upscale_factor!r}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"PixelShuffle: data_format must be 'NCHW' or 'NHWC', got "
                             f"{data_format!r}")
        self._upscale_factor = upscale_factor
        self._data_format = data_format
        self._name = name

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)

    def extra_repr(self) -> str:
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"upscale_factor={self._upscale_factor}{fmt}{_name_suffix(self._name)}"


class PixelUnshuffle(Layer):
    """[N, C, H*r, W*r] -> [N, C*r*r, H, W] (see nn.functional.pixel_unshuffle)."""

    def __init__(self, downscale_factor, data_format="NCHW", name=None) -> None:
        super().__init__()
        if isinstance(downscale_factor, bool) or not isinstance(downscale_factor, int) or \
                downscale_factor <= 0:
            raise ValueError(f"PixelUnshuffle: downscale_factor must be a positive int, got "
                             f"{downscale_factor!r}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"PixelUnshuffle: data_format must be 'NCHW' or 'NHWC', got "
                             f"{data_format!r}")
        self._downscale_factor = downscale_factor
        self._data_format = data_format
        self._name = name

    def forward(self, x):
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format)

    def extra_repr(self) -> str:
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"downscale_factor={self._downscale_factor}{fmt}{_name_suffix(self._name)}"


class ChannelShuffle(Layer):
    """Shuffle channels in `groups` (see nn.functional.channel_shuffle)."""

    def __init__(self, groups, data_format="NCHW", name=None) -> None:
        super().__init__()
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"ChannelShuffle: groups must be a positive int, got {groups!r}")
        if data_format not in ("NCHW", "NHWC"):
            raise ValueError(f"ChannelShuffle: data_format must be 'NCHW' or 'NHWC', got "
                             f"{data_format!r}")
        self._groups = groups
        self._data_format = data_format
        self._name = name

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self) -> str:
        fmt = f", data_format={self._data_format}" if self._data_format != "NCHW" else ""
        return f"groups={self._groups}{fmt}{_name_suffix(self._name)}"

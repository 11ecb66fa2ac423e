"""paddle.vision.transforms.functional: image operations on PIL images, HWC ndarrays and Tensors.

Each function checks its arguments, then sends the image to Pillow (PIL images) or to the NumPy
kernels (ndarrays, H x W x C; Tensors, C x H x W or N x C x H x W, go through NumPy and come
back as Tensors of the same dtype). Transforms are data preprocessing: no gradients flow.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Sequence

import numpy as np

from ...framework.tensor import Tensor
from ...tensor.creation import to_tensor as _to_tensor
from . import functional_np as F_np
from . import functional_pil as F_pil

__all__ = ["to_tensor", "resize", "pad", "crop", "center_crop", "hflip", "vflip",
           "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue",
           "affine", "rotate", "perspective", "to_grayscale", "normalize", "erase"]


def _is_pil_image(img: Any) -> bool:
    return F_pil.is_pil_image(img)


def _is_tensor_image(img: Any) -> bool:
    return isinstance(img, Tensor) or _is_variable(img)


def _is_variable(img: Any) -> bool:
    """A static-graph Variable (CHW / NCHW image whose values exist only at run time)."""
    return getattr(img, "_is_variable", False) is True


def _is_numpy_image(img: Any) -> bool:
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _check_image(img: Any, api: str) -> None:
    if _is_tensor_image(img):
        if img.ndim not in (3, 4):
            raise ValueError(f"{api}: a Tensor image must be 3-D (CHW) or 4-D (NCHW), "
                             f"got shape {list(img.shape)}")
        return
    if not (_is_pil_image(img) or _is_numpy_image(img)):
        raise TypeError(f"{api}: img should be PIL Image, Tensor Image or ndarray with "
                        f"dim=[2 or 3]. Got {type(img).__name__}"
                        + (f" with shape {list(img.shape)}" if isinstance(img, np.ndarray) else ""))


def _on_chw(arr: np.ndarray, fn: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """Run an HWC NumPy kernel over a CHW / NCHW array."""
    if arr.ndim == 3:
        out = np.moveaxis(fn(np.moveaxis(arr, 0, -1)), -1, 0)
    else:
        out = np.stack([np.moveaxis(fn(np.moveaxis(a, 0, -1)), -1, 0) for a in arr])
    return np.ascontiguousarray(out)


def _on_tensor(img: Tensor, fn: Callable[[np.ndarray], np.ndarray]) -> Tensor:
    """Run an HWC NumPy kernel over a CHW / NCHW Tensor."""
    return _to_tensor(_on_chw(img.numpy(), fn))


def _on_variable(img: Any, api: str, fn: Callable[[np.ndarray], np.ndarray]) -> Any:
    """Append the kernel to the Variable's Program as a py_func op (run on every Executor.run
    with the same kernel as eager Tensors, so both modes agree). Random transforms wrap their
    whole call in one py_func instead (transforms._at_run_time: they draw at every run). The
    output shape comes from running the kernel on zeros, so the image shape must be fully
    known."""
    if any(d < 0 for d in img.shape):
        raise NotImplementedError(f"{api}: a static Variable image needs a fully known shape "
                                  f"(no -1 dims), got {list(img.shape)}")
    from ...static.py_func import py_func  # static sits below vision; loaded on use
    probe = _on_chw(np.zeros(img.shape, img.dtype.np), fn)
    out = img.block.program.current_block().create_var(shape=probe.shape,
                                                       dtype=str(probe.dtype))
    return py_func(lambda t: _on_chw(np.asarray(t), fn), img, out)


def _apply(img: Any, api: str, np_fn: Callable, pil_fn: Callable,
           tensor_fn: Callable | None = None) -> Any:
    _check_image(img, api)
    if _is_pil_image(img):
        return pil_fn(img)
    if _is_variable(img):
        return _on_variable(img, api, tensor_fn or np_fn)
    if _is_tensor_image(img):
        return _on_tensor(img, tensor_fn or np_fn)
    return np_fn(img)


def get_image_size(img: Any) -> tuple:
    """(width, height) of a PIL image, HWC ndarray or CHW/NCHW Tensor."""
    if _is_pil_image(img):
        return img.size
    if _is_tensor_image(img):
        return tuple(img.shape[-1:-3:-1])
    return img.shape[1], img.shape[0]


def to_tensor(pic: Any, data_format: str = "CHW") -> Tensor:
    """Convert a PIL image or HWC ndarray to a Tensor; uint8 values scale to [0, 1].

    Args:
        pic (PIL.Image|np.ndarray|Tensor): the image (H x W or H x W x C).
        data_format (str, optional): 'CHW' or 'HWC' layout of the result. Default: 'CHW'.

    Returns:
        Tensor: float32 in [0, 1] for uint8 input, else the input dtype.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> from sampan.vision.transforms import functional as F
        >>> F.to_tensor(np.zeros((4, 5, 3), np.uint8)).shape
        paddle.Size([3, 4, 5])
    """
    _check_image(pic, "to_tensor")
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"to_tensor: data_format should be 'CHW' or 'HWC', got {data_format!r}")
    if _is_tensor_image(pic):
        return pic if data_format == "CHW" else pic.transpose((1, 2, 0))
    arr = F_pil.to_array(pic) if _is_pil_image(pic) else np.asarray(pic)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / 255.0
    if data_format == "CHW":
        arr = arr.transpose(2, 0, 1)
    return _to_tensor(np.ascontiguousarray(arr))


def resize(img: Any, size: int | Sequence[int], interpolation: str = "bilinear") -> Any:
    """Resize to size (h, w); an int sets the shorter side and keeps the aspect ratio.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import functional as F
        >>> F.resize(np.zeros((4, 8, 3), np.uint8), 2).shape
        (2, 4, 3)
    """
    if not (isinstance(size, int) or (isinstance(size, Sequence) and len(size) == 2)):
        raise TypeError(f"resize: size must be an int or a (h, w) sequence, got {size!r}")
    if isinstance(size, int) and size <= 0 or not isinstance(size, int) and min(size) <= 0:
        raise ValueError(f"resize: size must be positive, got {size!r}")
    np_modes = ("nearest", "bilinear", "bicubic", "area")
    if not _is_pil_image(img) and interpolation not in np_modes:
        raise ValueError(f"resize: interpolation for ndarray/Tensor images must be one of "
                         f"{np_modes}, got {interpolation!r}")
    return _apply(img, "resize", lambda a: F_np.resize(a, size, interpolation),
                  lambda p: F_pil.resize(p, size, interpolation))


def _padding4(padding) -> tuple:
    if isinstance(padding, numbers.Integral):
        return (int(padding),) * 4
    if isinstance(padding, (list, tuple)) and len(padding) == 2:
        return padding[0], padding[1], padding[0], padding[1]
    if isinstance(padding, (list, tuple)) and len(padding) == 4:
        return tuple(padding)
    raise ValueError(f"pad: padding must be an int or a 2 or 4 element sequence, got {padding!r}")


def pad(img: Any, padding: int | Sequence[int], fill: Any = 0,
        padding_mode: str = "constant") -> Any:
    """Pad the borders: int (all), (left/right, top/bottom) or (left, top, right, bottom).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import functional as F
        >>> F.pad(np.ones((2, 2, 3), np.uint8), (1, 2)).shape
        (6, 4, 3)
    """
    if not isinstance(padding, (numbers.Number, list, tuple)):
        raise TypeError(f"pad: padding must be an int or a sequence, got {type(padding).__name__}")
    if not isinstance(fill, (numbers.Number, str, list, tuple)):
        raise TypeError(f"pad: fill must be a number or a sequence, got {type(fill).__name__}")
    modes = ("constant", "edge", "reflect", "symmetric")
    if padding_mode not in modes:
        raise ValueError(f"pad: padding_mode must be one of {modes}, got {padding_mode!r}")
    pads = _padding4(padding)
    return _apply(img, "pad", lambda a: F_np.pad(a, pads, fill, padding_mode),
                  lambda p: F_pil.pad(p, pads, fill, padding_mode))


def crop(img: Any, top: int, left: int, height: int, width: int) -> Any:
    """Crop the box with top-left corner (top, left) and size (height, width)."""
    return _apply(img, "crop", lambda a: F_np.crop(a, top, left, height, width),
                  lambda p: F_pil.crop(p, top, left, height, width))


def center_crop(img: Any, output_size: int | Sequence[int]) -> Any:
    """Crop the centre (h, w) box (an int gives a square).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import functional as F
        >>> F.center_crop(np.arange(16).reshape(4, 4), 2)
        array([[ 5,  6],
               [ 9, 10]])
    """
    _check_image(img, "center_crop")
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    width, height = get_image_size(img)
    th, tw = output_size
    top, left = int(round((height - th) / 2.0)), int(round((width - tw) / 2.0))
    return crop(img, top, left, th, tw)


def hflip(img: Any) -> Any:
    """Flip left-right.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import functional as F
        >>> F.hflip(np.array([[1, 2, 3]]))
        array([[3, 2, 1]])
    """
    return _apply(img, "hflip", F_np.hflip, F_pil.hflip)


def vflip(img: Any) -> Any:
    """Flip top-bottom."""
    return _apply(img, "vflip", F_np.vflip, F_pil.vflip)


def _factor(value: float, api: str, name: str) -> float:
    if not isinstance(value, numbers.Number) or value < 0:
        raise ValueError(f"{api}: {name} must be a non-negative number, got {value!r}")
    return float(value)


def adjust_brightness(img: Any, brightness_factor: float) -> Any:
    """Scale brightness: 0 black, 1 the original, 2 twice as bright (clipped).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import functional as F
        >>> F.adjust_brightness(np.array([[[100, 200, 50]]], np.uint8), 1.5)
        array([[[150, 255,  75]]], dtype=uint8)
    """
    f = _factor(brightness_factor, "adjust_brightness", "brightness_factor")
    return _apply(img, "adjust_brightness", lambda a: F_np.adjust_brightness(a, f),
                  lambda p: F_pil.adjust_brightness(p, f))


def adjust_contrast(img: Any, contrast_factor: float) -> Any:
    """Blend with the mean gray level: 0 solid gray, 1 the original."""
    f = _factor(contrast_factor, "adjust_contrast", "contrast_factor")
    return _apply(img, "adjust_contrast", lambda a: F_np.adjust_contrast(a, f),
                  lambda p: F_pil.adjust_contrast(p, f))


def adjust_saturation(img: Any, saturation_factor: float) -> Any:
    """Blend with the grayscale image: 0 gray, 1 the original."""
    f = _factor(saturation_factor, "adjust_saturation", "saturation_factor")
    return _apply(img, "adjust_saturation", lambda a: F_np.adjust_saturation(a, f),
                  lambda p: F_pil.adjust_saturation(p, f))


def adjust_hue(img: Any, hue_factor: float) -> Any:
    """Shift the hue channel (HSV) cyclically by hue_factor in [-0.5, 0.5]."""
    if not isinstance(hue_factor, numbers.Number) or not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"adjust_hue: hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    return _apply(img, "adjust_hue", lambda a: F_np.adjust_hue(a, hue_factor),
                  lambda p: F_pil.adjust_hue(p, hue_factor))


def _affine_coeffs(center, angle, translate, scale, shear) -> list:
    """Inverse affine map (output -> input): C * RSS^-1 * C^-1 * T^-1 as 6 coefficients."""
    rot, sx, sy = math.radians(angle), math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    m = [v / scale for v in (d, -b, 0.0, -c, a, 0.0)]
    (cx, cy), (tx, ty) = center, translate
    m[2] = m[0] * (-cx - tx) + m[1] * (-cy - ty) + cx
    m[5] = m[3] * (-cx - tx) + m[4] * (-cy - ty) + cy
    return m


def _check_affine(angle, translate, scale, shear, center) -> list:
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"affine: angle should be int or float, got {type(angle).__name__}")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise ValueError(f"affine: translate should be a sequence of length 2, got {translate!r}")
    if scale <= 0.0:
        raise ValueError(f"affine: scale should be positive, got {scale}")
    if isinstance(shear, numbers.Number):
        shear = [shear, 0.0]
    if not isinstance(shear, (list, tuple)) or len(shear) not in (1, 2):
        raise ValueError(f"affine: shear should be a number or a sequence of two values, "
                         f"got {shear!r}")
    if center is not None and not isinstance(center, (list, tuple)):
        raise TypeError(f"affine: center should be a sequence, got {type(center).__name__}")
    return [shear[0], shear[0]] if len(shear) == 1 else list(shear)


def affine(img: Any, angle: float, translate: Sequence[float], scale: float,
           shear: float | Sequence[float], interpolation: str = "nearest", fill: Any = 0,
           center: Sequence[float] | None = None) -> Any:
    """Rotate (degrees, counter-clockwise), translate, scale and shear, keeping the centre."""
    _check_image(img, "affine")
    shear = _check_affine(angle, translate, scale, shear, center)
    width, height = get_image_size(img)
    center = [width * 0.5, height * 0.5] if center is None else center
    coeffs = _affine_coeffs(center, float(angle), translate, scale, shear)
    # the Tensor path works in centred coordinates (Paddle's affine_grid)
    centred = _affine_coeffs([c - s * 0.5 for c, s in zip(center, (width, height))],
                             float(angle), translate, scale, shear)
    return _apply(img, "affine",
                  lambda a: F_np.warp(a, F_np.pil_coords(coeffs, a.shape[:2], interpolation), interpolation,
                                      fill),
                  lambda p: F_pil.affine(p, coeffs, interpolation, fill),
                  lambda a: F_np.warp(a, F_np.grid_coords(centred, a.shape[:2], a.shape[:2]),
                                      interpolation, fill, grid=True))


def rotate(img: Any, angle: float, interpolation: str = "nearest", expand: bool = False,
           center: Sequence[float] | None = None, fill: Any = 0) -> Any:
    """Rotate by angle degrees counter-clockwise around center (default: the image centre).

    Args:
        img (PIL.Image|np.ndarray|Tensor): the image.
        angle (float): degrees, counter-clockwise.
        interpolation (str, optional): 'nearest' or 'bilinear' (PIL also 'bicubic').
            Default: 'nearest'.
        expand (bool, optional): grow the output to hold the whole rotated image.
            Default: False.
        center (tuple, optional): (x, y) rotation centre. Default: None (the centre).
        fill (int|tuple, optional): value for pixels outside the source. Default: 0.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import functional as F
        >>> F.rotate(np.array([[1, 2], [3, 4]], np.uint8), 90)
        array([[2, 4],
               [1, 3]], dtype=uint8)
    """
    _check_image(img, "rotate")
    if not isinstance(angle, numbers.Number):
        raise TypeError(f"rotate: angle should be int or float, got {type(angle).__name__}")
    center = tuple(center) if isinstance(center, list) else center
    fill = tuple(fill) if isinstance(fill, list) else fill

    def on_array(a, grid=False):
        h, w = a.shape[:2]
        if grid:
            theta, out_hw = F_np.rotate_coeffs_grid(w, h, angle, expand, center)
            points = F_np.grid_coords(theta, (h, w), out_hw)
        else:
            coeffs, out_hw = F_np.rotate_coeffs(w, h, angle, expand, center)
            points = F_np.pil_coords(coeffs, out_hw, interpolation)
        return F_np.warp(a, points, interpolation, fill, grid)
    return _apply(img, "rotate", on_array,
                  lambda p: F_pil.rotate(p, angle, interpolation, expand, center, fill),
                  lambda a: on_array(a, grid=True))


def _perspective_coeffs(startpoints, endpoints) -> list:
    a = np.zeros((8, 8))
    for i, (p1, p2) in enumerate(zip(endpoints, startpoints)):
        a[2 * i] = [p1[0], p1[1], 1, 0, 0, 0, -p2[0] * p1[0], -p2[0] * p1[1]]
        a[2 * i + 1] = [0, 0, 0, p1[0], p1[1], 1, -p2[1] * p1[0], -p2[1] * p1[1]]
    b = np.asarray(startpoints, dtype=np.float64).reshape(8)
    return list(np.linalg.lstsq(a, b, rcond=None)[0])


def perspective(img: Any, startpoints: Sequence, endpoints: Sequence,
                interpolation: str = "nearest", fill: Any = 0) -> Any:
    """Warp so the four startpoints [tl, tr, br, bl] (x, y) land on endpoints."""
    _check_image(img, "perspective")
    for name, pts in (("startpoints", startpoints), ("endpoints", endpoints)):
        if len(pts) != 4 or any(len(p) != 2 for p in pts):
            raise ValueError(f"perspective: {name} must be four [x, y] points, got {pts!r}")
    coeffs = _perspective_coeffs(startpoints, endpoints)
    return _apply(img, "perspective",
                  lambda a: F_np.warp(a, F_np.pil_coords(coeffs, a.shape[:2], interpolation), interpolation,
                                      fill),
                  lambda p: F_pil.perspective(p, coeffs, interpolation, fill),
                  lambda a: F_np.warp(a, F_np.grid_coords(coeffs, a.shape[:2], a.shape[:2]),
                                      interpolation, fill, grid=True))


def to_grayscale(img: Any, num_output_channels: int = 1) -> Any:
    """Grayscale with 1 or 3 channels (ITU-R 601-2 luma, Pillow's rounding for uint8).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import functional as F
        >>> F.to_grayscale(np.array([[[255, 0, 0]]], np.uint8))
        array([[[76]]], dtype=uint8)
    """
    if num_output_channels not in (1, 3):
        raise ValueError(f"to_grayscale: num_output_channels should be either 1 or 3, "
                         f"got {num_output_channels}")
    return _apply(img, "to_grayscale", lambda a: F_np.to_grayscale(a, num_output_channels),
                  lambda p: F_pil.to_grayscale(p, num_output_channels))


def normalize(img: Any, mean: Sequence[float], std: Sequence[float], data_format: str = "CHW",
              to_rgb: bool = False) -> Any:
    """(img - mean) / std per channel; PIL/ndarray give float32 ndarrays, Tensors Tensors.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import functional as F
        >>> F.normalize(np.full((1, 1, 2), 4.0), [2.0, 0.0], [2.0, 1.0], data_format='HWC')
        array([[[1., 4.]]], dtype=float32)
    """
    if data_format.upper() not in ("CHW", "HWC"):
        raise ValueError(f"normalize: data_format should be 'CHW' or 'HWC', got {data_format!r}")
    if _is_tensor_image(img):
        out = F_np.normalize(img.numpy(), mean, std, data_format, to_rgb)
        return _to_tensor(np.ascontiguousarray(out))
    if _is_pil_image(img):
        img = np.array(img).astype(np.float32)
    return F_np.normalize(img, mean, std, data_format, to_rgb)


def erase(img: Any, i: int, j: int, h: int, w: int, v: Any, inplace: bool = False) -> Any:
    """Set the box (i, j, h, w) to v (CHW box for Tensors, HWC for arrays and PIL images)."""
    _check_image(img, "erase")
    if _is_pil_image(img):
        return F_pil.erase(img, i, j, h, w, v)
    if _is_variable(img):  # a CHW value: to the HWC box of the kernel's layout
        hwc = np.moveaxis(v, 0, -1) if np.ndim(v) == 3 else v
        return _on_variable(img, "erase", lambda a: erase(a, i, j, h, w, hwc))
    if _is_tensor_image(img):
        arr = img.numpy().copy()
        arr[..., i:i + h, j:j + w] = v.numpy() if isinstance(v, Tensor) else v
        if inplace:
            img.set_value(arr)
            return img
        return _to_tensor(arr)
    out = img if inplace else img.copy()
    out[i:i + h, j:j + w, ...] = v
    return out

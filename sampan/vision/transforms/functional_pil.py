"""Image kernels on PIL images (Pillow is imported lazily, only when such an image is passed)."""
from __future__ import annotations

import numpy as np

from . import functional_np as F_np

_INTERP = ("nearest", "bilinear", "bicubic", "box", "lanczos", "hamming")


def _pil():
    from PIL import Image, ImageEnhance, ImageOps
    return Image, ImageEnhance, ImageOps


def is_pil_image(img) -> bool:
    image_cls = _loaded_image_class()
    return image_cls is not None and isinstance(img, image_cls)


def _loaded_image_class():
    import sys
    module = sys.modules.get("PIL.Image")  # a PIL image exists only if Pillow was imported
    return getattr(module, "Image", None)


def interp(name: str, api: str):
    Image = _pil()[0]
    if name not in _INTERP:
        raise ValueError(f"{api}: interpolation for PIL images must be one of {_INTERP}, "
                         f"got {name!r}")
    return getattr(Image.Resampling, name.upper())


def to_array(pic) -> tuple:
    """(H x W x C array, scale to [0,1]?) of a PIL image, following its mode."""
    if pic.mode in ("I", "I;16"):
        arr = np.asarray(pic, np.int32)
    elif pic.mode == "F":
        arr = np.asarray(pic, np.float32)
    elif pic.mode == "1":
        arr = 255 * np.asarray(pic, np.uint8)
    else:
        arr = np.asarray(pic)
    channels = 3 if pic.mode == "YCbCr" else 1 if pic.mode == "I;16" else len(pic.mode)
    return arr.reshape(pic.size[1], pic.size[0], channels)


def resize(img, size, interpolation: str = "bilinear"):
    w, h = img.size
    oh, ow = F_np.output_size(w, h, size)
    if isinstance(size, int) and (oh, ow) == (h, w):
        return img
    return img.resize((ow, oh), interp(interpolation, "resize"))


def pad(img, padding: tuple, fill=0, padding_mode: str = "constant"):
    Image, _, ImageOps = _pil()
    palette = img.getpalette() if img.mode == "P" else None
    if padding_mode == "constant":
        fill = tuple(fill) if isinstance(fill, list) else fill
        out = ImageOps.expand(img, border=padding, fill=fill)
    else:
        out = Image.fromarray(F_np.pad(np.asarray(img), padding, 0, padding_mode))
    if palette is not None:
        out.putpalette(palette)
    return out


def crop(img, top: int, left: int, height: int, width: int):
    return img.crop((left, top, left + width, top + height))


def hflip(img):
    return img.transpose(_pil()[0].Transpose.FLIP_LEFT_RIGHT)


def vflip(img):
    return img.transpose(_pil()[0].Transpose.FLIP_TOP_BOTTOM)


def adjust_brightness(img, factor: float):
    return _pil()[1].Brightness(img).enhance(factor)


def adjust_contrast(img, factor: float):
    return _pil()[1].Contrast(img).enhance(factor)


def adjust_saturation(img, factor: float):
    return _pil()[1].Color(img).enhance(factor)


def adjust_hue(img, factor: float):
    Image = _pil()[0]
    if img.mode in {"L", "1", "I", "F"}:
        return img
    h, s, v = img.convert("HSV").split()
    shifted = ((np.asarray(h).astype(np.int16) + int(factor * 255)) % 256).astype(np.uint8)
    return Image.merge("HSV", (Image.fromarray(shifted, "L"), s, v)).convert(img.mode)


def _fill(fill):
    if isinstance(fill, (int, float)):
        return tuple([fill] * 3)
    return tuple(fill)


def affine(img, coeffs, interpolation: str = "nearest", fill=0):
    Image = _pil()[0]
    return img.transform(img.size, Image.Transform.AFFINE, coeffs,
                         interp(interpolation, "affine"), fillcolor=_fill(fill))


def rotate(img, angle: float, interpolation: str = "nearest", expand: bool = False,
           center=None, fill=0):
    return img.rotate(angle, interp(interpolation, "rotate"), expand, center,
                      fillcolor=_fill(fill))


def perspective(img, coeffs, interpolation: str = "nearest", fill=0):
    Image = _pil()[0]
    return img.transform(img.size, Image.Transform.PERSPECTIVE, coeffs,
                         interp(interpolation, "perspective"), fillcolor=_fill(fill))


def to_grayscale(img, num_output_channels: int = 1):
    Image = _pil()[0]
    gray = img.convert("L")
    if num_output_channels == 1:
        return gray
    arr = np.asarray(gray, dtype=np.uint8)
    return Image.fromarray(np.dstack([arr, arr, arr]), "RGB")


def erase(img, i: int, j: int, h: int, w: int, v, inplace: bool = False):
    arr = np.array(img, dtype=np.uint8)
    arr[i:i + h, j:j + w, ...] = v
    return _pil()[0].fromarray(arr, img.mode if arr.ndim == 3 else "L")

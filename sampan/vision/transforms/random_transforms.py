"""Random transforms (crops, flips, colour jitter, rotation, affine, perspective, erasing).

Every draw comes from sampan's global generator (transforms.rng), so paddle.seed(n) makes a
pipeline reproducible.
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

import numpy as np

from . import functional as F
from .transforms import BaseTransform, Compose, image_size, rng

__all__ = ["RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip", "RandomVerticalFlip",
           "BrightnessTransform", "ContrastTransform", "SaturationTransform", "HueTransform",
           "ColorJitter", "RandomRotation", "RandomAffine", "RandomPerspective",
           "RandomErasing"]

Keys = Sequence[str] | None


def _size2(size, name: str) -> tuple:
    if isinstance(size, numbers.Number):
        return int(size), int(size)
    if isinstance(size, (list, tuple)) and len(size) == 2:
        return tuple(size)
    raise ValueError(f"{name}: size must be an int or a (h, w) sequence, got {size!r}")


class RandomCrop(BaseTransform):
    """Crop a random (h, w) box, after optional padding (pad_if_needed pads small images).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import RandomCrop
        >>> RandomCrop(3, padding=1)(np.zeros((4, 4, 3), np.uint8)).shape
        (3, 3, 3)
    """

    _random_params = True

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill=0,
                 padding_mode: str = "constant", keys: Keys = None) -> None:
        super().__init__(keys)
        self.size = _size2(size, "RandomCrop")
        self.padding, self.pad_if_needed = padding, pad_if_needed
        self.fill, self.padding_mode = fill, padding_mode

    def _apply_image(self, img: Any) -> Any:
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = image_size(img)
        th, tw = self.size
        if self.pad_if_needed and w < tw:
            img = F.pad(img, (tw - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < th:
            img = F.pad(img, (0, th - h), self.fill, self.padding_mode)
        w, h = image_size(img)
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: crop size {(th, tw)} is larger than the image "
                             f"{(h, w)} (h, w); set padding or pad_if_needed=True")
        g = rng()
        i, j = int(g.integers(0, h - th + 1)), int(g.integers(0, w - tw + 1))
        return F.crop(img, i, j, th, tw)


class RandomResizedCrop(BaseTransform):
    """Crop a random area (scale) and aspect ratio (ratio), then resize to size.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import RandomResizedCrop
        >>> RandomResizedCrop(4)(np.zeros((10, 12, 3), np.uint8)).shape
        (4, 4, 3)
    """

    _random_params = True

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3),
                 interpolation: str = "bilinear", keys: Keys = None) -> None:
        super().__init__(keys)
        self.size = _size2(size, "RandomResizedCrop")
        if scale[0] > scale[1] or ratio[0] > ratio[1] or ratio[0] <= 0:
            raise ValueError(f"RandomResizedCrop: scale and ratio must be (min, max) ranges "
                             f"with positive ratios, got scale={scale}, ratio={ratio}")
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _get_param(self, image: Any, attempts: int = 10) -> tuple:
        width, height = image_size(image)
        area, g = height * width, rng()
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target = g.uniform(*self.scale) * area
            aspect = math.exp(g.uniform(*log_ratio))
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return int(g.integers(0, height - h + 1)), int(g.integers(0, width - w + 1)), h, w
        in_ratio = width / height
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w, h = int(round(height * max(self.ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img: Any) -> Any:
        i, j, h, w = self._get_param(img)
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


class RandomHorizontalFlip(BaseTransform):
    """Flip left-right with probability prob.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import RandomHorizontalFlip
        >>> RandomHorizontalFlip(prob=1.0)(np.array([[1, 2]]))
        array([[2, 1]])
    """

    _random_params = True

    def __init__(self, prob: float = 0.5, keys: Keys = None) -> None:
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomHorizontalFlip: prob must be in [0, 1], got {prob}")
        self.prob = prob

    def _get_params(self, inputs: tuple) -> bool:
        return bool(rng().random() < self.prob)

    def _apply_image(self, img: Any) -> Any:
        return F.hflip(img) if self.params else img

    _apply_mask = _apply_image  # a segmentation mask flips with its image (same draw)


class RandomVerticalFlip(RandomHorizontalFlip):
    """Flip top-bottom with probability prob.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import RandomVerticalFlip
        >>> RandomVerticalFlip(prob=1.0)(np.array([[1], [2]]))
        array([[2],
               [1]])
    """

    def _apply_image(self, img: Any) -> Any:
        return F.vflip(img) if self.params else img

    _apply_mask = _apply_image


def _check_range(value, name: str, center: float = 1, bound=(0, float("inf")),
                 clip_first_on_zero: bool = True):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - value, center + value]
        if clip_first_on_zero:
            value[0] = max(value[0], 0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}")
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    return None if value[0] == value[1] == center else value


class _ColorTransform(BaseTransform):
    _name, _fn, _center, _bound = "", None, 1.0, (0, float("inf"))
    _random_params = True

    def __init__(self, value, keys: Keys = None) -> None:
        super().__init__(keys)
        self.value = _check_range(value, self._name, self._center, self._bound,
                                  clip_first_on_zero=self._center == 1.0)

    def _apply_image(self, img: Any) -> Any:
        if self.value is None:
            return img
        return type(self)._fn(img, float(rng().uniform(*self.value)))


class BrightnessTransform(_ColorTransform):
    """Brightness factor drawn from [max(0, 1 - value), 1 + value] (or a (min, max) pair)."""
    _name, _fn = "brightness", F.adjust_brightness


class ContrastTransform(_ColorTransform):
    """Contrast factor drawn from [max(0, 1 - value), 1 + value]."""
    _name, _fn = "contrast", F.adjust_contrast


class SaturationTransform(_ColorTransform):
    """Saturation factor drawn from [max(0, 1 - value), 1 + value]."""
    _name, _fn = "saturation", F.adjust_saturation


class HueTransform(_ColorTransform):
    """Hue shift drawn from [-value, value], value in [0, 0.5]."""
    _name, _fn, _center, _bound = "hue", F.adjust_hue, 0.0, (-0.5, 0.5)

    def __init__(self, value, keys: Keys = None) -> None:
        if isinstance(value, numbers.Number) and value > 0.5:
            raise ValueError(f"hue value should be in [0, 0.5], got {value}")
        super().__init__(value, keys)


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue jitter, applied in a random order.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import ColorJitter
        >>> ColorJitter(0.4, 0.4, 0.4, 0.1)(np.zeros((2, 2, 3), np.uint8)).shape
        (2, 2, 3)
    """

    _random_params = True

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys: Keys = None) -> None:
        super().__init__(keys)
        self.brightness, self.contrast = brightness, contrast
        self.saturation, self.hue = saturation, hue
        self._parts = [BrightnessTransform(brightness, keys), ContrastTransform(contrast, keys),
                       SaturationTransform(saturation, keys), HueTransform(hue, keys)]

    def _apply_image(self, img: Any) -> Any:
        parts = [p for p in self._parts if p.value is not None]
        order = rng().permutation(len(parts))
        return Compose([parts[k] for k in order])(img)


def _angle_range(degrees, name: str) -> list:
    if isinstance(degrees, numbers.Number):
        if degrees < 0:
            raise ValueError(f"{name}: if degrees is a single number, it must be positive, "
                             f"got {degrees}")
        return [-degrees, degrees]
    if not isinstance(degrees, (list, tuple)) or len(degrees) != 2:
        raise ValueError(f"{name}: degrees must be a number or a sequence of 2 numbers, "
                         f"got {degrees!r}")
    return [float(d) for d in degrees]


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn from degrees ((-d, d) for a number d).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import RandomRotation
        >>> RandomRotation(30)(np.zeros((5, 5, 3), np.uint8)).shape
        (5, 5, 3)
    """

    _random_params = True

    def __init__(self, degrees, interpolation: str = "nearest", expand: bool = False,
                 center=None, fill=0, keys: Keys = None) -> None:
        super().__init__(keys)
        self.degrees = _angle_range(degrees, "RandomRotation")
        self.interpolation, self.expand, self.center, self.fill = (
            interpolation, expand, center, fill)

    def _size_varies(self) -> bool:
        return bool(self.expand) and self.degrees[0] != self.degrees[1]

    def _apply_image(self, img: Any) -> Any:
        angle = float(rng().uniform(*self.degrees))
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomAffine(BaseTransform):
    """Random rotation, translation (fractions of w, h), scale and shear (degrees).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import RandomAffine
        >>> RandomAffine(15, translate=(0.1, 0.1), scale=(0.9, 1.1), shear=5)(
        ...     np.zeros((6, 6, 3), np.uint8)).shape
        (6, 6, 3)
    """

    _random_params = True

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 interpolation: str = "nearest", fill=0, center=None, keys: Keys = None) -> None:
        super().__init__(keys)
        self.degrees = _angle_range(degrees, "RandomAffine")
        if translate is not None and (len(translate) != 2 or
                                      not all(0.0 <= t <= 1.0 for t in translate)):
            raise ValueError(f"RandomAffine: translate must be two fractions in [0, 1], "
                             f"got {translate!r}")
        if scale is not None and (len(scale) != 2 or any(s <= 0 for s in scale)):
            raise ValueError(f"RandomAffine: scale must be two positive numbers, got {scale!r}")
        if shear is not None:
            shear = _angle_range(shear, "RandomAffine") if isinstance(shear, numbers.Number) \
                else list(shear)
            if len(shear) not in (2, 4):
                raise ValueError(f"RandomAffine: shear must be a number or 2 or 4 numbers, "
                                 f"got {shear!r}")
        self.translate, self.scale, self.shear = translate, scale, shear
        self.interpolation, self.fill, self.center = interpolation, fill, center

    def _get_param(self, img_size: tuple) -> tuple:
        g = rng()
        angle = float(g.uniform(*self.degrees))
        tx = ty = 0
        if self.translate is not None:
            max_dx, max_dy = self.translate[0] * img_size[0], self.translate[1] * img_size[1]
            tx, ty = int(g.uniform(-max_dx, max_dx)), int(g.uniform(-max_dy, max_dy))
        scale = 1.0 if self.scale is None else float(g.uniform(*self.scale))
        shear = [0.0, 0.0]
        if self.shear is not None:
            shear[0] = float(g.uniform(self.shear[0], self.shear[1]))
            if len(self.shear) == 4:
                shear[1] = float(g.uniform(self.shear[2], self.shear[3]))
        return angle, (tx, ty), scale, shear

    def _apply_image(self, img: Any) -> Any:
        angle, translate, scale, shear = self._get_param(image_size(img))
        return F.affine(img, angle, translate, scale, shear, self.interpolation, self.fill,
                        self.center)


class RandomPerspective(BaseTransform):
    """With probability prob, move the corners inward by up to distortion_scale.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import RandomPerspective
        >>> RandomPerspective(prob=1.0)(np.zeros((8, 8, 3), np.uint8)).shape
        (8, 8, 3)
    """

    _random_params = True

    def __init__(self, prob: float = 0.5, distortion_scale: float = 0.5,
                 interpolation: str = "nearest", fill=0, keys: Keys = None) -> None:
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ValueError(f"RandomPerspective: prob must be in [0, 1], got {prob}")
        if not 0 <= distortion_scale <= 1:
            raise ValueError(f"RandomPerspective: distortion_scale must be in [0, 1], "
                             f"got {distortion_scale}")
        self.prob, self.distortion_scale = prob, distortion_scale
        self.interpolation, self.fill = interpolation, fill

    def get_params(self, width: int, height: int, distortion_scale: float) -> tuple:
        g = rng()
        dx, dy = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))

        def near(lo_edge: bool, extent: int, d: int) -> int:
            return int(g.uniform(0, d + 1)) if lo_edge else int(g.uniform(extent - d - 1, extent))
        corners = [(True, True), (False, True), (False, False), (True, False)]
        endpoints = [[near(x, width, dx), near(y, height, dy)] for x, y in corners]
        startpoints = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return startpoints, endpoints

    def _apply_image(self, img: Any) -> Any:
        width, height = image_size(img)
        if rng().random() < self.prob:
            start, end = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, self.fill)
        return img


class RandomErasing(BaseTransform):
    """With probability prob, fill a random box (area scale, aspect ratio) with value.

    value: a number, a per-channel sequence, or 'random' (standard normal noise).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import RandomErasing
        >>> RandomErasing(prob=1.0, value=0)(np.ones((8, 8, 3), np.float32)).min().item()
        0.0
    """

    _random_params = True

    def __init__(self, prob: float = 0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0,
                 inplace: bool = False, keys: Keys = None) -> None:
        super().__init__(keys)
        if not isinstance(value, (numbers.Number, str, tuple, list)):
            raise TypeError(f"RandomErasing: value should be a number, a sequence or "
                            f"'random', got {type(value).__name__}")
        if isinstance(value, str) and value != "random":
            raise ValueError(f"RandomErasing: value as a string must be 'random', got {value!r}")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError(f"RandomErasing: scale and ratio should be (min, max), got "
                             f"scale={scale}, ratio={ratio}")
        if not (0 <= scale[0] and scale[1] <= 1 and 0 <= prob <= 1):
            raise ValueError(f"RandomErasing: scale and prob must lie in [0, 1], got "
                             f"scale={scale}, prob={prob}")
        self.prob, self.scale, self.ratio = prob, scale, ratio
        self.value, self.inplace = value, inplace

    def _box(self, img: Any, g: np.random.Generator):
        if F._is_tensor_image(img):
            c, h, w = img.shape[-3:]
        else:
            shape = np.shape(np.asarray(img))
            h, w, c = (shape + (1,))[:3] if len(shape) == 2 else shape[-3:]
        log_ratio = np.log(self.ratio)
        for _ in range(10):
            area = g.uniform(*self.scale) * h * w
            aspect = np.exp(g.uniform(*log_ratio))
            eh, ew = int(round(np.sqrt(area * aspect))), int(round(np.sqrt(area / aspect)))
            if eh < h and ew < w:
                return int(g.integers(0, h - eh + 1)), int(g.integers(0, w - ew + 1)), eh, ew, c
        return None

    def _apply_image(self, img: Any) -> Any:
        g = rng()
        if g.random() >= self.prob:
            return img
        value = [self.value] if isinstance(self.value, numbers.Number) else self.value
        if not isinstance(value, str) and len(value) not in (1, 3):
            raise ValueError("Value should be a single number or a sequence with length "
                             "equals to image's channel.")
        box = self._box(img, g)
        if box is None:
            return img
        top, left, eh, ew, c = box
        chw = F._is_tensor_image(img)
        if isinstance(value, str):
            v = g.standard_normal((c, eh, ew) if chw else (eh, ew, c))
            v = v if chw else v * 255
        else:
            v = np.asarray(value, dtype=np.float64)
            v = v[:, None, None] if chw else v[None, None, :]
        return F.erase(img, top, left, eh, ew, v, self.inplace)

"""paddle.vision.transforms classes: Compose, BaseTransform and the deterministic transforms.

Random transforms live in random_transforms.py; both work on PIL images, HWC ndarrays and
CHW Tensors through transforms.functional.
"""
from __future__ import annotations

import numbers
from typing import Any, Callable, Sequence

import numpy as np

from ...framework import random as _random
from ...framework.flags import target_guard
from ...framework.tensor import Tensor
from . import functional as F

__all__ = ["Compose", "BaseTransform", "ToTensor", "Resize", "CenterCrop", "Normalize",
           "Transpose", "Grayscale", "Pad"]


def rng() -> np.random.Generator:
    """A NumPy generator drawn from sampan's global generator (so paddle.seed fixes it)."""
    return _random.rng(_random.next_seed())


def image_size(img: Any) -> tuple:
    """(width, height) of an image (PIL, HWC ndarray, CHW/NCHW Tensor)."""
    if F._is_tensor_image(img) and img.ndim not in (3, 4):
        raise ValueError(f"The dim for input Tensor should be 3-D or 4-D, but received "
                         f"{img.ndim}")
    if not (F._is_tensor_image(img) or isinstance(img, np.ndarray) or F._is_pil_image(img)):
        raise TypeError(f"Unexpected type {type(img)}")
    return F.get_image_size(img)


class Compose:
    """Apply transforms one after another.

    Args:
        transforms (list|tuple): the transforms (callables) to chain.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import Compose, Resize, ToTensor
        >>> t = Compose([Resize(2), ToTensor()])
        >>> t(np.zeros((4, 4, 3), np.uint8)).shape
        paddle.Size([3, 2, 2])
    """

    def __init__(self, transforms: Sequence[Callable]) -> None:
        if not isinstance(transforms, (list, tuple)):
            raise TypeError(f"Compose: transforms must be a list or tuple, got "
                            f"{type(transforms).__name__}")
        for t in transforms:
            if not callable(t):
                raise TypeError(f"Compose: every transform must be callable, got {t!r}")
        self.transforms = list(transforms)

    def __call__(self, data: Any) -> Any:
        for f in self.transforms:
            data = f(data)
        return data

    def __repr__(self) -> str:
        body = "".join(f"\n    {t}" for t in self.transforms)
        return f"{type(self).__name__}({body}\n)"


class BaseTransform:
    """Base class: __call__ applies `_apply_<key>` to each input named in keys.

    A tuple input is matched position by position with keys ('image', 'boxes', 'mask',
    'coords', ...); extra inputs pass through unchanged. `_get_params(inputs)` runs once
    per call so every key sees the same random draw (kept in self.params).

    Args:
        keys (list[str]|tuple[str], optional): input types. Default: ('image',).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import BaseTransform
        >>> class Scale(BaseTransform):
        ...     def _apply_image(self, image):
        ...         return image * 2
        >>> Scale()((np.ones(2), 7))
        (array([2., 2.]), 7)
    """

    def __init__(self, keys: Sequence[str] | None = None) -> None:
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, Sequence) or isinstance(keys, str):
            raise ValueError(f"keys should be a sequence, but got keys={keys}")
        for k in keys:
            if self._get_apply(k) is None:
                raise NotImplementedError(f"{k} is unsupported data structure")
        self.keys = keys
        self.params = None

    # True for transforms that draw random parameters: on static Variables they draw them
    # when the Program runs (see _at_run_time), as Paddle's random ops do
    _random_params = False

    def _get_params(self, inputs: tuple) -> Any:
        return None

    def __call__(self, inputs: Any) -> Any:
        if not isinstance(inputs, tuple):
            inputs = (inputs,)
        if self._random_params and all(map(F._is_variable, inputs[:len(self.keys)])):
            return _at_run_time(self, inputs)
        return self._call(inputs)

    def _size_varies(self) -> bool:
        """True when the output image size depends on the random draw."""
        return False

    def _call(self, inputs: tuple) -> Any:
        self.params = self._get_params(inputs)
        outputs = []
        for value, key in zip(inputs, self.keys):
            fn = self._get_apply(key)
            outputs.append(value if fn is None else fn(value))
        outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _get_apply(self, key: str) -> Callable | None:
        return getattr(self, f"_apply_{key}", None)

    def _apply_image(self, image: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not transform images")

    def _apply_boxes(self, boxes: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not transform boxes")

    def _apply_mask(self, mask: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not transform masks")

    def _apply_coords(self, coords: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} does not transform coords")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _probe_shapes(transform: BaseTransform, inputs: tuple) -> list:
    """(shape, dtype) of each output of `transform` on zero images shaped like the Variables
    `inputs` (height and width -1 when the transform's output size varies with its draw);
    the global generator is left as it was."""
    for v in inputs:
        if any(d < 0 for d in v.shape):
            raise NotImplementedError(f"{type(transform).__name__}: a static Variable image "
                                      f"needs a fully known shape (no -1 dims), got "
                                      f"{list(v.shape)}")
    state = _random.get_rng_state()
    try:
        with target_guard(None):
            out = transform._call(tuple(F._to_tensor(np.zeros(v.shape, v.dtype.np))
                                        for v in inputs))
    finally:
        _random.set_rng_state(state)
    out = out if isinstance(out, tuple) else (out,)
    varies = transform._size_varies()
    return [(list(o.shape[:-2]) + [-1, -1] if varies else list(o.shape), o.dtype.name)
            for o in out]


def _at_run_time(transform: BaseTransform, inputs: tuple) -> Any:
    """A random transform of static Variables: one py_func op that draws the parameters and
    applies the transform (its eager path) at every Executor.run, so each run draws anew and
    the draws come from the global generator in program order, as an eager call's do."""
    from ...static.py_func import py_func  # static sits below vision; loaded on use
    block = inputs[0].block.program.current_block()
    outs = [block.create_var(shape=shape, dtype=dtype)
            for shape, dtype in _probe_shapes(transform, inputs)[:len(inputs)]]

    def kernel(*tensors):
        with target_guard(None):
            res = transform._call(tensors)
        return list(res if isinstance(res, tuple) else (res,))[:len(outs)]

    py_func(kernel, list(inputs), outs)
    return outs[0] if len(outs) == 1 else tuple(outs)


class ToTensor(BaseTransform):
    """PIL image or HWC ndarray -> Tensor (uint8 scaled to [0, 1]); see functional.to_tensor.

    Args:
        data_format (str, optional): 'CHW' or 'HWC'. Default: 'CHW'.
        keys (list[str]|tuple[str], optional): see BaseTransform. Default: None.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import ToTensor
        >>> ToTensor()(np.full((2, 2, 3), 255, np.uint8)).numpy().max().item()
        1.0
    """

    def __init__(self, data_format: str = "CHW", keys: Sequence[str] | None = None) -> None:
        super().__init__(keys)
        if data_format not in ("CHW", "HWC"):
            raise ValueError(f"ToTensor: data_format should be 'CHW' or 'HWC', got "
                             f"{data_format!r}")
        self.data_format = data_format

    def _apply_image(self, img: Any) -> Tensor:
        return F.to_tensor(img, self.data_format)


class Resize(BaseTransform):
    """Resize to size (h, w), or the shorter side to an int size keeping the aspect ratio.

    Args:
        size (int|list|tuple): output size.
        interpolation (str, optional): 'nearest', 'bilinear', 'bicubic' ('box', 'lanczos',
            'hamming' for PIL; 'area' for arrays). Default: 'bilinear'.
        keys (list[str]|tuple[str], optional): see BaseTransform. Default: None.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import Resize
        >>> Resize((3, 5))(np.zeros((6, 6, 3), np.uint8)).shape
        (3, 5, 3)
    """

    def __init__(self, size: int | Sequence[int], interpolation: str = "bilinear",
                 keys: Sequence[str] | None = None) -> None:
        super().__init__(keys)
        if not (isinstance(size, int) or (isinstance(size, Sequence) and len(size) == 2)):
            raise TypeError(f"Resize: size must be an int or a (h, w) sequence, got {size!r}")
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img: Any) -> Any:
        return F.resize(img, self.size, self.interpolation)


class CenterCrop(BaseTransform):
    """Crop the centre to size (h, w) or an int square.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import CenterCrop
        >>> CenterCrop(2)(np.zeros((5, 6, 3))).shape
        (2, 2, 3)
    """

    def __init__(self, size: int | Sequence[int], keys: Sequence[str] | None = None) -> None:
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size

    def _apply_image(self, img: Any) -> Any:
        return F.center_crop(img, self.size)


class Normalize(BaseTransform):
    """(img - mean) / std per channel.

    Args:
        mean (float|list|tuple, optional): per-channel means. Default: 0.0.
        std (float|list|tuple, optional): per-channel standard deviations. Default: 1.0.
        data_format (str, optional): 'CHW' or 'HWC'. Default: 'CHW'.
        to_rgb (bool, optional): reverse the channel order first (BGR -> RGB). Default: False.
        keys (list[str]|tuple[str], optional): see BaseTransform. Default: None.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import Normalize
        >>> Normalize(mean=127.5, std=127.5, data_format='HWC')(np.full((1, 1, 1), 255.0))
        array([[[1.]]], dtype=float32)
    """

    def __init__(self, mean: float | Sequence[float] = 0.0, std: float | Sequence[float] = 1.0,
                 data_format: str = "CHW", to_rgb: bool = False,
                 keys: Sequence[str] | None = None) -> None:
        super().__init__(keys)
        self.mean = [mean] * 3 if isinstance(mean, numbers.Number) else mean
        self.std = [std] * 3 if isinstance(std, numbers.Number) else std
        if any(s == 0 for s in self.std):
            raise ValueError(f"Normalize: std must be non-zero, got {self.std}")
        self.data_format, self.to_rgb = data_format, to_rgb

    def _apply_image(self, img: Any) -> Any:
        channels = _channels(img, self.data_format)
        mean, std = self.mean, self.std
        if channels is not None and len(mean) == 3 and channels == 1:
            mean, std = mean[:1], std[:1]  # a scalar mean/std also serves 1-channel images
        return F.normalize(img, mean, std, self.data_format, self.to_rgb)


def _channels(img: Any, data_format: str) -> int | None:
    shape = np.shape(img) if not F._is_pil_image(img) else None
    if shape is None or len(shape) < 3:
        return None
    return shape[-3] if data_format.upper() == "CHW" else shape[-1]


class Transpose(BaseTransform):
    """Permute the axes of an HWC image (default order (2, 0, 1): HWC -> CHW).

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import Transpose
        >>> Transpose()(np.zeros((4, 5, 3))).shape
        (3, 4, 5)
    """

    def __init__(self, order: Sequence[int] = (2, 0, 1),
                 keys: Sequence[str] | None = None) -> None:
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img: Any) -> Any:
        if isinstance(img, Tensor):
            return img.transpose(list(self.order))
        if F._is_pil_image(img):
            img = np.asarray(img)
        if img.ndim == 2:
            img = img[..., np.newaxis]
        if len(self.order) != img.ndim:
            raise ValueError(f"Transpose: order {tuple(self.order)} does not fit an image of "
                             f"shape {list(img.shape)}")
        return img.transpose(self.order)


class Grayscale(BaseTransform):
    """Convert to grayscale with 1 or 3 output channels.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import Grayscale
        >>> Grayscale()(np.zeros((2, 2, 3), np.uint8)).shape
        (2, 2, 1)
    """

    def __init__(self, num_output_channels: int = 1, keys: Sequence[str] | None = None) -> None:
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img: Any) -> Any:
        return F.to_grayscale(img, self.num_output_channels)


class Pad(BaseTransform):
    """Pad the borders; see functional.pad for padding, fill and padding_mode.

    Examples:
        >>> import numpy as np
        >>> from sampan.vision.transforms import Pad
        >>> Pad(2)(np.zeros((3, 3, 3), np.uint8)).shape
        (7, 7, 3)
    """

    def __init__(self, padding: int | Sequence[int], fill: Any = 0, padding_mode: str = "constant",
                 keys: Sequence[str] | None = None) -> None:
        super().__init__(keys)
        if not isinstance(padding, (numbers.Number, list, tuple)):
            raise TypeError(f"Pad: padding must be an int or a sequence, got {padding!r}")
        if isinstance(padding, (list, tuple)) and len(padding) not in (2, 4):
            raise ValueError(f"Pad: padding must be an int or a 2 or 4 element sequence, "
                             f"got a {len(padding)} element sequence")
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img: Any) -> Any:
        return F.pad(img, self.padding, self.fill, self.padding_mode)


# paddle.vision.transforms.transforms holds every transform class, the random ones included
# (they live in random_transforms.py, which imports this module's base classes above)
from .random_transforms import (BrightnessTransform, ColorJitter, ContrastTransform,  # noqa: E402,F401
                                HueTransform, RandomAffine, RandomCrop, RandomErasing,
                                RandomHorizontalFlip, RandomPerspective, RandomResizedCrop,
                                RandomRotation, RandomVerticalFlip, SaturationTransform)

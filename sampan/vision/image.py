"""paddle.vision image backend: set_image_backend / get_image_backend / image_load.

'pil' gives PIL images; 'cv2' gives HWC uint8 ndarrays in OpenCV's BGR order (decoded with
Pillow, so OpenCV is not needed); 'tensor' gives CHW uint8 Tensors.
"""
from __future__ import annotations

from typing import Any

import numpy as np

_BACKENDS = ("pil", "cv2", "tensor")
_image_backend = "pil"


def _check(backend: Any, api: str) -> None:
    if backend not in _BACKENDS:
        raise ValueError(f"{api}: Expected backend are one of {list(_BACKENDS)}, but got "
                         f"{backend!r}")


def set_image_backend(backend: str) -> None:
    """Set the backend datasets and image_load decode images with: 'pil', 'cv2' or 'tensor'.

    Examples:
        >>> from sampan.vision import get_image_backend, set_image_backend
        >>> set_image_backend('cv2'); get_image_backend()
        'cv2'
        >>> set_image_backend('pil')
    """
    global _image_backend
    _check(backend, "set_image_backend")
    _image_backend = backend


def get_image_backend() -> str:
    """The current image backend ('pil' unless set_image_backend changed it)."""
    return _image_backend


def image_load(path: str, backend: str | None = None) -> Any:
    """Load an image file with the given (or current) backend.

    Args:
        path (str): the image file.
        backend (str, optional): 'pil', 'cv2' (BGR HWC uint8 ndarray) or 'tensor'
            (CHW uint8 Tensor). Default: get_image_backend().

    Returns:
        PIL.Image|np.ndarray|Tensor: the image.
    """
    backend = _image_backend if backend is None else backend
    _check(backend, "image_load")
    from PIL import Image
    try:
        img = Image.open(path)
    except FileNotFoundError:
        raise FileNotFoundError(f"image_load: no image file at {path!r}") from None
    if backend == "pil":
        return img
    arr = np.asarray(img.convert("RGB") if img.mode not in ("L", "RGB") else img)
    if backend == "cv2":
        return np.ascontiguousarray(arr[..., ::-1]) if arr.ndim == 3 else arr
    from ..tensor.creation import to_tensor
    arr = arr[..., None] if arr.ndim == 2 else arr
    return to_tensor(np.ascontiguousarray(arr.transpose(2, 0, 1)))

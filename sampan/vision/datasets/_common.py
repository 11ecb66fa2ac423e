"""Shared pieces of the vision datasets: backend choice and the per-sample return rule."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..image import get_image_backend


def check_mode(mode: Any, allowed: tuple, api: str) -> str:
    if not isinstance(mode, str) or mode.lower() not in allowed:
        raise ValueError(f"{api}: mode should be one of {list(allowed)}, but got {mode!r}")
    return mode.lower()


def check_backend(backend: Any, api: str) -> str:
    backend = get_image_backend() if backend is None else backend
    if backend not in ("pil", "cv2"):
        raise ValueError(f"{api}: Expected backend are one of ['pil', 'cv2'], but got "
                         f"{backend!r}")
    return backend


def check_transform(transform: Any, api: str) -> Any:
    if transform is not None and not callable(transform):
        raise TypeError(f"{api}: transform must be callable or None, got "
                        f"{type(transform).__name__}")
    return transform


def finish(image: Any, backend: str, transform: Callable | None, dtype: str) -> Any:
    """Apply the transform; the 'cv2' backend returns arrays in the default float dtype."""
    if transform is not None:
        image = transform(image)
    if backend == "pil":
        return image
    return image.astype(dtype)


def pil_image(arr: np.ndarray, mode: str | None = None) -> Any:
    from PIL import Image
    return Image.fromarray(arr.astype("uint8"), mode=mode)

"""paddle.vision: image transforms, datasets, the model zoo and vision operators.

Submodules load on first access (``paddle.vision.models`` pulls in nn layers; ``transforms``
needs Pillow only when images are decoded), so ``import sampan`` stays light.
"""
import importlib
from typing import Any

_SUBMODULES = ("transforms", "datasets", "models", "ops", "image")
_IMAGE_NAMES = ("set_image_backend", "get_image_backend", "image_load")

__all__ = list(_SUBMODULES[:4]) + list(_IMAGE_NAMES)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _IMAGE_NAMES:
        return getattr(importlib.import_module(f"{__name__}.image"), name)
    raise AttributeError(f"module 'paddle.vision' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))

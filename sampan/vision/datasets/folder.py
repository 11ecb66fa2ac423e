"""DatasetFolder (root/class_x/xxx.ext -> (sample, class index)) and ImageFolder (all images)."""
from __future__ import annotations

import os
from typing import Any, Callable, Sequence

import numpy as np

from ...framework.dtype import get_default_dtype
from ...io.dataset import Dataset
from ..image import get_image_backend
from ._common import check_transform

__all__ = ["DatasetFolder", "ImageFolder", "IMG_EXTENSIONS", "default_loader"]

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def has_valid_extension(filename: str, extensions: Sequence[str]) -> bool:
    if not isinstance(extensions, (list, tuple)):
        raise TypeError(f"extensions must be a list or tuple, got {type(extensions).__name__}")
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def pil_loader(path: str) -> Any:
    from PIL import Image
    with open(path, "rb") as f:
        return Image.open(f).convert("RGB")


def cv2_loader(path: str) -> np.ndarray:
    """RGB HWC uint8 array (what cv2.cvtColor(cv2.imread(p), COLOR_BGR2RGB) gives), via Pillow."""
    return np.asarray(pil_loader(path))


def default_loader(path: str) -> Any:
    return cv2_loader(path) if get_image_backend() == "cv2" else pil_loader(path)


def _validator(extensions, is_valid_file, api: str) -> tuple:
    if extensions is not None and is_valid_file is not None:
        raise ValueError(f"{api}: pass extensions or is_valid_file, not both")
    if is_valid_file is None:
        extensions = IMG_EXTENSIONS if extensions is None else extensions
        return extensions, lambda p: has_valid_extension(p, extensions)
    if not callable(is_valid_file):
        raise TypeError(f"{api}: is_valid_file must be callable, got "
                        f"{type(is_valid_file).__name__}")
    return extensions, is_valid_file


def _walk(top: str, is_valid: Callable) -> list:
    found = []
    for root, _, fnames in sorted(os.walk(top, followlinks=True)):
        found.extend(os.path.join(root, f) for f in sorted(fnames)
                     if is_valid(os.path.join(root, f)))
    return found


def _check_root(root: Any, api: str) -> str:
    if not isinstance(root, (str, os.PathLike)) or not os.path.isdir(root):
        raise FileNotFoundError(f"{api}: root {root!r} is not a directory")
    return os.path.expanduser(os.fspath(root))


class DatasetFolder(Dataset):
    """Samples arranged as root/<class>/<file>; the class index follows sorted class names.

    Args:
        root (str): the root directory.
        loader (Callable, optional): path -> sample. Default: an image loader following
            paddle.vision.get_image_backend() (PIL RGB image, or RGB ndarray for 'cv2').
        extensions (list|tuple, optional): accepted file suffixes. Default: IMG_EXTENSIONS.
        transform (Callable, optional): applied to each sample. Default: None.
        is_valid_file (Callable, optional): path -> bool, instead of extensions. Default: None.

    Examples:
        >>> from sampan.vision.datasets import DatasetFolder
        >>> DatasetFolder('path/to/root')  # doctest: +SKIP
    """

    def __init__(self, root: str, loader: Callable | None = None,
                 extensions: Sequence[str] | None = None, transform: Callable | None = None,
                 is_valid_file: Callable | None = None) -> None:
        api = type(self).__name__
        self.root = _check_root(root, api)
        self.transform = check_transform(transform, api)
        extensions, is_valid = _validator(extensions, is_valid_file, api)
        self.classes = sorted(d.name for d in os.scandir(self.root) if d.is_dir())
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}
        self.samples = [(p, self.class_to_idx[c]) for c in self.classes
                        for p in _walk(os.path.join(self.root, c), is_valid)]
        if not self.samples:
            raise RuntimeError(f"{api}: found 0 files in subfolders of {self.root}; supported "
                               f"extensions are {','.join(extensions or ())}")
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.targets = [s[1] for s in self.samples]
        self.dtype = get_default_dtype()

    def __getitem__(self, index: int) -> tuple:
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self) -> int:
        return len(self.samples)


class ImageFolder(Dataset):
    """Every file under root (recursively) whose suffix is accepted; samples are [image].

    Args:
        root (str): the root directory.
        loader, extensions, transform, is_valid_file: as DatasetFolder.

    Examples:
        >>> from sampan.vision.datasets import ImageFolder
        >>> ImageFolder('path/to/images')  # doctest: +SKIP
    """

    def __init__(self, root: str, loader: Callable | None = None,
                 extensions: Sequence[str] | None = None, transform: Callable | None = None,
                 is_valid_file: Callable | None = None) -> None:
        api = type(self).__name__
        self.root = _check_root(root, api)
        self.transform = check_transform(transform, api)
        extensions, is_valid = _validator(extensions, is_valid_file, api)
        self.samples = _walk(self.root, is_valid)
        if not self.samples:
            raise RuntimeError(f"{api}: found 0 files in subfolders of {self.root}; supported "
                               f"extensions are {','.join(extensions or ())}")
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions

    def __getitem__(self, index: int) -> list:
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self) -> int:
        return len(self.samples)

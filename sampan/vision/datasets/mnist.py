"""MNIST and FashionMNIST from their idx-ubyte.gz files (a local path or the cache)."""
from __future__ import annotations

import gzip
import struct
import zlib
from typing import Callable

import numpy as np

from ...framework.dtype import get_default_dtype
from ...io.dataset import Dataset
from ...utils.data_files import resolve
from ._common import check_backend, check_mode, check_transform, finish, pil_image

__all__ = ["MNIST", "FashionMNIST"]


def read_idx(path: str, magic: int, api: str) -> np.ndarray:
    """The uint8 array stored in a gzipped idx file (magic 2049: labels, 2051: images)."""
    try:
        with gzip.open(path, "rb") as f:
            buf = f.read()
    except (OSError, EOFError, zlib.error) as exc:
        raise ValueError(f"{api}: {path} is not a readable gzip file "
                         f"({type(exc).__name__}: {exc})") from None
    ndim = magic & 0xFF
    header = 4 + 4 * ndim
    if len(buf) < header or struct.unpack_from(">I", buf)[0] != magic:
        found = struct.unpack_from(">I", buf)[0] if len(buf) >= 4 else None
        raise ValueError(f"{api}: {path} is not an idx file with magic number {magic} "
                         f"(found {found})")
    dims = struct.unpack_from(f">{ndim}I", buf, 4)
    size = int(np.prod(dims))
    if len(buf) - header < size:
        raise ValueError(f"{api}: {path} is truncated: its header announces {dims} "
                         f"({size} bytes) but only {len(buf) - header} bytes follow")
    return np.frombuffer(buf, np.uint8, size, header).reshape(dims)


class MNIST(Dataset):
    """The MNIST handwritten digits: (image, label) pairs, 28 x 28 grayscale, labels 0-9.

    Args:
        image_path (str, optional): the images idx-ubyte.gz file; None: the cache
            (~/.cache/paddle/dataset/mnist/), downloaded if download=True. Default: None.
        label_path (str, optional): the labels idx-ubyte.gz file, as image_path. Default: None.
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        transform (Callable, optional): applied to each image. Default: None.
        download (bool, optional): download missing cache files. Default: True.
        backend (str, optional): 'pil' (PIL images) or 'cv2' (float ndarrays);
            default: paddle.vision.get_image_backend().

    Returns:
        Dataset: samples (image, label) with label an int64 array of shape [1].

    Examples:
        >>> from sampan.vision.datasets import MNIST
        >>> MNIST(download=False)  # doctest: +SKIP
    """
    NAME = "mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"
    TEST_IMAGE_MD5 = "9fb629c4189551a2d022fa330f9573f3"
    TEST_LABEL_MD5 = "ec29112dd5afa0611ce80d1b7f02629c"
    TRAIN_IMAGE_MD5 = "f68b3c2dcbeaaa9fbdd348bbdeb94873"
    TRAIN_LABEL_MD5 = "d53e105ee54ea40749a09fcbcd1e9432"

    def __init__(self, image_path: str | None = None, label_path: str | None = None,
                 mode: str = "train", transform: Callable | None = None, download: bool = True,
                 backend: str | None = None) -> None:
        api = type(self).__name__
        self.mode = check_mode(mode, ("train", "test"), api)
        self.backend = check_backend(backend, api)
        self.transform = check_transform(transform, api)
        prefix = "train" if self.mode == "train" else "t10k"
        md5s = {"train": (self.TRAIN_IMAGE_MD5, self.TRAIN_LABEL_MD5),
                "test": (self.TEST_IMAGE_MD5, self.TEST_LABEL_MD5)}[self.mode]
        self.image_path = resolve(image_path, f"{self.URL_PREFIX}{prefix}-images-idx3-ubyte.gz",
                                  md5s[0], self.NAME, download, api, "image_path")
        self.label_path = resolve(label_path, f"{self.URL_PREFIX}{prefix}-labels-idx1-ubyte.gz",
                                  md5s[1], self.NAME, download, api, "label_path")
        self.images = read_idx(self.image_path, 2051, api)
        self.labels = read_idx(self.label_path, 2049, api).astype("int64").reshape(-1, 1)
        if len(self.images) != len(self.labels):
            raise ValueError(f"{api}: {self.image_path} holds {len(self.images)} images but "
                             f"{self.label_path} holds {len(self.labels)} labels")
        self.dtype = get_default_dtype()

    def __getitem__(self, idx: int) -> tuple:
        image, label = self.images[idx], self.labels[idx]
        image = pil_image(image, "L") if self.backend == "pil" else image.astype("float32")
        return finish(image, self.backend, self.transform, self.dtype), label.copy()

    def __len__(self) -> int:
        return len(self.labels)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando clothing images), same layout and arguments as MNIST; the cache
    directory is ~/.cache/paddle/dataset/fashion-mnist/."""
    NAME = "fashion-mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/fashion_mnist/"
    TEST_IMAGE_MD5 = "bef4ecab320f06d8554ea6380940ec79"
    TEST_LABEL_MD5 = "bb300cfdad3c16e7a12a480ee83cd310"
    TRAIN_IMAGE_MD5 = "8d4fb7e6c68d591d4c3dfef9ec88bf0d"
    TRAIN_LABEL_MD5 = "25c81989df183df01b3e8a0aad5dffbe"

"""Cifar10 and Cifar100 from the CIFAR python tarballs (a local path or the cache).

The batches are pickles; they are read with an unpickler that only rebuilds plain containers
and NumPy arrays, so a tampered archive cannot run code.
"""
from __future__ import annotations

import importlib.util
import io
import pickle
from typing import Any, Callable

import numpy as np

from ...framework.dtype import get_default_dtype
from ...io.dataset import Dataset
from ...utils.data_files import TarReader, resolve
from ._common import check_backend, check_mode, check_transform, finish, pil_image

__all__ = ["Cifar10", "Cifar100"]

URL_PREFIX = "https://dataset.bj.bcebos.com/cifar/"
_ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
            ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode")}


class _ArrayUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) not in _ALLOWED:
            raise pickle.UnpicklingError(f"global {module}.{name} is not allowed in a CIFAR batch")
        if module.startswith("numpy.core") and importlib.util.find_spec("numpy._core"):
            module = module.replace("numpy.core", "numpy._core", 1)  # NumPy 2 moved it
        return super().find_class(module, name)


def load_batch(raw: bytes, where: str, api: str) -> tuple:
    """(data uint8 [N, 3072], labels) of one pickled CIFAR batch."""
    try:
        batch = _ArrayUnpickler(io.BytesIO(raw), encoding="bytes").load()
        data = np.asarray(batch[b"data"], dtype=np.uint8).reshape(-1, 3072)
        labels = batch.get(b"labels", batch.get(b"fine_labels"))
        if labels is None or len(labels) != len(data):
            raise ValueError("labels missing or not one per image")
    except Exception as exc:
        raise ValueError(f"{api}: {where} is not a valid CIFAR python batch "
                         f"({type(exc).__name__}: {exc})") from None
    return data, np.asarray(labels, dtype=np.int64)


class Cifar10(Dataset):
    """CIFAR-10: 32 x 32 RGB images in 10 classes, as (image, label) pairs.

    Args:
        data_file (str, optional): cifar-10-python.tar.gz; None: the cache
            (~/.cache/paddle/dataset/cifar/), downloaded if download=True. Default: None.
        mode (str, optional): 'train' (data_batch_*) or 'test' (test_batch). Default: 'train'.
        transform (Callable, optional): applied to each image. Default: None.
        download (bool, optional): download a missing cache file. Default: True.
        backend (str, optional): 'pil' or 'cv2' (HWC float ndarrays); default:
            paddle.vision.get_image_backend().

    Returns:
        Dataset: samples (image, label), label an int64 0-d array.

    Examples:
        >>> from sampan.vision.datasets import Cifar10
        >>> Cifar10(mode='test', download=False)  # doctest: +SKIP
    """
    URL, MD5, FLAGS = URL_PREFIX + "cifar-10-python.tar.gz", "c58f30108f718f92721af3b95e74349a", \
        {"train": "data_batch", "test": "test_batch"}

    def __init__(self, data_file: str | None = None, mode: str = "train",
                 transform: Callable | None = None, download: bool = True,
                 backend: str | None = None) -> None:
        api = type(self).__name__
        self.mode = check_mode(mode, ("train", "test"), api)
        self.backend = check_backend(backend, api)
        self.transform = check_transform(transform, api)
        self.data_file = resolve(data_file, self.URL, self.MD5, "cifar", download, api,
                                 "data_file")
        self.flag = self.FLAGS[self.mode]
        self._load_data(api)
        self.dtype = get_default_dtype()

    def _load_data(self, api: str) -> None:
        tar = TarReader(self.data_file, api)
        names = sorted(n for n in tar.members if self.flag in n.split("/")[-1])
        if not names:
            raise ValueError(f"{api}: {self.data_file} has no '{self.flag}' batch; is it the "
                             f"{api} archive ({self.URL.split('/')[-1]})?")
        batches = [load_batch(tar.read(n), f"{self.data_file}:{n}", api) for n in names]
        self.images = np.concatenate([b[0] for b in batches])
        self.labels = np.concatenate([b[1] for b in batches])

    def __getitem__(self, idx: int) -> tuple:
        image = self.images[idx].reshape(3, 32, 32).transpose(1, 2, 0)
        image = pil_image(image) if self.backend == "pil" else image
        return finish(image, self.backend, self.transform, self.dtype), np.array(self.labels[idx])

    def __len__(self) -> int:
        return len(self.labels)


class Cifar100(Cifar10):
    """CIFAR-100 (fine labels, 100 classes), same arguments as Cifar10; data_file is
    cifar-100-python.tar.gz with 'train' and 'test' batches."""
    URL, MD5, FLAGS = URL_PREFIX + "cifar-100-python.tar.gz", "eb9058c3a382ffc7106e4002c42a8d85", \
        {"train": "train", "test": "test"}

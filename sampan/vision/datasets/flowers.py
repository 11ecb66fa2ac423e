"""Flowers102 from 102flowers.tgz (JPEGs) + imagelabels.mat + setid.mat (scipy.io.loadmat)."""
from __future__ import annotations

import io
from typing import Callable

import numpy as np

from ...framework.dtype import get_default_dtype
from ...io.dataset import Dataset
from ...utils.data_files import TarReader, resolve
from ._common import check_backend, check_mode, check_transform, finish

__all__ = ["Flowers"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz"
LABEL_URL = "http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat"
SETID_URL = "http://paddlemodels.bj.bcebos.com/flowers/setid.mat"
DATA_MD5 = "52808999861908f626f3c1f4e79d11fa"
LABEL_MD5 = "e0620be6f572b9609742df49c70aed4d"
SETID_MD5 = "a5357ecc9cb78c4bef273ce3793fc85c"
# NOTE: as in Paddle, 'train' reads the larger 'tstid' split and 'test' the 'trnid' one
MODE_FLAG_MAP = {"train": "tstid", "test": "trnid", "valid": "valid"}


def _loadmat(path: str, key: str, api: str) -> np.ndarray:
    try:
        import scipy.io
    except ImportError:
        raise ImportError(f"{api} reads .mat files with scipy.io.loadmat; pip install scipy") \
            from None
    try:
        content = scipy.io.loadmat(path)
    except Exception as exc:
        raise ValueError(f"{api}: {path} is not a readable MATLAB .mat file "
                         f"({type(exc).__name__}: {exc})") from None
    if key not in content:
        raise ValueError(f"{api}: {path} has no {key!r} entry (found "
                         f"{sorted(k for k in content if not k.startswith('__'))})")
    return np.asarray(content[key]).reshape(-1)


class Flowers(Dataset):
    """Oxford Flowers102: RGB JPEG images in 102 classes, as (image, label) pairs.

    Args:
        data_file (str, optional): 102flowers.tgz; None: the cache
            (~/.cache/paddle/dataset/flowers/), downloaded if download=True. Default: None.
        label_file (str, optional): imagelabels.mat, as data_file. Default: None.
        setid_file (str, optional): setid.mat, as data_file. Default: None.
        mode (str, optional): 'train', 'valid' or 'test'. Default: 'train'.
        transform (Callable, optional): applied to each image. Default: None.
        download (bool, optional): download missing cache files. Default: True.
        backend (str, optional): 'pil' or 'cv2' (HWC float ndarrays, RGB); default:
            paddle.vision.get_image_backend().

    Returns:
        Dataset: samples (image, label), label an int64 array of shape [1] (1..102).

    Examples:
        >>> from sampan.vision.datasets import Flowers
        >>> Flowers(mode='valid', download=False)  # doctest: +SKIP
    """

    def __init__(self, data_file: str | None = None, label_file: str | None = None,
                 setid_file: str | None = None, mode: str = "train",
                 transform: Callable | None = None, download: bool = True,
                 backend: str | None = None) -> None:
        api = "Flowers"
        self.mode = check_mode(mode, ("train", "valid", "test"), api)
        self.backend = check_backend(backend, api)
        self.transform = check_transform(transform, api)
        self.data_file = resolve(data_file, DATA_URL, DATA_MD5, "flowers", download, api,
                                 "data_file")
        self.label_file = resolve(label_file, LABEL_URL, LABEL_MD5, "flowers", download, api,
                                  "label_file")
        self.setid_file = resolve(setid_file, SETID_URL, SETID_MD5, "flowers", download, api,
                                  "setid_file")
        self.labels = _loadmat(self.label_file, "labels", api)
        self.indexes = _loadmat(self.setid_file, MODE_FLAG_MAP[self.mode], api)
        self._tar = TarReader(self.data_file, api)
        bad = [int(i) for i in self.indexes if not 1 <= i <= len(self.labels)]
        if bad:
            raise ValueError(f"{api}: {self.setid_file} names images {bad[:5]} but "
                             f"{self.label_file} labels only {len(self.labels)} images")
        self.dtype = get_default_dtype()

    def __getitem__(self, idx: int) -> tuple:
        from PIL import Image
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]]).astype("int64")
        name = f"jpg/image_{index:05}.jpg"
        if name not in self._tar.members:
            raise ValueError(f"Flowers: {self.data_file} has no {name} (image {index} of the "
                             f"'{MODE_FLAG_MAP[self.mode]}' split)")
        image = Image.open(io.BytesIO(self._tar.read(name)))
        if self.backend == "cv2":
            image = np.array(image)
        return finish(image, self.backend, self.transform, self.dtype), label

    def __len__(self) -> int:
        return len(self.indexes)

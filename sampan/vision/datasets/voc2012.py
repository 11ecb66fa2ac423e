"""VOC2012 semantic segmentation from VOCtrainval_11-May-2012.tar (read in place)."""
from __future__ import annotations

import io
from typing import Callable

import numpy as np

from ...framework.dtype import get_default_dtype
from ...io.dataset import Dataset
from ...utils.data_files import TarReader, resolve
from ._common import check_backend, check_mode, check_transform

__all__ = ["VOC2012"]

VOC_URL = "https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar"
VOC_MD5 = "6cd6e144f989b92b3379bac3b3de84fd"
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"
# NOTE: as in Paddle, 'train' reads trainval.txt and 'test' train.txt
MODE_FLAG_MAP = {"train": "trainval", "test": "train", "valid": "val"}


class VOC2012(Dataset):
    """PASCAL VOC2012 segmentation: (image, label) pairs, the label a class-index PNG.

    Args:
        data_file (str, optional): VOCtrainval_11-May-2012.tar; None: the cache
            (~/.cache/paddle/dataset/voc2012/), downloaded if download=True. Default: None.
        mode (str, optional): 'train', 'valid' or 'test'. Default: 'train'.
        transform (Callable, optional): applied to each image (not the label). Default: None.
        download (bool, optional): download a missing cache file. Default: True.
        backend (str, optional): 'pil' or 'cv2' (float ndarrays for image and label);
            default: paddle.vision.get_image_backend().

    Examples:
        >>> from sampan.vision.datasets import VOC2012
        >>> VOC2012(mode='valid', download=False)  # doctest: +SKIP
    """

    def __init__(self, data_file: str | None = None, mode: str = "train",
                 transform: Callable | None = None, download: bool = True,
                 backend: str | None = None) -> None:
        api = "VOC2012"
        self.mode = check_mode(mode, ("train", "valid", "test"), api)
        self.backend = check_backend(backend, api)
        self.transform = check_transform(transform, api)
        self.flag = MODE_FLAG_MAP[self.mode]
        self.data_file = resolve(data_file, VOC_URL, VOC_MD5, "voc2012", download, api,
                                 "data_file")
        self._tar = TarReader(self.data_file, api)
        names = self._tar.read(SET_FILE.format(self.flag)).decode("utf-8").split()
        self.data = [DATA_FILE.format(n) for n in names]
        self.labels = [LABEL_FILE.format(n) for n in names]
        missing = [m for m in self.data + self.labels if m not in self._tar.members]
        if missing:
            raise ValueError(f"{api}: {self.data_file} lists {missing[0]} in "
                             f"{SET_FILE.format(self.flag)} but does not contain it "
                             f"({len(missing)} missing)")
        self.dtype = get_default_dtype()

    def __getitem__(self, idx: int) -> tuple:
        from PIL import Image
        data = Image.open(io.BytesIO(self._tar.read(self.data[idx])))
        label = Image.open(io.BytesIO(self._tar.read(self.labels[idx])))
        if self.backend == "cv2":
            data, label = np.array(data), np.array(label)
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == "cv2":
            return data.astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self) -> int:
        return len(self.data)

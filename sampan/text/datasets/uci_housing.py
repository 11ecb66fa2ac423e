"""UCIHousing: the Boston housing table (housing.data, 14 whitespace-separated columns)."""
from __future__ import annotations

import numpy as np

from ...framework.dtype import get_default_dtype
from ...io.dataset import Dataset
from ...utils.data_files import resolve
from ._common import check_choice

__all__ = ["UCIHousing"]

URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
MD5 = "d4accdce7a25600298819f8e28e8d593"
feature_names = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX",
                 "PTRATIO", "B", "LSTAT"]


class UCIHousing(Dataset):
    """Boston housing prices: (13 normalized features, price) float pairs.

    Features are centred on their mean and divided by their range over the whole file; the
    first 80% of rows are 'train', the rest 'test'.

    Args:
        data_file (str, optional): housing.data; None: the cache
            (~/.cache/paddle/dataset/uci_housing/), downloaded if download=True. Default: None.
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        download (bool, optional): download a missing cache file. Default: True.

    Examples:
        >>> from sampan.text.datasets import UCIHousing
        >>> UCIHousing(mode='test', download=False)  # doctest: +SKIP
    """

    def __init__(self, data_file: str | None = None, mode: str = "train",
                 download: bool = True) -> None:
        self.mode = check_choice(mode, ("train", "test"), "UCIHousing", "mode")
        self.data_file = resolve(data_file, URL, MD5, "uci_housing", download, "UCIHousing",
                                 "data_file")
        self._load_data()
        self.dtype = get_default_dtype()

    def _load_data(self, feature_num: int = 14, ratio: float = 0.8) -> None:
        try:
            data = np.loadtxt(self.data_file, dtype=np.float64, ndmin=2)
        except ValueError as exc:
            raise ValueError(f"UCIHousing: {self.data_file} is not a whitespace-separated "
                             f"numeric table ({exc})") from None
        if data.shape[1] != feature_num:
            raise ValueError(f"UCIHousing: {self.data_file} rows have {data.shape[1]} columns, "
                             f"expected {feature_num} (13 features and the price)")
        span = data.max(axis=0) - data.min(axis=0)
        span[span == 0] = 1.0  # a constant column stays 0 instead of 0/0
        data[:, :-1] = (data[:, :-1] - data.mean(axis=0)[:-1]) / span[:-1]
        offset = int(data.shape[0] * ratio)
        self.data = data[:offset] if self.mode == "train" else data[offset:]

    def __getitem__(self, idx: int) -> tuple:
        row = self.data[idx]
        return row[:-1].astype(self.dtype), row[-1:].astype(self.dtype)

    def __len__(self) -> int:
        return len(self.data)

"""WMT14: the shrunk English-French corpus of wmt14.tgz (src.dict, trg.dict, <mode>/<mode>)."""
from __future__ import annotations

import numpy as np

from ...io.dataset import Dataset
from ...utils.data_files import TarReader, resolve
from ._common import check_choice

__all__ = ["WMT14"]

URL_TRAIN = "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"
MD5_TRAIN = "0791583d57d5beb693b9414c5b36798c"
START, END, UNK = "<s>", "<e>", "<unk>"
UNK_IDX = 2


class WMT14(Dataset):
    """English -> French pairs as (src ids, trg ids with <s>, trg ids with <e>).

    Pairs with more than 80 source (including <s>, <e>) or target ids are skipped.

    Args:
        data_file (str, optional): wmt14.tgz; None: the cache
            (~/.cache/paddle/dataset/wmt14/), downloaded if download=True. Default: None.
        mode (str, optional): 'train', 'test' or 'gen'. Default: 'train'.
        dict_size (int): the first dict_size words of each dictionary get ids (must be > 0).
        download (bool, optional): download a missing cache file. Default: True.

    Examples:
        >>> from sampan.text.datasets import WMT14
        >>> WMT14(mode='test', dict_size=50, download=False)  # doctest: +SKIP
    """

    def __init__(self, data_file: str | None = None, mode: str = "train", dict_size: int = -1,
                 download: bool = True) -> None:
        self.mode = check_choice(mode, ("train", "test", "gen"), "WMT14", "mode")
        if not isinstance(dict_size, int) or dict_size <= 0:
            raise ValueError(f"WMT14: dict_size should be set as a positive number, got "
                             f"{dict_size!r}")
        self.dict_size = dict_size
        self.data_file = resolve(data_file, URL_TRAIN, MD5_TRAIN, "wmt14", download, "WMT14",
                                 "data_file")
        self._load_data(TarReader(self.data_file, "WMT14"))

    def _dict(self, tar: TarReader, suffix: str) -> dict:
        names = [n for n in tar.members if n.endswith(suffix)]
        if len(names) != 1:
            raise ValueError(f"WMT14: {self.data_file} should hold one *{suffix} file, found "
                             f"{names}")
        words = tar.read(names[0]).decode().splitlines()[:self.dict_size]
        return {w.strip(): i for i, w in enumerate(words)}

    def _load_data(self, tar: TarReader) -> None:
        self.src_dict, self.trg_dict = self._dict(tar, "src.dict"), self._dict(tar, "trg.dict")
        for word in (START, END):
            if word not in self.trg_dict:
                raise ValueError(f"WMT14: the target dictionary in {self.data_file} lacks "
                                 f"{word!r} within its first {self.dict_size} words")
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        suffix = f"{self.mode}/{self.mode}"
        for name in sorted(n for n in tar.members if n.endswith(suffix)):
            for line in tar.read(name).decode().splitlines():
                parts = line.strip().split("\t")
                if len(parts) != 2:
                    continue
                src = [self.src_dict.get(w, UNK_IDX) for w in [START, *parts[0].split(), END]]
                trg = [self.trg_dict.get(w, UNK_IDX) for w in parts[1].split()]
                if len(src) > 80 or len(trg) > 80:
                    continue
                self.src_ids.append(src)
                self.trg_ids.append([self.trg_dict[START], *trg])
                self.trg_ids_next.append([*trg, self.trg_dict[END]])

    def __getitem__(self, idx: int) -> tuple:
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]),
                np.array(self.trg_ids_next[idx]))

    def __len__(self) -> int:
        return len(self.src_ids)

    def get_dict(self, reverse: bool = False) -> tuple:
        """(source, target) dictionaries; reverse=True maps ids to words."""
        if reverse:
            return ({v: k for k, v in self.src_dict.items()},
                    {v: k for k, v in self.trg_dict.items()})
        return self.src_dict, self.trg_dict

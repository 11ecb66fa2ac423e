"""WMT16: the English-German Multi30k corpus of wmt16.tar.gz (wmt16/{train,test,val})."""
from __future__ import annotations

import collections

import numpy as np

from ...io.dataset import Dataset
from ...utils.data_files import TarReader, resolve
from ._common import check_choice, lines

__all__ = ["WMT16"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"
DATA_MD5 = "0c38be43600334966403524a40dcd81e"
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK, END_MARK, UNK_MARK = "<s>", "<e>", "<unk>"


class WMT16(Dataset):
    """Translation pairs as (src ids with <s>/<e>, trg ids with <s>, trg ids with <e>).

    Each dictionary holds <s>, <e>, <unk> and then the most frequent words of that
    language's column of wmt16/train (ties in order of first appearance), dict_size words
    in all.

    Args:
        data_file (str, optional): wmt16.tar.gz; None: the cache
            (~/.cache/paddle/dataset/wmt16/), downloaded if download=True. Default: None.
        mode (str, optional): 'train', 'test' or 'val'. Default: 'train'.
        src_dict_size (int): source dictionary size (> 0; capped at the language's size).
        trg_dict_size (int): target dictionary size (> 0; capped likewise).
        lang (str, optional): source language, 'en' or 'de'. Default: 'en'.
        download (bool, optional): download a missing cache file. Default: True.

    Examples:
        >>> from sampan.text.datasets import WMT16
        >>> WMT16(mode='val', src_dict_size=50, trg_dict_size=50, download=False)  # doctest: +SKIP
    """

    def __init__(self, data_file: str | None = None, mode: str = "train",
                 src_dict_size: int = -1, trg_dict_size: int = -1, lang: str = "en",
                 download: bool = True) -> None:
        self.mode = check_choice(mode, ("train", "test", "val"), "WMT16", "mode")
        self.lang = check_choice(lang, ("en", "de"), "WMT16", "lang")
        for arg, size in (("src_dict_size", src_dict_size), ("trg_dict_size", trg_dict_size)):
            if not isinstance(size, int) or size <= 0:
                raise ValueError(f"WMT16: {arg} should be set as a positive number, got {size!r}")
        other = "de" if self.lang == "en" else "en"
        total = {"en": TOTAL_EN_WORDS, "de": TOTAL_DE_WORDS}
        self.src_dict_size = min(src_dict_size, total[self.lang])
        self.trg_dict_size = min(trg_dict_size, total[other])
        self.data_file = resolve(data_file, DATA_URL, DATA_MD5, "wmt16", download, "WMT16",
                                 "data_file")
        tar = TarReader(self.data_file, "WMT16")
        self._dicts = {self.lang: self._build_dict(tar, self.lang, self.src_dict_size),
                       other: self._build_dict(tar, other, self.trg_dict_size)}
        self.src_dict, self.trg_dict = self._dicts[self.lang], self._dicts[other]
        self._load_data(tar)

    @staticmethod
    def _pairs(tar: TarReader, split: str):
        for line in lines(tar, f"wmt16/{split}"):
            parts = line.decode().strip().split("\t")
            if len(parts) == 2:
                yield parts

    def _build_dict(self, tar: TarReader, lang: str, size: int) -> dict:
        column = 0 if lang == "en" else 1
        freq = collections.Counter()
        for parts in self._pairs(tar, "train"):
            freq.update(parts[column].split())
        words = [START_MARK, END_MARK, UNK_MARK]
        words += [w for w, _ in sorted(freq.items(), key=lambda x: x[1], reverse=True)]
        return {w: i for i, w in enumerate(words[:max(size, 3)])}

    def _load_data(self, tar: TarReader) -> None:
        start, end, unk = (self.src_dict[m] for m in (START_MARK, END_MARK, UNK_MARK))
        src_col = 0 if self.lang == "en" else 1
        self.src_ids, self.trg_ids, self.trg_ids_next = [], [], []
        for parts in self._pairs(tar, self.mode):
            src = [self.src_dict.get(w, unk) for w in parts[src_col].split()]
            trg = [self.trg_dict.get(w, unk) for w in parts[1 - src_col].split()]
            self.src_ids.append([start, *src, end])
            self.trg_ids.append([start, *trg])
            self.trg_ids_next.append([*trg, end])

    def __getitem__(self, idx: int) -> tuple:
        return (np.array(self.src_ids[idx]), np.array(self.trg_ids[idx]),
                np.array(self.trg_ids_next[idx]))

    def __len__(self) -> int:
        return len(self.src_ids)

    def get_dict(self, lang: str, reverse: bool = False) -> dict:
        """The dictionary of lang ('en' or 'de'); reverse=True maps ids to words."""
        words = self._dicts[check_choice(lang, ("en", "de"), "WMT16.get_dict", "lang")]
        return {v: k for k, v in words.items()} if reverse else dict(words)

"""Imikolov: the Penn Treebank language-model text from simple-examples.tgz."""
from __future__ import annotations

import collections

import numpy as np

from ...io.dataset import Dataset
from ...utils.data_files import TarReader, resolve
from ._common import check_choice, lines

__all__ = ["Imikolov"]

URL = "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"
MD5 = "30177ea32e27c525793142b6bf2c8e2d"
_FILE = "./simple-examples/data/ptb.{}.txt"


class Imikolov(Dataset):
    """PTB sentences as n-grams ('NGRAM': tuples of window_size word ids, sentences wrapped
    in <s> ... <e>) or sequence pairs ('SEQ': (<s> + ids, ids + <e>)).

    The dictionary (bytes keys) holds words of ptb.train.txt + ptb.valid.txt seen more than
    min_word_freq times, most frequent first, plus '<unk>' last.

    Args:
        data_file (str, optional): simple-examples.tgz; None: the cache
            (~/.cache/paddle/dataset/imikolov/), downloaded if download=True. Default: None.
        data_type (str, optional): 'NGRAM' or 'SEQ'. Default: 'NGRAM'.
        window_size (int, optional): n-gram size (required for NGRAM), or the longest kept
            SEQ source (-1: all). Default: -1.
        mode (str, optional): 'train' or 'test' (ptb.test.txt). Default: 'train'.
        min_word_freq (int, optional): minimum count (exclusive) for an id. Default: 50.
        download (bool, optional): download a missing cache file. Default: True.

    Examples:
        >>> from sampan.text.datasets import Imikolov
        >>> Imikolov(data_type='NGRAM', window_size=5, download=False)  # doctest: +SKIP
    """

    def __init__(self, data_file: str | None = None, data_type: str = "NGRAM",
                 window_size: int = -1, mode: str = "train", min_word_freq: int = 50,
                 download: bool = True) -> None:
        self.data_type = check_choice(data_type, ("NGRAM", "SEQ"), "Imikolov", "data_type",
                                      lower=False)
        self.mode = check_choice(mode, ("train", "test"), "Imikolov", "mode")
        if self.data_type == "NGRAM" and window_size < 1:
            raise ValueError(f"Imikolov: data_type='NGRAM' needs a positive window_size, got "
                             f"{window_size}")
        self.window_size, self.min_word_freq = window_size, min_word_freq
        self.data_file = resolve(data_file, URL, MD5, "imikolov", download, "Imikolov",
                                 "data_file")
        tar = TarReader(self.data_file, "Imikolov")
        self.word_idx = self._build_word_dict(tar, min_word_freq)
        self._load(lines(tar, _FILE.format(self.mode)))

    @staticmethod
    def _build_word_dict(tar: TarReader, cutoff: int) -> dict:
        freq = collections.Counter()
        for split in ("train", "valid"):
            for line in lines(tar, _FILE.format(split)):
                freq.update(line.strip().split())
                freq.update([b"<s>", b"<e>"])
        freq.pop(b"<unk>", None)
        kept = sorted((x for x in freq.items() if x[1] > cutoff), key=lambda x: (-x[1], x[0]))
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx[b"<unk>"] = len(kept)
        return word_idx

    def _load(self, text: list) -> None:
        idx, unk, n = self.word_idx, self.word_idx[b"<unk>"], self.window_size
        self.data = []
        for line in text:
            words = line.strip().split()
            if self.data_type == "NGRAM":
                ids = [idx.get(w, unk) for w in [b"<s>", *words, b"<e>"]]
                self.data.extend(tuple(ids[i - n:i]) for i in range(n, len(ids) + 1))
                continue
            ids = [idx.get(w, unk) for w in words]
            src = [idx.get(b"<s>", unk), *ids]
            if n > 0 and len(src) > n:
                continue
            self.data.append((src, [*ids, idx.get(b"<e>", unk)]))

    def __getitem__(self, idx: int) -> tuple:
        return tuple(np.array(d) for d in self.data[idx])

    def __len__(self) -> int:
        return len(self.data)

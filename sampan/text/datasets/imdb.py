"""Imdb: movie review sentiment from aclImdb_v1.tar.gz (aclImdb/{train,test}/{pos,neg}/*.txt)."""
from __future__ import annotations

import collections
import re
import string

import numpy as np

from ...io.dataset import Dataset
from ...utils.data_files import TarReader, resolve
from ._common import check_choice

__all__ = ["Imdb"]

URL = "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"
MD5 = "7c2ac02c03563afcf9b574c7e56c153a"
_PUNCT = string.punctuation.encode("latin-1")


def tokenize(raw: bytes) -> list:
    """Paddle's tokenizer: strip line ends, drop ASCII punctuation, lower-case, split (bytes)."""
    return raw.rstrip(b"\n\r").translate(None, _PUNCT).lower().split()


class Imdb(Dataset):
    """IMDB reviews as (word ids, label) with label 0 for positive, 1 for negative.

    The dictionary holds words seen more than cutoff times in train + test, most frequent
    first (ties alphabetical), plus '<unk>' last; word keys are bytes, '<unk>' a str, as in Paddle.

    Args:
        data_file (str, optional): aclImdb_v1.tar.gz; None: the cache
            (~/.cache/paddle/dataset/imdb/), downloaded if download=True. Default: None.
        mode (str, optional): 'train' or 'test'. Default: 'train'.
        cutoff (int, optional): minimum count (exclusive) for a word to get an id. Default: 150.
        download (bool, optional): download a missing cache file. Default: True.

    Examples:
        >>> from sampan.text.datasets import Imdb
        >>> Imdb(mode='test', download=False)  # doctest: +SKIP
    """

    def __init__(self, data_file: str | None = None, mode: str = "train", cutoff: int = 150,
                 download: bool = True) -> None:
        self.mode = check_choice(mode, ("train", "test"), "Imdb", "mode")
        self.data_file = resolve(data_file, URL, MD5, "imdb", download, "Imdb", "data_file")
        tar = TarReader(self.data_file, "Imdb")
        docs = {}
        for name in tar.members:
            m = re.match(r"(?:\./)?aclImdb/(train|test)/(pos|neg)/.*\.txt$", name)
            if m:
                docs.setdefault(m.groups(), []).append(tokenize(tar.read(name)))
        if not docs:
            raise ValueError(f"Imdb: {self.data_file} holds no aclImdb/<train|test>/<pos|neg>/"
                             f"*.txt reviews")
        self.word_idx = self._build_word_dict(docs, cutoff)
        unk = self.word_idx["<unk>"]
        self.docs, self.labels = [], []
        for label, polarity in enumerate(("pos", "neg")):
            for doc in docs.get((self.mode, polarity), []):
                self.docs.append([self.word_idx.get(w, unk) for w in doc])
                self.labels.append(label)

    @staticmethod
    def _build_word_dict(docs: dict, cutoff: int) -> dict:
        freq = collections.Counter(w for group in docs.values() for doc in group for w in doc)
        kept = sorted((x for x in freq.items() if x[1] > cutoff), key=lambda x: (-x[1], x[0]))
        word_idx = {w: i for i, (w, _) in enumerate(kept)}
        word_idx["<unk>"] = len(kept)  # a str key, as Paddle's
        return word_idx

    def __getitem__(self, idx: int) -> tuple:
        return np.array(self.docs[idx]), np.array([self.labels[idx]])

    def __len__(self) -> int:
        return len(self.docs)

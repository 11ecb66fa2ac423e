"""Conll05st: semantic role labelling on the CoNLL-2005 WSJ test set (conll05st-tests.tar.gz
with words/props gz files) plus the word, verb and target dictionaries and an embedding file."""
from __future__ import annotations

import numpy as np

from ...io.dataset import Dataset
from ...utils.data_files import TarReader, resolve
from ._common import gunzip, member

__all__ = ["Conll05st"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz"
DATA_MD5 = "387719152ae52d60422c016e92a742fc"
WORDDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FwordDict.txt"
WORDDICT_MD5 = "ea7fb7d4c75cc6254716f0177a506baa"
VERBDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FverbDict.txt"
VERBDICT_MD5 = "0d2977293bbb6cbefab5b0f97db1e77c"
TRGDICT_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2FtargetDict.txt"
TRGDICT_MD5 = "d8c7f03ceb5fc2e5a0fa7503a4353751"
EMB_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2Femb"
EMB_MD5 = "bf436eb0faa1f6f9103017f8be57cdb7"
UNK_IDX = 0
_WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
_PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"


def _load_dict(path: str) -> dict:
    with open(path) as f:
        return {line.strip(): i for i, line in enumerate(f)}


def _load_label_dict(path: str) -> dict:
    """B-/I- pairs per tag (tags in sorted order), then 'O'."""
    with open(path) as f:
        tags = sorted({line.strip()[2:] for line in f if line.strip()[:2] in ("B-", "I-")})
    d = {}
    for tag in tags:
        d["B-" + tag], d["I-" + tag] = len(d), len(d) + 1
    d["O"] = len(d)
    return d


def _bio(column: list) -> list:
    """Bracketed props ('(A0*', '*', '*)', '(V*)') -> B-/I-/O tags."""
    tags, cur, inside = [], "O", False
    for mark in column:
        if mark == "*":
            tags.append("I-" + cur if inside else "O")
        elif mark == "*)":
            tags.append("I-" + cur)
            inside = False
        elif "(" in mark:
            cur = mark[1:mark.find("*")]
            tags.append("B-" + cur)
            inside = ")" not in mark
        else:
            raise ValueError(f"Conll05st: unexpected label {mark!r} in the props file")
    return tags


class Conll05st(Dataset):
    """CoNLL-2005 SRL samples: (word ids, ctx_n2, ctx_n1, ctx_0, ctx_p1, ctx_p2 ids,
    predicate ids, mark, label ids), one sample per predicate of each sentence.

    Args:
        data_file (str, optional): conll05st-tests.tar.gz. Default: None (the cache
            ~/.cache/paddle/dataset/conll05st/, downloaded if download=True).
        word_dict_file, verb_dict_file, target_dict_file (str, optional): the dictionaries
            (one entry a line), as data_file. Default: None.
        emb_file (str, optional): the word embedding file, as data_file. Default: None.
        download (bool, optional): download missing cache files. Default: True.

    Examples:
        >>> from sampan.text.datasets import Conll05st
        >>> Conll05st(download=False)  # doctest: +SKIP
    """

    def __init__(self, data_file: str | None = None, word_dict_file: str | None = None,
                 verb_dict_file: str | None = None, target_dict_file: str | None = None,
                 emb_file: str | None = None, download: bool = True) -> None:
        def get(path, url, md5, arg):
            return resolve(path, url, md5, "conll05st", download, "Conll05st", arg)
        self.data_file = get(data_file, DATA_URL, DATA_MD5, "data_file")
        self.word_dict_file = get(word_dict_file, WORDDICT_URL, WORDDICT_MD5, "word_dict_file")
        self.verb_dict_file = get(verb_dict_file, VERBDICT_URL, VERBDICT_MD5, "verb_dict_file")
        self.target_dict_file = get(target_dict_file, TRGDICT_URL, TRGDICT_MD5,
                                    "target_dict_file")
        self.emb_file = get(emb_file, EMB_URL, EMB_MD5, "emb_file")
        self.word_dict = _load_dict(self.word_dict_file)
        self.predicate_dict = _load_dict(self.verb_dict_file)
        self.label_dict = _load_label_dict(self.target_dict_file)
        self._load_anno()

    def _load_anno(self) -> None:
        tar = TarReader(self.data_file, "Conll05st")
        words = gunzip(tar.read(member(tar, _WORDS)), f"{self.data_file}:{_WORDS}", "Conll05st")
        props = gunzip(tar.read(member(tar, _PROPS)), f"{self.data_file}:{_PROPS}", "Conll05st")
        self.sentences, self.predicates, self.labels = [], [], []
        sentence, rows = [], []
        for word, prop in zip(words.decode().splitlines(), props.decode().splitlines()):
            prop = prop.split()
            if prop:
                sentence.append(word.strip())
                rows.append(prop)
                continue
            if rows:
                columns = list(zip(*rows))
                verbs = [v for v in columns[0] if v != "-"]
                for verb, column in zip(verbs, columns[1:]):
                    self.sentences.append(sentence)
                    self.predicates.append(verb)
                    self.labels.append(_bio(column))
            sentence, rows = [], []

    def __getitem__(self, idx: int) -> tuple:
        sentence, labels = self.sentences[idx], self.labels[idx]
        n = len(sentence)
        if "B-V" not in labels:
            raise ValueError(f"Conll05st: sample {idx} has no verb (B-V) label")
        v = labels.index("B-V")
        mark = [0] * n
        ctx = []
        for off, pad in ((-2, "bos"), (-1, "bos"), (0, None), (1, "eos"), (2, "eos")):
            if 0 <= v + off < n:
                mark[v + off] = 1
                ctx.append(sentence[v + off])
            else:
                ctx.append(pad)
        word_idx = [self.word_dict.get(w, UNK_IDX) for w in sentence]
        ctx_idx = [[self.word_dict.get(w, UNK_IDX)] * n for w in ctx]
        pred_idx = [self.predicate_dict.get(self.predicates[idx])] * n
        label_idx = [self.label_dict.get(w) for w in labels]
        return tuple(np.array(a) for a in [word_idx, *ctx_idx, pred_idx, mark, label_idx])

    def __len__(self) -> int:
        return len(self.sentences)

    def get_dict(self) -> tuple:
        """(word_dict, predicate_dict, label_dict)."""
        return self.word_dict, self.predicate_dict, self.label_dict

    def get_embedding(self) -> str:
        """The path of the embedding file."""
        return self.emb_file

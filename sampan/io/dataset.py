"""Datasets (`paddle.io.Dataset` and friends) and `random_split`.

Owns the map-style / iterable dataset classes only; imports framework (Tensor, random)
and nothing above it.
"""
from __future__ import annotations

import bisect
import math
from typing import Any, Iterable, Sequence

import numpy as np

from ..framework import place as _place
from ..framework import random as _random
from ..framework.tensor import Tensor, wrap


def _expect(cond: bool, msg: str) -> None:
    # NOTE: Paddle validates these arguments with `assert`; we raise the same
    # AssertionError explicitly so the check also runs under `python -O`.
    if not cond:
        raise AssertionError(msg)


class Dataset:
    """A map-style dataset: subclasses implement `__getitem__(idx)` and `__len__()`.

    Examples:
        >>> import numpy as np
        >>> from sampan.io import Dataset
        >>> class Squares(Dataset):
        ...     def __getitem__(self, idx):
        ...         return np.array([idx * idx], dtype='int64')
        ...     def __len__(self):
        ...         return 4
        >>> Squares()[3]
        array([9])
    """

    def __getitem__(self, idx: int):
        raise NotImplementedError(f"'{type(self).__name__}' does not implement __getitem__, "
                                  f"required by paddle.io.Dataset")

    def __len__(self) -> int:
        raise NotImplementedError(f"'{type(self).__name__}' does not implement __len__, "
                                  f"required by paddle.io.Dataset")


class _NoLenError(RuntimeError, TypeError):
    """Paddle raises RuntimeError for `len(iterable_dataset)`; being a TypeError too lets
    `list(ds)` and other length hints fall back to plain iteration."""


class IterableDataset(Dataset):
    """A dataset that is a stream: subclasses implement `__iter__()`.

    With `num_workers > 0` every worker iterates its own copy of the dataset; use
    `paddle.io.get_worker_info()` inside `__iter__` to give each worker its own shard.

    Examples:
        >>> from sampan.io import IterableDataset
        >>> class Count(IterableDataset):
        ...     def __iter__(self):
        ...         yield from range(3)
        >>> list(Count())
        [0, 1, 2]
    """

    def __iter__(self):
        raise NotImplementedError(f"'{type(self).__name__}' does not implement __iter__, "
                                  f"required by paddle.io.IterableDataset")

    def __getitem__(self, idx: int):
        raise RuntimeError(f"'{type(self).__name__}' is an IterableDataset and does not "
                           f"support __getitem__")

    def __len__(self) -> int:
        raise _NoLenError(f"'{type(self).__name__}' is an IterableDataset and does not "
                          f"support __len__")


def _sample_of(t, idx):
    if isinstance(t, Tensor):   # a host copy (collation and workers use NumPy)
        arr = t._data[idx]
        return wrap(np.array(_place.backend_of(arr).to_host(arr)))
    return t[idx]


class TensorDataset(Dataset):
    """A dataset of tensors that share their first dimension; item i is `(t[i] for t)`.

    Args:
        tensors (list|tuple): Tensors (or NumPy arrays) with the same `shape[0]`.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.io import TensorDataset
        >>> ds = TensorDataset([paddle.to_tensor([[1, 2], [3, 4]]), paddle.to_tensor([0, 1])])
        >>> len(ds), ds[1][0].numpy().tolist(), int(ds[1][1])
        (2, [3, 4], 1)
    """

    def __init__(self, tensors: Sequence[Tensor]) -> None:
        _expect(isinstance(tensors, (list, tuple)) and len(tensors) > 0,
                "TensorDataset: tensors should be a non-empty list or tuple of Tensors")
        n = tensors[0].shape[0]
        _expect(all(t.shape[0] == n for t in tensors),
                f"TensorDataset: tensors not have same shape of the 1st dimension, got "
                f"{[t.shape[0] for t in tensors]}")
        self.tensors = list(tensors)

    def __getitem__(self, index: int) -> tuple:
        return tuple(_sample_of(t, index) for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


def _as_fields(sample) -> list:
    return list(sample) if isinstance(sample, (list, tuple)) else [sample]


class ComposeDataset(Dataset):
    """Combine map-style datasets of equal length field-wise: item i is the concatenation
    of the fields of every dataset's item i (as a tuple).

    Args:
        datasets (list[Dataset]): map-style datasets of the same length.

    Examples:
        >>> from sampan.io import ComposeDataset
        >>> ComposeDataset([[(1, 2), (3, 4)], [5, 6]])[1]
        (3, 4, 6)
    """

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        _expect(len(self.datasets) > 0, "ComposeDataset: input datasets should not be empty")
        for ds in self.datasets:
            _expect(not isinstance(ds, IterableDataset),
                    "ComposeDataset: IterableDataset is not supported, got "
                    f"{type(ds).__name__}")
        lengths = [len(ds) for ds in self.datasets]
        _expect(all(n == lengths[0] for n in lengths),
                f"ComposeDataset: lengths of datasets should be the same, got {lengths}")

    def __len__(self) -> int:
        return len(self.datasets[0])

    def __getitem__(self, idx: int) -> tuple:
        fields = []
        for ds in self.datasets:
            fields.extend(_as_fields(ds[idx]))
        return tuple(fields)


class ChainDataset(IterableDataset):
    """Chain iterable datasets: yields every sample of the first, then of the second, ...

    Args:
        datasets (list[IterableDataset]): the streams to chain.

    Examples:
        >>> from sampan.io import ChainDataset
        >>> list(ChainDataset([range(2), range(3)]))
        [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets: Sequence[IterableDataset]) -> None:
        self.datasets = list(datasets)
        _expect(len(self.datasets) > 0, "ChainDataset: input datasets should not be empty")
        for ds in self.datasets:
            _expect(not (isinstance(ds, Dataset) and not isinstance(ds, IterableDataset)),
                    "ChainDataset: only IterableDataset is supported, got "
                    f"{type(ds).__name__}")

    def __iter__(self):
        for ds in self.datasets:
            yield from ds


class Subset(Dataset):
    """The items of `dataset` at `indices`, in that order.

    Args:
        dataset (Dataset): the whole dataset.
        indices (sequence): indices into `dataset`.

    Examples:
        >>> from sampan.io import Subset
        >>> list(Subset(range(10), [4, 1]))
        [4, 1]
    """

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: int):
        return self.dataset[int(self.indices[idx])]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset):
    """Concatenate map-style datasets: item i of the result is item i of the first one, and
    so on past its end into the next.

    Args:
        datasets (sequence[Dataset]): map-style datasets to concatenate.

    Examples:
        >>> from sampan.io import ConcatDataset
        >>> ds = ConcatDataset([range(2), range(10, 13)])
        >>> len(ds), ds[3], ds[-1]
        (5, 11, 12)
    """

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        _expect(len(self.datasets) > 0, "ConcatDataset: datasets should not be an empty "
                                        "iterable")
        for ds in self.datasets:
            _expect(not isinstance(ds, IterableDataset),
                    "ConcatDataset: does not support IterableDataset")
        self.cumulative_sizes = list(np.cumsum([len(ds) for ds in self.datasets]).tolist())

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int):
        n = len(self)
        if idx < 0:
            if -idx > n:
                raise ValueError(f"ConcatDataset: absolute value of index {idx} should not "
                                 f"exceed dataset length {n}")
            idx += n
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][idx - start]


def _split_lengths(lengths: Sequence, total: int) -> list:
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1.0) and sum(lengths) <= 1.0 and \
            any(isinstance(v, float) for v in lengths):
        for frac in lengths:
            if not 0.0 <= frac <= 1.0:
                raise ValueError(f"random_split: fraction {frac} is not between 0 and 1")
        sizes = [int(math.floor(total * frac)) for frac in lengths]
        for i in range(total - sum(sizes)):
            sizes[i % len(sizes)] += 1
        return sizes
    return [int(v) for v in lengths]


def _permutation(n: int, generator) -> np.ndarray:
    if isinstance(generator, np.random.Generator):
        return generator.permutation(n)
    if generator is not None and hasattr(generator, "next_seed"):
        return _random.rng(generator.next_seed()).permutation(n)
    return _random.rng(_random.next_seed()).permutation(n)


def random_split(dataset: Dataset, lengths: Sequence, generator: Any = None) -> list:
    """Randomly split `dataset` into non-overlapping `Subset`s of the given lengths.

    Args:
        dataset (Dataset): the dataset (anything with `__len__` and `__getitem__`).
        lengths (sequence): lengths of the splits summing to `len(dataset)`, or fractions
            summing to 1 (the remainder of the floor is given out one by one from the first).
        generator (Generator, optional): a `numpy.random.Generator` or a sampan
            `Generator`; default None draws from the global generator (`paddle.seed`).

    Returns:
        list[Subset]: one Subset per length.

    Examples:
        >>> import sampan as paddle
        >>> from sampan.io import random_split
        >>> parts = random_split(range(10), [3, 7])
        >>> [len(p) for p in parts], sorted(list(parts[0]) + list(parts[1]))
        ([3, 7], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    """
    total = len(dataset)
    sizes = _split_lengths(lengths, total)
    if any(s < 0 for s in sizes):
        raise ValueError(f"random_split: lengths should be non-negative, got {list(lengths)}")
    if sum(sizes) != total:
        raise ValueError(f"random_split: sum of input lengths ({sum(sizes)}) does not equal "
                         f"the length of the input dataset ({total})")
    perm = _permutation(total, generator).tolist()
    subsets, offset = [], 0
    for size in sizes:
        subsets.append(Subset(dataset, perm[offset:offset + size]))
        offset += size
    return subsets

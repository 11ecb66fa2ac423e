"""Batch samplers: group sample indices into mini-batches (`BatchSampler`,
`DistributedBatchSampler`). Imports framework and the sibling sampler module only.
"""
from __future__ import annotations

import math
import os
from typing import Any, Iterable, Iterator

import numpy as np

from .dataset import IterableDataset, _expect
from .sampler import RandomSampler, Sampler, SequenceSampler


def _check_batch_size(batch_size: Any, owner: str) -> None:
    _expect(isinstance(batch_size, (int, np.integer)) and not isinstance(batch_size, bool)
            and batch_size > 0,
            f"{owner}: batch_size should be a positive integer, but got {batch_size}")


def _batches(indices: Iterable[int], batch_size: int, drop_last: bool) -> Iterator[list]:
    batch = []
    for idx in indices:
        batch.append(idx)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


class BatchSampler(Sampler):
    """Yield lists of `batch_size` indices drawn from `sampler` (or from `dataset` in order,
    or shuffled when `shuffle=True`).

    Args:
        dataset (Dataset, optional): map-style dataset to index; exactly one of `dataset`
            and `sampler` must be given. Default None.
        sampler (Sampler|Iterable, optional): the index sampler. Default None.
        shuffle (bool, optional): shuffle the indices of `dataset` (a `RandomSampler`);
            must be False with `sampler`. Default False.
        batch_size (int, optional): indices per batch. Default 1.
        drop_last (bool, optional): drop the last batch when it is smaller. Default False.

    Examples:
        >>> from sampan.io import BatchSampler
        >>> list(BatchSampler(dataset=range(5), batch_size=2))
        [[0, 1], [2, 3], [4]]
        >>> len(BatchSampler(dataset=range(5), batch_size=2, drop_last=True))
        2
    """

    def __init__(self, dataset: Any = None, sampler: Any = None, shuffle: bool = False,
                 batch_size: int = 1, drop_last: bool = False) -> None:
        super().__init__(dataset)
        if dataset is None:
            _expect(sampler is not None, "BatchSampler: either dataset or sampler should "
                                         "be set")
            _expect(isinstance(sampler, (Sampler, Iterable)),
                    f"BatchSampler: sampler should be a Sampler or Iterable, but got "
                    f"{type(sampler).__name__}")
            _expect(not shuffle, "BatchSampler: shuffle should be False when sampler is set")
            self.sampler = sampler
        else:
            _expect(not isinstance(dataset, IterableDataset),
                    "BatchSampler: dataset should not be a paddle.io.IterableDataset")
            _expect(sampler is None, "BatchSampler: should not set both dataset and sampler")
            _expect(isinstance(shuffle, bool),
                    f"BatchSampler: shuffle should be a boolean value, but got {shuffle}")
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        _check_batch_size(batch_size, "BatchSampler")
        _expect(isinstance(drop_last, bool),
                f"BatchSampler: drop_last should be a boolean value, but got {drop_last}")
        self.shuffle = shuffle
        self.batch_size = int(batch_size)
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list]:
        return _batches(self.sampler, self.batch_size, self.drop_last)

    def __len__(self) -> int:
        n = len(self.sampler)
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size


class _InfiniteIterableSampler:
    """Stands in for a batch sampler over an IterableDataset: yields `[None] * batch_size`
    forever; the fetcher pulls that many samples from the stream."""

    def __init__(self, dataset: Any, batch_size: int = 1) -> None:
        self.dataset = dataset
        self.batch_size = batch_size

    def __iter__(self) -> Iterator[list]:
        while True:
            yield [None] * self.batch_size


def _env_int(names: tuple, default: int) -> int:
    for name in names:
        value = os.environ.get(name)
        if value not in (None, ""):
            return int(value)
    return default


class DistributedBatchSampler(BatchSampler):
    """A `BatchSampler` that gives each of `num_replicas` processes its own share of the
    dataset. Indices are padded (by repeating from the start) to be evenly divisible;
    with `shuffle=True` the order is a permutation seeded by the epoch, identical on every
    rank, and the epoch advances after each full pass (or is set by `set_epoch`).

    Args:
        dataset (Dataset): map-style dataset (anything with `__len__`).
        batch_size (int): indices per mini-batch on this rank.
        num_replicas (int, optional): number of processes; default None reads
            `PADDLE_TRAINERS_NUM` (1 if unset).
        rank (int, optional): this process's rank; default None reads `PADDLE_TRAINER_ID`
            (0 if unset).
        shuffle (bool, optional): shuffle indices before splitting. Default False.
        drop_last (bool, optional): drop the last incomplete batch. Default False.

    Examples:
        >>> from sampan.io import DistributedBatchSampler
        >>> list(DistributedBatchSampler(range(5), batch_size=2, num_replicas=2, rank=1))
        [[2, 3], [0]]
    """

    def __init__(self, dataset: Any, batch_size: int, num_replicas: int | None = None,
                 rank: int | None = None, shuffle: bool = False,
                 drop_last: bool = False) -> None:
        self.dataset = dataset
        self.data_source = dataset
        _check_batch_size(batch_size, "DistributedBatchSampler")
        _expect(isinstance(shuffle, bool), "DistributedBatchSampler: shuffle should be a "
                                           "boolean value")
        _expect(isinstance(drop_last, bool), "DistributedBatchSampler: drop_last should be a "
                                             "boolean value")
        if num_replicas is None:
            num_replicas = _env_int(("PADDLE_TRAINERS_NUM",), 1)
        if rank is None:
            rank = _env_int(("PADDLE_TRAINER_ID", "PADDLE_RANK_IN_NODE"), 0)
        _expect(isinstance(num_replicas, int) and num_replicas > 0,
                f"DistributedBatchSampler: num_replicas should be a positive integer, got "
                f"{num_replicas}")
        _expect(isinstance(rank, int) and 0 <= rank < num_replicas,
                f"DistributedBatchSampler: rank should be in [0, {num_replicas}), got {rank}")
        self.batch_size = int(batch_size)
        self.nranks = num_replicas
        self.local_rank = rank
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.sampler = None
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def _padded_indices(self) -> list:
        indices = list(range(len(self.dataset)))
        while len(indices) < self.total_size:
            indices += indices[:self.total_size - len(indices)]
        return indices

    def _rank_share(self, indices: list) -> list:
        """This rank's indices: batch-sized blocks dealt round-robin across ranks, then an
        equal slice of the tail that does not fill a block on every rank."""
        span = self.batch_size * self.nranks
        tail = self.total_size % span
        body = len(indices) - tail
        share = []
        for start in range(self.local_rank * self.batch_size, body, span):
            share.extend(indices[start:start + self.batch_size])
        per_rank = tail // self.nranks
        lo = body + self.local_rank * per_rank
        share.extend(indices[lo:lo + per_rank])
        return share

    def __iter__(self) -> Iterator[list]:
        indices = self._padded_indices()
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            indices = self._rank_share(indices)
        return _batches(indices, self.batch_size, self.drop_last)

    def __len__(self) -> int:
        if self.drop_last:
            return self.num_samples // self.batch_size
        return (self.num_samples + self.batch_size - 1) // self.batch_size

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch that seeds the shuffle (same on every rank), so each epoch has a
        different but reproducible order.

        Args:
            epoch (int): the epoch number.

        Examples:
            >>> from sampan.io import DistributedBatchSampler
            >>> s = DistributedBatchSampler(range(6), batch_size=3, shuffle=True)
            >>> s.set_epoch(2)
            >>> a = list(s)
            >>> s.set_epoch(2)
            >>> a == list(s)
            True
        """
        self.epoch = epoch

"""`paddle.io.DataLoader`: sampler -> batch sampler -> (workers) -> collate -> Tensors.

Imports framework and the sibling io modules only; workers live in worker.py and
multiprocess.py.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

from ..framework import place as _place
from ..framework import trace as _trace
from .batch_sampler import BatchSampler, _InfiniteIterableSampler, _check_batch_size
from .collate import default_collate_fn, default_convert_fn, to_tensor_tree
from .dataset import IterableDataset, _expect
from .multiprocess import MultiProcessIter
from .sampler import SequenceSampler
from .worker import IterableFetcher, MapFetcher


class _NoneSampler:
    """Index source for an IterableDataset without batching: one request per sample."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


def _check_places(places):
    """The Place of DataLoader's `places` (a Place, 'cpu'/'gpu:N', or a non-empty list of
    them: the first is used, as in dynamic-graph Paddle); None stays None (current device)."""
    if places is None:
        return None
    items = list(places) if isinstance(places, (list, tuple)) else [places]
    if not items:
        raise ValueError("DataLoader: places should not be an empty list")
    try:
        return [_place.to_place(p) for p in items][0]
    except ValueError:
        raise ValueError(f"DataLoader: places must be a Place (CPUPlace(), CUDAPlace(n), "
                         f"CUDAPinnedPlace()), 'cpu', 'gpu:N' or a list of them, got "
                         f"{places!r}") from None


class _SingleProcessIter:
    """Iterator of a DataLoader with `num_workers=0`: fetch and collate in this process."""

    def __init__(self, loader: "DataLoader") -> None:
        if loader._iterable:
            self._fetcher = IterableFetcher(loader.dataset, loader._auto_collate,
                                            loader._collate, loader.drop_last)
        else:
            self._fetcher = MapFetcher(loader.dataset, loader._auto_collate, loader._collate)
        self._indices = iter(loader._index_sampler)
        self._names = loader._feed_names
        self._place = loader._batch_place()
        self._dataset = loader.dataset

    def __iter__(self) -> "_SingleProcessIter":
        return self

    def __next__(self) -> Any:
        timer = _trace.READER[0]   # a started Profiler's step timer (reader_cost)
        if timer is not None:
            timer.before_reader(self._dataset)
        request = next(self._indices)
        batch = to_tensor_tree(self._fetcher.fetch(request), self._place)
        if self._names and isinstance(batch, list):
            batch = dict(zip(self._names, batch))
        if timer is not None:
            timer.after_reader()
        return batch


class DataLoader:
    """Iterate over a dataset in mini-batches of Tensors, optionally loading with worker
    processes.

    Args:
        dataset (Dataset|IterableDataset): the data; map-style (`__getitem__`/`__len__`)
            or a stream (`__iter__`).
        feed_list (list, optional): static-graph variables the batch fields feed; with
            `return_list=False` each batch is a dict keyed by their names. Default None.
        places (Place|str|list, optional): where batches are put (the first entry of a
            list); None: the current device (`paddle.set_device`). On a GPU place batches
            are GPU tensors; CPU and CUDAPinnedPlace keep them in host memory. Default None.
        return_list (bool, optional): return each batch as a list (True) or, with
            `feed_list`, as a dict of name -> Tensor. Default True.
        batch_sampler (BatchSampler, optional): yields lists of indices; excludes
            `batch_size`, `shuffle` and `drop_last`. Default None.
        batch_size (int|None, optional): samples per batch; None disables batching (each
            sample is returned as it is, arrays converted to Tensors). Default 1.
        shuffle (bool, optional): shuffle sample order each epoch (map-style only).
            Default False.
        drop_last (bool, optional): drop the last incomplete batch. Default False.
        collate_fn (callable, optional): merges a list of samples into a batch; default
            `default_collate_fn` (stacks arrays/Tensors, numbers become int64/float64).
        num_workers (int, optional): worker processes; 0 loads in the main process.
            Default 0.
        use_buffer_reader (bool, optional): accepted for compatibility (workers already
            prefetch). Default True.
        reader_buffer_size (int, optional): Paddle's buffer of the in-process reader;
            accepted and checked for compatibility (in-process loading here is synchronous;
            workers prefetch `prefetch_factor` batches each). Default 2.
        prefetch_factor (int, optional): batches in flight per worker. Default 2.
        use_shared_memory (bool, optional): workers pass batch arrays through shared
            memory instead of pickling them through a pipe. Default True.
        timeout (int|float, optional): seconds to wait for a batch from the workers before
            raising RuntimeError; 0 waits forever (still failing fast if a worker dies).
            Default 0.
        worker_init_fn (callable, optional): called as `worker_init_fn(worker_id)` in each
            worker after seeding. Default None.
        persistent_workers (bool, optional): keep worker processes alive between epochs.
            Default False.

    Returns:
        DataLoader: an iterable (and callable: `loader()` iterates too) of batches.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> from sampan.io import DataLoader, Dataset
        >>> class RandomDataset(Dataset):
        ...     def __getitem__(self, idx):
        ...         return np.full([3], idx, dtype='float32'), idx % 2
        ...     def __len__(self):
        ...         return 5
        >>> loader = DataLoader(RandomDataset(), batch_size=2, drop_last=True)
        >>> len(loader)
        2
        >>> x, y = next(iter(loader))
        >>> x.shape, y.dtype == paddle.int64
        (paddle.Size([2, 3]), True)
    """

    def __init__(self, dataset: Any, feed_list: list | None = None, places: Any = None,
                 return_list: bool = True, batch_sampler: Any = None,
                 batch_size: int | None = 1, shuffle: bool = False, drop_last: bool = False,
                 collate_fn: Callable | None = None, num_workers: int = 0,
                 use_buffer_reader: bool = True, reader_buffer_size: int = 2,
                 prefetch_factor: int = 2,
                 use_shared_memory: bool = True, timeout: float = 0,
                 worker_init_fn: Callable | None = None,
                 persistent_workers: bool = False) -> None:
        self.dataset = dataset
        self.feed_list = feed_list
        self.places = places
        self._place = _check_places(places)
        self.return_list = return_list
        self.use_buffer_reader = use_buffer_reader
        self.use_shared_memory = use_shared_memory
        self.worker_init_fn = worker_init_fn
        self._iterable = isinstance(dataset, IterableDataset)
        _expect(isinstance(num_workers, int) and num_workers >= 0,
                f"DataLoader: num_workers should be a non-negative integer, got {num_workers}")
        _expect(timeout >= 0, f"DataLoader: timeout should be a non-negative value, got "
                              f"{timeout}")
        _expect(isinstance(reader_buffer_size, int) and reader_buffer_size > 0,
                f"DataLoader: reader_buffer_size should be a positive integer, got "
                f"{reader_buffer_size}")
        self.reader_buffer_size = reader_buffer_size
        _expect(isinstance(prefetch_factor, int) and prefetch_factor > 0,
                f"DataLoader: prefetch_factor should be a positive integer, got "
                f"{prefetch_factor}")
        self.num_workers = num_workers
        self.timeout = timeout
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = bool(persistent_workers) and num_workers > 0
        self._init_batching(batch_sampler, batch_size, shuffle, drop_last)
        if collate_fn is None:
            collate_fn = default_collate_fn if self._auto_collate else default_convert_fn
        self.collate_fn = collate_fn
        self._feed_names = None
        if feed_list and not return_list:
            self._feed_names = [getattr(v, "name", str(v)) for v in feed_list]
        self._iterator = None

    def _batch_place(self):
        """The device place batches go to (None: host memory), resolved per epoch."""
        place = _place.current_place() if self._place is None else self._place
        return None if place.backend_module is None else place

    def _init_batching(self, batch_sampler: Any, batch_size: Any, shuffle: bool,
                       drop_last: bool) -> None:
        if self._iterable:
            _expect(not shuffle, "DataLoader: IterableDataset does not support shuffle")
            _expect(batch_sampler is None, "DataLoader: IterableDataset does not support "
                                           "batch_sampler")
        if batch_sampler is not None:
            _expect(batch_size == 1 and not shuffle and not drop_last,
                    "DataLoader: batch_size/shuffle/drop_last should not be set when "
                    "batch_sampler is given")
            self.batch_size = None
        elif batch_size is None:
            self.batch_size = None
        else:
            _check_batch_size(batch_size, "DataLoader")
            self.batch_size = int(batch_size)
            if self._iterable:
                batch_sampler = _InfiniteIterableSampler(self.dataset, self.batch_size)
            else:
                batch_sampler = BatchSampler(dataset=self.dataset, batch_size=self.batch_size,
                                             shuffle=shuffle, drop_last=drop_last)
        self.batch_sampler = batch_sampler
        self.drop_last = drop_last
        self._auto_collate = batch_sampler is not None

    @property
    def _collate(self) -> Callable:
        return self.collate_fn

    @property
    def _index_sampler(self) -> Any:
        if self._auto_collate:
            return self.batch_sampler
        if self._iterable:
            return _NoneSampler()
        return SequenceSampler(self.dataset)

    def __len__(self) -> int:
        if self._iterable:
            raise ValueError("DataLoader: length of IterableDataset not supported")
        if self._auto_collate:
            return len(self.batch_sampler)
        return len(self.dataset)

    def __iter__(self) -> Iterator:
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if not self.persistent_workers:
            return MultiProcessIter(self)
        if self._iterator is None or self._iterator._closed:
            self._iterator = MultiProcessIter(self)
        else:
            self._iterator.reset()
        return self._iterator

    def __call__(self) -> Iterator:
        return self.__iter__()

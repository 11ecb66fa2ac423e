"""DataLoader worker processes: `get_worker_info`, the fetchers that turn a batch of
indices into a collated batch, and the worker loop. Imports framework (random) and the
sibling io modules only; a worker holds no framework state besides its seeds.
"""
from __future__ import annotations

import os
import pickle
import random
import sys
import traceback
from typing import Any, Callable

import numpy as np

from ..framework import random as _random
from . import shm
from .collate import to_numpy_tree

_POLL_S = 0.1


class WorkerInfo:
    """What `get_worker_info()` returns inside a worker process.

    Attributes:
        id (int): this worker's index, in `[0, num_workers)`.
        num_workers (int): how many workers the DataLoader started.
        dataset (Dataset): this worker's copy of the dataset.
        seed (int): the seed this worker's random generators were given.
    """

    def __init__(self, id: int, num_workers: int, dataset: Any, seed: int) -> None:
        self.id = id
        self.num_workers = num_workers
        self.dataset = dataset
        self.seed = seed

    def __setattr__(self, key: str, value: Any) -> None:
        if key in self.__dict__:
            raise RuntimeError(f"WorkerInfo: attribute '{key}' is read-only")
        super().__setattr__(key, value)

    def __repr__(self) -> str:
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, "
                f"seed={self.seed})")


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """Inside a DataLoader worker process, the `WorkerInfo` (id, num_workers, dataset,
    seed) of that worker; None in the main process.

    Typical use: an `IterableDataset.__iter__` reads it to yield only its worker's shard.

    Examples:
        >>> from sampan.io import get_worker_info
        >>> print(get_worker_info())
        None
    """
    return _worker_info


class IterableEnd:
    """Sent by a worker whose IterableDataset stream is exhausted."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


class WorkerError:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, worker_id: int, exc: BaseException) -> None:
        self.worker_id = worker_id
        self.pid = os.getpid()
        self.exc_name = type(exc).__name__
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        try:
            pickle.loads(pickle.dumps(type(exc)))
            self.exc_type = type(exc)
        except Exception:  # a class defined in a local scope cannot travel
            self.exc_type = None

    def reraise(self) -> None:
        msg = (f"DataLoader worker {self.worker_id} (pid {self.pid}) raised "
               f"{self.exc_name}. Original traceback in the worker:\n{self.text}")
        exc = None
        if self.exc_type is not None:
            try:
                exc = self.exc_type(msg)
            except Exception:
                exc = None
        if exc is None:
            exc = RuntimeError(msg)
        raise exc


class MapFetcher:
    """Turns a list of indices of a map-style dataset into a collated batch."""

    def __init__(self, dataset: Any, auto_collate: bool, collate_fn: Callable) -> None:
        self.dataset = dataset
        self.auto_collate = auto_collate
        self.collate_fn = collate_fn

    def fetch(self, indices: Any) -> Any:
        if self.auto_collate:
            return self.collate_fn([self.dataset[i] for i in indices])
        return self.collate_fn(self.dataset[indices])


class IterableFetcher:
    """Pulls `len(request)` samples from an IterableDataset stream and collates them.

    Raises StopIteration once the stream is exhausted (and, with `drop_last`, when what is
    left does not fill a batch).
    """

    def __init__(self, dataset: Any, auto_collate: bool, collate_fn: Callable,
                 drop_last: bool) -> None:
        self.dataset = dataset
        self.auto_collate = auto_collate
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.reset()

    def reset(self) -> None:
        self.stream = iter(self.dataset)
        self.ended = False

    def fetch(self, request: Any) -> Any:
        if self.ended:
            raise StopIteration
        if not self.auto_collate:
            try:
                return self.collate_fn(next(self.stream))
            except StopIteration:
                self.ended = True
                raise
        samples = []
        for _ in range(len(request)):
            try:
                samples.append(next(self.stream))
            except StopIteration:
                self.ended = True
                break
        if not samples or (self.ended and self.drop_last and len(samples) < len(request)):
            self.ended = True
            raise StopIteration
        return self.collate_fn(samples)


def seed_worker(seed: int) -> None:
    """Seed every generator a dataset transform may use, in this process only."""
    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    _random.default_generator.manual_seed(seed)


class WorkerConfig:
    """Everything a worker needs, set once by the main process (picklable for spawn)."""

    def __init__(self, dataset: Any, iterable: bool, auto_collate: bool,
                 collate_fn: Callable, drop_last: bool, num_workers: int, base_seed: int,
                 init_fn: Callable | None, use_shm: bool, shm_prefix: str) -> None:
        self.dataset = dataset
        self.iterable = iterable
        self.auto_collate = auto_collate
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.num_workers = num_workers
        self.base_seed = base_seed
        self.init_fn = init_fn
        self.use_shm = use_shm
        self.shm_prefix = shm_prefix


def _make_fetcher(cfg: WorkerConfig):
    if cfg.iterable:
        return IterableFetcher(cfg.dataset, cfg.auto_collate, cfg.collate_fn, cfg.drop_last)
    return MapFetcher(cfg.dataset, cfg.auto_collate, cfg.collate_fn)


def _run_task(fetcher, cfg: WorkerConfig, worker_id: int, indices: Any, name: str) -> Any:
    try:
        data = to_numpy_tree(fetcher.fetch(indices))
        return shm.pack(data, name) if cfg.use_shm else data
    except StopIteration:
        return IterableEnd(worker_id)
    except Exception as exc:  # any user error travels to the main process
        return WorkerError(worker_id, exc)


def _send(conn, message: tuple, worker_id: int) -> bool:
    """Send one pickled result; False when the main process has stopped listening."""
    try:
        payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # e.g. an unpicklable batch from a custom collate_fn
        shm.release(message[2])
        payload = pickle.dumps(message[:2] + (WorkerError(worker_id, exc),))
    try:
        conn.send_bytes(payload)
        return True
    except (BrokenPipeError, OSError):
        shm.release(message[2])
        return False


def worker_loop(cfg: WorkerConfig, worker_id: int, task_conn, result_conn,
                parent_pid: int, inherited: list) -> None:
    """Body of a worker process: receive `(epoch, idx, indices)` tasks, answer
    `(epoch, idx, batch | WorkerError | IterableEnd)`; stop on None, on a closed pipe, or
    when the main process is gone."""
    global _worker_info
    for conn in inherited:  # other workers' pipe ends copied by fork
        conn.close()
    seed = cfg.base_seed + worker_id
    _worker_info = WorkerInfo(id=worker_id, num_workers=cfg.num_workers,
                              dataset=cfg.dataset, seed=seed)
    seed_worker(seed)
    init_error, fetcher = None, None
    try:
        if cfg.init_fn is not None:
            cfg.init_fn(worker_id)
        fetcher = _make_fetcher(cfg)
    except Exception as exc:
        init_error = WorkerError(worker_id, exc)
    epoch, count = None, 0
    while True:
        try:
            if not task_conn.poll(_POLL_S):
                if os.getppid() != parent_pid:
                    break
                continue
            task = task_conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            break
        if task is None:
            break
        task_epoch, idx, indices = task
        if init_error is not None:
            result = init_error
        else:
            if cfg.iterable and epoch is not None and task_epoch != epoch:
                fetcher.reset()
            epoch = task_epoch
            count += 1
            name = f"{cfg.shm_prefix}{worker_id}_{count}"
            result = _run_task(fetcher, cfg, worker_id, indices, name)
        if not _send(result_conn, (task_epoch, idx, result), worker_id):
            break
    sys.stdout.flush()

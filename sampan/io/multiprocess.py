"""The multi-process DataLoader iterator: starts workers, hands out index batches, returns
batches in sampler order, and never hangs or leaks. Imports the sibling io modules only.

Each worker has two private pipes (tasks in, results out), so a worker killed mid-write
cannot corrupt another's channel, and a dead worker shows up at once as its process
sentinel or an EOF on its result pipe. The main process waits on all of them with
`multiprocessing.connection.wait` in short slices, checking liveness and the user's
`timeout` between slices.
"""
from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import pickle
import signal
import time
from multiprocessing import connection, resource_tracker
from typing import Any

from ..framework import random as _random
from ..framework import trace as _trace
from . import shm
from .collate import to_tensor_tree
from .worker import IterableEnd, WorkerConfig, WorkerError, worker_loop

_POLL_S = 0.1
_GRACE_S = 1.0
_tokens = itertools.count()
_DONE = object()


def _context():
    if "fork" in mp.get_all_start_methods():
        return mp.get_context("fork")
    return mp.get_context()


def _death_cause(exitcode: int | None) -> str:
    if exitcode is None:
        return "stopped responding"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "unknown signal"
        return f"was killed by signal {-exitcode} ({name})"
    return f"exited with exit code {exitcode}"


class _Worker:
    """One worker process and the main-process ends of its pipes."""

    def __init__(self, process, task_conn, result_conn) -> None:
        self.process = process
        self.task_conn = task_conn
        self.result_conn = result_conn


class MultiProcessIter:
    """Iterator over a DataLoader with `num_workers > 0`.

    Tasks are numbered in sampler order; results may arrive in any order and wait in a
    reorder buffer. With persistent workers `reset()` starts a new epoch on the same
    processes; results tagged with an older epoch are discarded.
    """

    def __init__(self, loader) -> None:
        self._iterable = loader._iterable
        self._batch_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch = loader.prefetch_factor * loader.num_workers
        self._timeout = float(loader.timeout)
        self._dataset = loader.dataset
        self._persistent = loader.persistent_workers
        self._return_dict_names = loader._feed_names
        self._place = loader._batch_place()
        self._workers: list = []
        self._closed = False
        self._epoch = 0
        token = next(_tokens)
        self._shm_prefix = shm.segment_prefix(os.getpid(), token)
        cfg = WorkerConfig(loader.dataset, loader._iterable, loader._auto_collate,
                           loader._collate, loader.drop_last, loader.num_workers,
                           _random.next_seed() % (2 ** 62), loader.worker_init_fn,
                           bool(loader.use_shared_memory), self._shm_prefix)
        try:
            self._start_workers(cfg)
        except BaseException:
            self.shutdown()
            raise
        self.reset()

    def _start_workers(self, cfg: WorkerConfig) -> None:
        ctx = _context()
        fork = ctx.get_start_method() == "fork"
        if cfg.use_shm:
            # Workers must share the main process's tracker: one of their own would
            # unlink segments in flight when the worker exits.
            resource_tracker.ensure_running()
        for wid in range(self._num_workers):
            task_r, task_w = ctx.Pipe(duplex=False)
            result_r, result_w = ctx.Pipe(duplex=False)
            inherited = [c for w in self._workers for c in (w.task_conn, w.result_conn)]
            proc = ctx.Process(target=worker_loop, name=f"DataLoaderWorker-{wid}",
                               args=(cfg, wid, task_r, result_w, os.getpid(),
                                     inherited if fork else []),
                               daemon=True)
            proc.start()
            task_r.close()
            result_w.close()
            self._workers.append(_Worker(proc, task_w, result_r))

    # --- epochs and task bookkeeping --------------------------------------------------
    def reset(self) -> None:
        """Start a new epoch: a fresh sampler pass, an empty reorder buffer, prefetch."""
        self._epoch += 1
        for data in getattr(self, "_ready", {}).values():  # left by an epoch cut short
            shm.release(data)
        self._sampler_iter = iter(self._batch_sampler)
        self._send_idx = 0
        self._rcvd_idx = 0
        self._owner: dict = {}      # task idx -> worker id, while outstanding
        self._ready: dict = {}      # task idx -> received batch
        self._active = [True] * self._num_workers
        self._next_worker = itertools.cycle(range(self._num_workers))
        for _ in range(self._prefetch):
            self._put_task()

    def _put_task(self) -> None:
        if not any(self._active):
            return
        indices = next(self._sampler_iter, _DONE)
        if indices is _DONE:
            return
        wid = next(self._next_worker)
        while not self._active[wid]:
            wid = next(self._next_worker)
        try:
            self._workers[wid].task_conn.send((self._epoch, self._send_idx, indices))
        except (BrokenPipeError, OSError):
            self._raise_dead(wid)
        self._owner[self._send_idx] = wid
        self._send_idx += 1

    # --- receiving ---------------------------------------------------------------------
    def __iter__(self):
        return self

    def __next__(self) -> Any:
        if self._closed:
            raise StopIteration
        timer = _trace.READER[0]   # a started Profiler's step timer (reader_cost)
        try:
            if timer is not None:
                timer.before_reader(self._dataset)
            batch = self._next_batch()
            if timer is not None:
                timer.after_reader()
            return batch
        except StopIteration:
            if not self._persistent:
                self.shutdown()
            raise
        except BaseException:
            self.shutdown()
            raise

    def _next_batch(self) -> Any:
        waited = 0.0
        while True:
            self._skip_ended()
            if self._rcvd_idx in self._ready:
                data = self._ready.pop(self._rcvd_idx)
                self._rcvd_idx += 1
                self._put_task()
                return self._deliver(data)
            if self._rcvd_idx >= self._send_idx:
                raise StopIteration
            start = time.monotonic()
            self._poll(_POLL_S if self._timeout <= 0 else
                       min(_POLL_S, max(self._timeout - waited, 0.0)))
            waited += time.monotonic() - start
            if self._timeout > 0 and waited >= self._timeout and \
                    self._rcvd_idx not in self._ready:
                raise RuntimeError(f"DataLoader timed out: no batch arrived from the "
                                   f"{self._num_workers} worker(s) within timeout="
                                   f"{self._timeout:g} seconds")

    def _skip_ended(self) -> None:
        """Drop tasks that went to a worker whose IterableDataset stream has ended."""
        while self._rcvd_idx < self._send_idx and self._rcvd_idx not in self._ready:
            wid = self._owner.get(self._rcvd_idx)
            if wid is not None and self._active[wid]:
                return
            self._owner.pop(self._rcvd_idx, None)
            self._rcvd_idx += 1
            self._put_task()

    def _poll(self, timeout: float) -> None:
        conns = {w.result_conn: wid for wid, w in enumerate(self._workers)}
        sentinels = {w.process.sentinel: wid for wid, w in enumerate(self._workers)}
        ready = connection.wait(list(conns) + list(sentinels), timeout)
        for obj in ready:
            if obj in conns:
                self._receive(conns[obj])
        for obj in ready:
            if obj in sentinels:
                self._raise_dead(sentinels[obj])

    def _receive(self, wid: int) -> None:
        try:
            payload = self._workers[wid].result_conn.recv_bytes()
        except (EOFError, OSError):
            self._raise_dead(wid)
        epoch, idx, result = pickle.loads(payload)
        if epoch != self._epoch or idx not in self._owner:
            shm.release(result)
            return
        if isinstance(result, WorkerError):
            self.shutdown()
            result.reraise()
        if isinstance(result, IterableEnd):
            self._active[result.worker_id] = False
            del self._owner[idx]
            return
        del self._owner[idx]
        self._ready[idx] = result

    def _raise_dead(self, wid: int) -> None:
        proc = self._workers[wid].process
        proc.join(timeout=_POLL_S)
        cause = _death_cause(proc.exitcode)
        pid = proc.pid
        self.shutdown()
        raise RuntimeError(f"DataLoader worker {wid} (pid {pid}) {cause} while loading data; "
                           f"no batch can be returned from it. Check the dataset's "
                           f"__getitem__/__iter__ and the machine's memory (a worker killed "
                           f"by signal 9 is often out of memory).")

    def _deliver(self, data: Any) -> Any:
        batch = to_tensor_tree(shm.unpack(data), self._place)
        if self._return_dict_names and isinstance(batch, list):
            return dict(zip(self._return_dict_names, batch))
        return batch

    # --- teardown ----------------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop every worker, close the pipes and unlink undelivered shared memory.
        Idempotent; safe to call from `__del__`."""
        if self._closed:
            return
        self._closed = True
        for w in self._workers:
            try:
                w.task_conn.send(None)
            except (BrokenPipeError, OSError, ValueError):
                pass
        for w in self._workers:
            # Closing our end makes a worker blocked on sending a batch fail at once.
            w.result_conn.close()
        deadline = time.monotonic() + _GRACE_S
        for w in self._workers:
            w.process.join(timeout=max(deadline - time.monotonic(), 0.0))
        for w in self._workers:
            w.task_conn.close()
            if w.process.is_alive():
                w.process.terminate()
                w.process.join(timeout=_GRACE_S)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
        for data in getattr(self, "_ready", {}).values():
            shm.release(data)
        self._ready = {}
        shm.sweep(self._shm_prefix)

    def __del__(self) -> None:
        try:
            self.shutdown()
        except Exception:  # interpreter teardown: modules may already be gone
            pass

"""Dynamic batching for sampan.serving: concurrent requests (each a feed of one or more rows)
are merged into one model run of at most `max_batch_size` rows, run when full or when the
oldest waiting request has waited `timeout_s`; each request gets exactly its own rows back.
Runs go to `workers` threads (one Predictor clone each).

Requests whose non-batch dims or dtypes differ are never merged (they wait for their own
batch). Imports `serving.errors` only.
"""
from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .errors import RequestError

__all__ = ["Batcher"]


class _Item:
    __slots__ = ("feed", "rows", "key", "future", "t0")

    def __init__(self, feed: dict, rows: int, future: asyncio.Future) -> None:
        self.feed = feed
        self.rows = rows
        self.key = tuple((n, a.shape[1:], a.dtype.str) for n, a in sorted(feed.items()))
        self.future = future
        self.t0 = time.monotonic()


class Batcher:
    """Merges concurrent feeds into batched `model.run` calls (see the module docstring).

    Args:
        model (ServedModel): what runs the batches.
        max_batch_size (int): most rows per run.
        timeout_s (float): longest wait of the oldest request before its batch runs.
        workers (int): batches run at once (threads).
        on_batch (callable): called with the row count of every executed batch.
    """

    def __init__(self, model, max_batch_size: int, timeout_s: float, workers: int,
                 on_batch=None) -> None:
        self.model = model
        self.max_rows = max_batch_size if model.batchable else 1
        self.timeout_s = timeout_s
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="sampan-serving")
        self._free = asyncio.Semaphore(workers)
        self._pending: list = []
        self._wake = asyncio.Event()
        self._on_batch = on_batch or (lambda n: None)
        self._task = asyncio.get_running_loop().create_task(self._schedule())
        self._running: set = set()

    async def submit(self, feed: dict, rows: int) -> dict:
        """The model's outputs for `feed` alone ({name: array with `rows` rows})."""
        if rows > self.max_rows and self.model.batchable:
            raise RequestError(400, "batch_too_large", f"the request has {rows} rows; the "
                               f"server runs at most --max-batch-size {self.max_rows} rows "
                               f"per batch; split the request")
        future = asyncio.get_running_loop().create_future()
        self._pending.append(_Item(feed, rows, future))
        self._wake.set()
        return await future

    async def _schedule(self) -> None:
        while True:
            while not self._pending:
                self._wake.clear()
                await self._wake.wait()
            await self._wait_full_or_due()
            await self._free.acquire()
            batch = self._take()
            task = asyncio.get_running_loop().create_task(self._execute(batch))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _wait_full_or_due(self) -> None:
        while True:
            oldest = self._pending[0]
            rows = sum(i.rows for i in self._pending if i.key == oldest.key)
            left = oldest.t0 + self.timeout_s - time.monotonic()
            if rows >= self.max_rows or left <= 0:
                return
            self._wake.clear()
            # a timer that sets the event: cheaper than asyncio.wait_for's task per wait
            timer = asyncio.get_running_loop().call_later(left, self._wake.set)
            await self._wake.wait()
            timer.cancel()

    def _take(self) -> list:
        key, rows, batch, rest = self._pending[0].key, 0, [], []
        for item in self._pending:
            if item.key == key and rows + item.rows <= self.max_rows or not batch:
                batch.append(item)
                rows += item.rows
            else:
                rest.append(item)
        self._pending = rest
        return batch

    async def _execute(self, batch: list) -> None:
        loop = asyncio.get_running_loop()
        try:
            try:
                outs = await loop.run_in_executor(self._pool, self._run, batch)
            except Exception:
                if len(batch) == 1:
                    raise
                # one bad request must not fail its neighbours: run each alone
                for item in batch:
                    await self._execute_one(loop, item)
                return
            for item, out in zip(batch, outs):
                if not item.future.done():
                    item.future.set_result(out)
        except Exception as e:
            err = RequestError(500, "model_run_failed", f"the model failed on this request: "
                               f"{type(e).__name__}: {e}")
            for item in batch:
                if not item.future.done():
                    item.future.set_exception(err)
        finally:
            self._free.release()

    async def _execute_one(self, loop, item: _Item) -> None:
        try:
            out, = await loop.run_in_executor(self._pool, self._run, [item])
            if not item.future.done():
                item.future.set_result(out)
        except Exception as e:
            if not item.future.done():
                item.future.set_exception(RequestError(
                    500, "model_run_failed", f"the model failed on this request: "
                    f"{type(e).__name__}: {e}"))

    def _run(self, batch: list) -> list:
        """In a worker thread: one model run for the batch, split back per request."""
        self._on_batch(sum(i.rows for i in batch))
        if len(batch) == 1:
            return [self.model.run(batch[0].feed)]
        feed = {n: np.concatenate([i.feed[n] for i in batch]) for n in batch[0].feed}
        outs = self.model.run(feed)
        bounds = np.cumsum([i.rows for i in batch])[:-1]
        split = {n: np.split(a, bounds) for n, a in outs.items()}
        return [{n: parts[k] for n, parts in split.items()} for k in range(len(batch))]

    async def close(self) -> None:
        """Finish running batches, then stop (pending requests are answered first)."""
        while self._pending or self._running:
            await asyncio.sleep(0.01)
        self._task.cancel()
        self._pool.shutdown(wait=True)

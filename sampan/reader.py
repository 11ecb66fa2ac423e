"""`paddle.reader`: decorators over *readers* (zero-argument callables returning an iterable of
samples), the data pipeline of Paddle 1.x/2.x programs: cache, map, shuffle, chain, compose,
buffer, take the first n, map on threads, read on processes.

Standard library only; imports nothing from sampan.
"""
from __future__ import annotations

import itertools
import multiprocessing
import queue
import random
import threading
from typing import Callable

__all__ = []

_END = object()


class ComposeNotAligned(ValueError):
    """`compose` met readers of different lengths with check_alignment=True."""


def cache(reader: Callable) -> Callable:
    """Read `reader` once into memory; the returned reader replays those samples."""
    data = list(reader())
    return lambda: iter(data)


def map_readers(func: Callable, *readers: Callable) -> Callable:
    """A reader yielding `func(*samples)` over the readers read side by side."""
    def mapped():
        for items in zip(*(r() for r in readers)):
            yield func(*items)
    return mapped


def shuffle(reader: Callable, buf_size: int) -> Callable:
    """Shuffle within consecutive buffers of `buf_size` samples (0 or 1: keep the order)."""
    if not isinstance(buf_size, int) or buf_size < 0:
        raise ValueError(f"shuffle: buf_size must be a non-negative int, got {buf_size!r}")

    def shuffled():
        buf = []
        for sample in reader():
            buf.append(sample)
            if len(buf) >= buf_size:
                random.shuffle(buf)
                yield from buf
                buf = []
        random.shuffle(buf)
        yield from buf
    return shuffled


def chain(*readers: Callable) -> Callable:
    """The readers' samples one reader after another."""
    return lambda: itertools.chain.from_iterable(r() for r in readers)


def compose(*readers: Callable, check_alignment: bool = True) -> Callable:
    """Samples of the readers side by side, flattened into one tuple per step.

    Args:
        *readers (callable): readers whose samples are items or tuples of items.
        check_alignment (bool): raise ComposeNotAligned when the readers' lengths differ
            (default True); else stop at the shortest.

    Returns:
        callable: the composed reader.

    Examples:
        >>> import sampan as paddle
        >>> pairs = lambda: iter([(1, 2), (3, 4)])
        >>> labels = lambda: iter([0, 1])
        >>> list(paddle.reader.compose(pairs, labels)())
        [(1, 2, 0), (3, 4, 1)]
    """
    def as_tuple(x):
        return x if isinstance(x, tuple) else (x,)

    def composed():
        iters = [r() for r in readers]
        if not check_alignment:
            for items in zip(*iters):
                yield sum((as_tuple(x) for x in items), ())
            return
        for items in itertools.zip_longest(*iters, fillvalue=_END):
            if any(x is _END for x in items):
                raise ComposeNotAligned("compose: the readers yield different numbers of "
                                        "samples")
            yield sum((as_tuple(x) for x in items), ())
    return composed


def buffered(reader: Callable, size: int) -> Callable:
    """Read ahead on a background thread into a buffer of at most `size` samples."""
    def read_ahead():
        q: queue.Queue = queue.Queue(maxsize=max(int(size), 1))

        def fill():
            for sample in reader():
                q.put(sample)
            q.put(_END)
        threading.Thread(target=fill, daemon=True).start()
        while (sample := q.get()) is not _END:
            yield sample
    return read_ahead


def firstn(reader: Callable, n: int) -> Callable:
    """The first `n` samples of `reader`."""
    return lambda: itertools.islice(reader(), n)


def xmap_readers(mapper: Callable, reader: Callable, process_num: int, buffer_size: int,
                 order: bool = False) -> Callable:
    """Map samples with `process_num` threads; `order=True` keeps the input order.

    Examples:
        >>> import sampan as paddle
        >>> squares = paddle.reader.xmap_readers(lambda x: x * x, lambda: iter(range(5)),
        ...                                      process_num=2, buffer_size=4, order=True)
        >>> list(squares())
        [0, 1, 4, 9, 16]
    """
    def xmapped():
        inq: queue.Queue = queue.Queue(buffer_size)
        outq: queue.Queue = queue.Queue(buffer_size)

        def feed():
            for i, sample in enumerate(reader()):
                inq.put((i, sample))
            for _ in range(process_num):
                inq.put(_END)

        def work():
            while (item := inq.get()) is not _END:
                outq.put((item[0], mapper(item[1])))
            outq.put(_END)
        threading.Thread(target=feed, daemon=True).start()
        for _ in range(process_num):
            threading.Thread(target=work, daemon=True).start()
        yield from _drain(outq, process_num, order)
    return xmapped


def _drain(outq: queue.Queue, producers: int, order: bool):
    """Yield mapped values until every producer has ended, in input order if asked."""
    pending, want, ended = {}, 0, 0
    while ended < producers:
        item = outq.get()
        if item is _END:
            ended += 1
            continue
        if not order:
            yield item[1]
            continue
        pending[item[0]] = item[1]
        while want in pending:
            yield pending.pop(want)
            want += 1


def _read_into(reader: Callable, q) -> None:
    for sample in reader():
        q.put(sample)
    q.put(None)


def multiprocess_reader(readers, use_pipe: bool = True, queue_size: int = 1000) -> Callable:
    """Run each reader in its own process and yield their samples as they arrive.

    Samples travel through one queue (`use_pipe` is accepted for compatibility); None marks
    a reader's end, so readers must not yield None.
    """
    def merged():
        ctx = multiprocessing.get_context("fork" if "fork" in
                                          multiprocessing.get_all_start_methods() else None)
        q = ctx.Queue(queue_size)
        procs = [ctx.Process(target=_read_into, args=(r, q), daemon=True) for r in readers]
        for p in procs:
            p.start()
        ended = 0
        while ended < len(procs):
            sample = q.get()
            if sample is None:
                ended += 1
            else:
                yield sample
        for p in procs:
            p.join()
    return merged

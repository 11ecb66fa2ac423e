"""Kernel-level threads: a small worker pool plus a BLAS thread-count guard.

Convolutions of small images are many small GEMMs; OpenBLAS spreads each of them over its
threads without any wall-time gain. Running independent parts of such a kernel (batch
chunks) on Python threads instead -- NumPy releases the GIL in matmul and in copies -- with
BLAS pinned to one thread while they run does use the second core.

- `num_workers()`: the worker count, min(os.cpu_count(), BLAS threads at import); the
  environment variable SAMPAN_NUM_THREADS overrides it; 1 disables the pool. Without a BLAS
  thread control found (not an OpenBLAS build of NumPy) the default is 1, because workers
  running next to a multi-threaded BLAS would oversubscribe the cores.
- `blas_threads(n)`: context pinning OpenBLAS to n threads and restoring the previous count
  on exit. The count is process-wide: overlapping guards (nested, or on several Python
  threads) leave the latest active one in force, and the last exit restores the count from
  before the first, so the user's setting is never left changed.
- `run_parts(fn, items)`: [fn(item) for item in items], spread over the workers (the
  calling thread takes part) with BLAS pinned to one thread. Items are handed out in order
  as workers free up; results come back in item order. Calls made from inside a part run
  serially, so kernels may nest freely.

The OpenBLAS handles come from the loaded library (/proc/self/maps on Linux, else the
libraries shipped in NumPy's wheel, else threadpoolctl if it happens to be installed).
"""
from __future__ import annotations

import ctypes
import os
import threading
from contextlib import contextmanager

_SYMBOLS = ("scipy_openblas_{}_num_threads64_", "scipy_openblas_{}_num_threads",
            "openblas_{}_num_threads64_", "openblas_{}_num_threads")


def _candidate_paths():
    """Paths that may hold NumPy's OpenBLAS, cheapest source first (lazy: importing glob or
    threadpoolctl costs import time, so they are only tried when the loaded maps had none)."""
    paths = []
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                if "openblas" not in line.lower():
                    continue
                path = line.split()[-1]
                if "openblas" in os.path.basename(path).lower() and path not in paths:
                    paths.append(path)
    except OSError:
        pass
    yield from paths
    import glob

    import numpy
    paths = []
    root = os.path.dirname(os.path.dirname(numpy.__file__))
    for pattern in ("numpy.libs/*openblas*", "numpy/.dylibs/*openblas*"):
        paths += sorted(glob.glob(os.path.join(root, pattern)))
    yield from paths
    try:
        import threadpoolctl
        ctl = threadpoolctl.ThreadpoolController().select(internal_api="openblas")
        paths = [c.filepath for c in ctl.lib_controllers]
    except Exception:  # noqa: BLE001 - optional helper, any failure means "not there"
        paths = []
    yield from paths


def _find_blas():
    """(get, set) ctypes functions of NumPy's OpenBLAS, or None."""
    for path in _candidate_paths():
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for sym in _SYMBOLS:
            get = getattr(lib, sym.format("get"), None)
            put = getattr(lib, sym.format("set"), None)
            if get is not None and put is not None:
                get.restype, get.argtypes = ctypes.c_int, []
                put.restype, put.argtypes = None, [ctypes.c_int]
                return get, put
    return None


_BLAS = _find_blas()


def _default_workers() -> int:
    env = os.environ.get("SAMPAN_NUM_THREADS", "")
    if env.strip().isdigit() and int(env) > 0:
        return int(env)
    if _BLAS is None:
        return 1
    return max(1, min(os.cpu_count() or 1, _BLAS[0]()))


_workers = _default_workers()
_pool = None
_pool_lock = threading.Lock()
_local = threading.local()
_pin_lock = threading.Lock()
_pin_active = []  # the [n] tokens of the blas_threads guards now entered
_pin_prev = None


def num_workers() -> int:
    """How many threads (the caller included) run_parts uses."""
    return _workers


def set_num_workers(n: int) -> int:
    """Set the worker count (1 disables the pool); returns the previous count."""
    global _workers, _pool
    if not isinstance(n, int) or n < 1:
        raise ValueError(f"set_num_workers: n must be a positive int, got {n!r}")
    prev, _workers = _workers, n
    with _pool_lock:
        if _pool is not None and _pool._max_workers < n - 1:
            _pool.shutdown(wait=False)
            _pool = None
    return prev


def blas_num_threads():
    """OpenBLAS's current thread count, or None when it cannot be controlled."""
    return None if _BLAS is None else _BLAS[0]()


@contextmanager
def blas_threads(n: int):
    """Pin OpenBLAS to n threads inside the block (a no-op without OpenBLAS control). Guards
    may overlap across Python threads: the latest entered guard still active sets the count,
    and when the last one exits the count from before the first is restored."""
    global _pin_prev
    if _BLAS is None:
        yield
        return
    token = [n]  # identity marks this entry in the active list
    with _pin_lock:
        if not _pin_active:
            _pin_prev = _BLAS[0]()
        _pin_active.append(token)
        if _BLAS[0]() != n:
            _BLAS[1](n)
    try:
        yield
    finally:
        with _pin_lock:
            del _pin_active[next(i for i, t in enumerate(_pin_active) if t is token)]
            want = _pin_active[-1][0] if _pin_active else _pin_prev
            if _BLAS[0]() != want:
                _BLAS[1](want)


def _get_pool(size: int):
    """The shared ThreadPoolExecutor (concurrent.futures is imported on first use: it pulls
    in logging, which `import sampan` should not pay for)."""
    global _pool
    from concurrent.futures import ThreadPoolExecutor
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="sampan-kernel")
        return _pool


def in_parallel_part() -> bool:
    """True on a thread currently running a part of run_parts."""
    return getattr(_local, "busy", False)


def run_parts(fn, items, parallel: bool = True) -> list:
    """[fn(item) for item in items], spread over num_workers() threads (see module doc);
    `parallel=False` runs them in order on the calling thread."""
    items = list(items)
    workers = min(_workers, len(items))
    if workers < 2 or not parallel or in_parallel_part():
        return [fn(item) for item in items]
    results = [None] * len(items)
    order = iter(range(len(items)))
    lock = threading.Lock()

    def drain():
        _local.busy = True
        try:
            while True:
                with lock:
                    i = next(order, None)
                if i is None:
                    return
                results[i] = fn(items[i])
        finally:
            _local.busy = False

    from concurrent.futures import wait
    pool = _get_pool(max(_workers - 1, 1))
    with blas_threads(1):
        futures = [pool.submit(drain) for _ in range(workers - 1)]
        try:
            drain()
        finally:
            wait(futures)  # never leave the BLAS guard while a worker still runs
    for f in futures:
        f.result()  # re-raise a worker's exception
    return results

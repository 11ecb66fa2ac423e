"""Kernel-level threads: the thread cap, a small worker pool, BLAS thread pins, and the one
thread policy of sampan's CPU kernels (docs/performance.md; measurements: bench/threads.py).

Convolutions of small images are many small GEMMs; OpenBLAS spreads each of them over its
threads without any wall-time gain. Running independent parts of such a kernel (batch
chunks) on Python threads instead -- NumPy releases the GIL in matmul and in copies -- with
BLAS pinned to one thread while they run does use the second core.

- The cap: `set_num_threads(n)` (`paddle.base.core.set_num_threads`) / `get_num_threads()`;
  at import SAMPAN_NUM_THREADS, else `default_num_threads()` = min(CPUs of the affinity,
  OpenBLAS's count at import). It sets OpenBLAS's count and the pool's worker count.
  Without a BLAS thread control found (not an OpenBLAS build of NumPy) the default is 1,
  because workers running next to a multi-threaded BLAS would oversubscribe the cores.
- `matmul(a, b, out)`: np.matmul for the NumPy backend's `xp.matmul`, with the policy:
  GEMMs under SERIAL_GEMM_FLOPS that OpenBLAS would split run on one thread, and while the
  contention guard (`poll`) sees other processes on our CPUs every GEMM runs on the cores
  they leave free. `set_policy(False)` turns both off (benchmarks).
- `blas_threads(n)`: context pinning OpenBLAS to n threads and restoring the previous count
  on exit. The count is process-wide: overlapping pins (nested, or on several Python
  threads) leave the latest active one in force, and the last exit restores the count from
  before the first, so the user's setting is never left changed.
- `run_parts(fn, items)`: [fn(item) for item in items], spread over the workers (the
  calling thread takes part; fewer while contended) with BLAS pinned to one thread. Items
  are handed out in order as workers free up; results come back in item order. Calls made
  from inside a part run serially, so kernels may nest freely.

The OpenBLAS handles come from the loaded library (/proc/self/maps on Linux, else the
libraries shipped in NumPy's wheel, else threadpoolctl if it happens to be installed).
"""
from __future__ import annotations

import ctypes
import os
import threading
import time
from contextlib import contextmanager

import numpy as np

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


def _env_threads():
    """SAMPAN_NUM_THREADS as a positive int, or None when unset/invalid."""
    env = os.environ.get("SAMPAN_NUM_THREADS", "").strip()
    return int(env) if env.isdigit() and int(env) > 0 else None


def default_num_threads() -> int:
    """The thread cap without SAMPAN_NUM_THREADS or set_num_threads: min(the CPUs this
    process may run on, OpenBLAS's count when sampan was imported -- which OMP_NUM_THREADS /
    OPENBLAS_NUM_THREADS set); 1 without OpenBLAS control (a pool next to a threaded BLAS
    would oversubscribe)."""
    if _BLAS is None:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, _BLAS_AT_IMPORT))


_BLAS_AT_IMPORT = None if _BLAS is None else _BLAS[0]()
_cap = _env_threads() or default_num_threads()
if _BLAS is not None and _env_threads():
    _BLAS[1](_cap)  # SAMPAN_NUM_THREADS caps BLAS too, not only the kernel pool
_workers = _cap
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


def _pin(n: int):
    """Enter a pin of OpenBLAS to n threads; returns the token that _unpin takes. While pins
    are active the count in force is the last one's, so only the first pin reads OpenBLAS
    (a ctypes call costs ~0.5 us: GEMM-sized pins must stay cheap)."""
    global _pin_prev
    token = [n]  # identity marks this entry in the active list
    with _pin_lock:
        if _pin_active:
            now = _pin_active[-1][0]
        else:
            now = _pin_prev = _BLAS[0]()
        _pin_active.append(token)
        if now != n:
            _BLAS[1](n)
    return token


def _unpin(token) -> None:
    with _pin_lock:
        now = _pin_active[-1][0]
        del _pin_active[next(i for i, t in enumerate(_pin_active) if t is token)]
        want = _pin_active[-1][0] if _pin_active else _pin_prev
        if now != want:
            _BLAS[1](want)


@contextmanager
def blas_threads(n: int):
    """Pin OpenBLAS to n threads inside the block (a no-op without OpenBLAS control). Guards
    may overlap across Python threads: the latest entered guard still active sets the count,
    and when the last one exits the count from before the first is restored."""
    if _BLAS is None:
        yield
        return
    token = _pin(n)
    try:
        yield
    finally:
        _unpin(token)


# --- the thread policy: a cap (paddle.set_num_threads), per-GEMM size, contention ----------
AUTO = True  # False: every GEMM on the cap and no contention guard (benchmarks compare)
GUARD = True  # False: the size choice without the contention guard
# GEMMs under this many FLOPs (2*M*N*K) run on one thread: a second one gains nothing there
# (bench/threads.py gemm, bench/RESULTS.md "#16 round 4")
SERIAL_GEMM_FLOPS = 4e6
_OPENBLAS_SERIAL_MNK = 2 * 65536 * 4  # OpenBLAS keeps GEMMs of M*N*K <= 2**19 on one thread
_POLL_S = 0.25   # the contention window: checked at most this often
_MIN_WINDOW_S = 0.1  # shorter windows (jiffies are 10 ms) decide nothing
_guard = {"next": 0.0, "free": None, "last": None}  # free: cores others leave us, rounded
_auto_blas = _BLAS is not None and _cap > 1  # AUTO with a BLAS to steer and a cap over 1


def get_num_threads() -> int:
    """The thread cap: at most this many threads run one kernel (BLAS and the pool)."""
    return _cap


def set_num_threads(n: int) -> None:
    """Cap BLAS and the kernel pool at n threads (n=1: everything single-threaded)."""
    global _cap
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"set_num_threads: num_threads must be an int, got "
                        f"{type(n).__name__} {n!r}")
    if n < 1:
        raise ValueError(f"set_num_threads: num_threads must be >= 1, got {n}")
    _cap = n
    set_num_workers(n)
    _refresh()


def contended() -> bool:
    """Whether the contention guard holds this process under its cap now."""
    return AUTO and GUARD and _guard["free"] is not None and _guard["free"] < _cap


def _baseline() -> int:
    return min(_cap, _guard["free"]) if contended() else _cap


def _apply_cap() -> None:
    """Put OpenBLAS at the cap (or make the last active guard restore it)."""
    global _pin_prev
    if _BLAS is None:
        return
    with _pin_lock:
        if _pin_active:
            _pin_prev = _cap
        elif _BLAS[0]() != _cap:
            _BLAS[1](_cap)


def _sample():
    """(wall s, this process's CPU s (all its threads), busy and total jiffies of the CPUs
    it may run on, their count), or None where /proc/stat is not there."""
    try:
        cpus = {f"cpu{i}" for i in os.sched_getaffinity(0)}
        busy = total = 0
        with open("/proc/stat") as f:
            for line in f:
                head, _, rest = line.partition(" ")
                if head in cpus:
                    v = [int(x) for x in rest.split()[:8]]  # idle, iowait: v[3], v[4]
                    busy, total = busy + sum(v) - v[3] - v[4], total + sum(v)
        return time.perf_counter(), time.process_time(), busy, total, len(cpus)
    except (OSError, ValueError, AttributeError):
        return None


def _free_cores(prev, now):
    """Cores of our affinity that other processes left free over the window prev..now
    (rounded, at least 1), or None when the window is too short to tell."""
    wall, total = now[0] - prev[0], now[3] - prev[3]
    if wall < _MIN_WINDOW_S or total <= 0:
        return None
    busy = (now[2] - prev[2]) / total * now[4]  # cores busy, ours included (steal too)
    others = busy - (now[1] - prev[1]) / wall
    return max(1, int(now[4] - max(others, 0.0) + 0.5))


def poll() -> None:
    """Refresh the contention guard when its window is over (one clock read otherwise)."""
    g = _guard
    if not (_auto_blas and GUARD) or time.perf_counter() < g["next"] or in_parallel_part():
        return
    now = _sample()
    if now is None:
        g["next"] = float("inf")  # no /proc: the guard stays off
        return
    g["next"] = now[0] + _POLL_S
    prev, g["last"] = g["last"], now
    if prev is not None:
        free = _free_cores(prev, now)
        if free is not None:
            g["free"] = free


def gemm_threads(flops: float) -> int:
    """BLAS threads for one GEMM of `flops` (2*M*N*K): 1 below SERIAL_GEMM_FLOPS or while
    contended, else the cap."""
    if not AUTO:
        return _cap
    return 1 if flops < SERIAL_GEMM_FLOPS else _baseline()


def set_policy(auto: bool, guard: bool = True) -> None:
    """Turn the per-GEMM size choice and the contention guard on (default) or off."""
    global AUTO, GUARD
    AUTO, GUARD = bool(auto), bool(guard)
    _refresh()


def _refresh() -> None:
    global _auto_blas
    _auto_blas = AUTO and _BLAS is not None and _cap > 1
    _apply_cap()


def matmul(a, b, out=None):
    """np.matmul(a, b, out=out) on the BLAS thread count gemm_threads picks for one of its
    GEMMs (the NumPy backend's matmul calls it): OpenBLAS stays at the cap, and a GEMM that
    should run on fewer threads -- under SERIAL_GEMM_FLOPS but big enough for OpenBLAS to
    split it, or any while contended -- is pinned for the call. Vector products (a 1-D
    operand) are left to OpenBLAS."""
    if _auto_blas:
        sa, sb = a.shape, b.shape
        if len(sa) > 1 and len(sb) > 1 and sa[-2] * sa[-1] * sb[-1] > _OPENBLAS_SERIAL_MNK:
            flops = 2.0 * sa[-2] * sa[-1] * sb[-1]
            if flops >= SERIAL_GEMM_FLOPS:
                poll()
            want = gemm_threads(flops)
            if want < _BLAS[0]():
                token = _pin(want)
                try:
                    return np.matmul(a, b) if out is None else np.matmul(a, b, out=out)
                finally:
                    _unpin(token)
    return np.matmul(a, b) if out is None else np.matmul(a, b, out=out)

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
    `parallel=False` runs them in order on the calling thread. While the contention guard
    holds the process under its cap, fewer workers (or only the caller) take part, the
    parts still run as parts (BLAS pinned to one thread, nested calls in place)."""
    items = list(items)
    workers = min(_workers, len(items))
    if workers < 2 or not parallel or in_parallel_part():
        return [fn(item) for item in items]
    poll()
    if contended():
        workers = min(workers, _baseline())
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

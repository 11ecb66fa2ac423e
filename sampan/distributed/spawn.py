"""paddle.distributed.spawn: run `func(*args)` on `nprocs` ranks started through mpiexec
(the launcher's Job), each with Paddle's trainer environment."""
from __future__ import annotations

import os
import pickle
import sys
import tempfile

from .job import Job


class MultiprocessContext:
    """The running ranks of a spawn: `join()` waits for them and raises the first failing
    rank's traceback."""

    def __init__(self, job: Job, payload_path: str) -> None:
        self._job, self._path, self._result = job, payload_path, None

    def join(self, timeout=None) -> bool:
        if self._result is None:
            self._result = self._job.wait()
            os.unlink(self._path)
        ok, report = self._result
        if not ok:
            raise RuntimeError(f"paddle.distributed.spawn: {report}")
        return True


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Start `nprocs` processes running `func(*args)` as data-parallel ranks (they call
    init_parallel_env themselves).

    Args:
        func (callable): a picklable function (module level; the script's __main__ works).
        args (tuple): its arguments.
        nprocs (int): number of ranks; -1 = the number of CPUs.
        join (bool): wait for them (raising on failure). Default True.
        daemon (bool): accepted for Paddle compatibility.
        **options: accepted Paddle options (ips, gpus, ...); ignored here.

    Returns:
        MultiprocessContext.
    """
    if not callable(func):
        raise TypeError(f"spawn: func must be callable, got {type(func).__name__}")
    if nprocs == -1:
        nprocs = os.cpu_count() or 1
    if not isinstance(nprocs, int) or nprocs < 1:
        raise ValueError(f"spawn: nprocs must be a positive int or -1, got {nprocs!r}")
    main_file = None
    if getattr(func, "__module__", None) == "__main__":
        main_file = os.path.abspath(sys.modules["__main__"].__file__)
    try:
        payload = pickle.dumps((func, tuple(args)))
    except Exception as exc:
        raise TypeError(f"spawn: func and args must be picklable ({exc})") from exc
    fd, path = tempfile.mkstemp(prefix="sampan_spawn_", suffix=".pkl")
    with os.fdopen(fd, "wb") as f:
        pickle.dump((main_file, payload), f)
    context = MultiprocessContext(Job(nprocs, ["--spawn", path]), path)
    if join:
        context.join()
    return context

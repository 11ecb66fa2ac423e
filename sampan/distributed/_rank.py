"""Per-rank entry point the launcher and spawn start through mpiexec: run a script
(`--script path args...`) or a pickled function (`--spawn file`), and report the outcome in
the job's status directory (pid, then done or err with the traceback) for the launcher.
"""
from __future__ import annotations

import os
import pickle
import runpy
import signal
import sys
import traceback

from sampan.distributed.status import rank_label, status_path, write_status


def _run_spawned(path: str) -> None:
    with open(path, "rb") as f:
        main_file, payload = pickle.load(f)
    if main_file:   # the function lives in the parent's __main__: load that file as such
        module = runpy.run_path(main_file, run_name="__mp_main__")
        main = type(sys)("__mp_main__")
        main.__dict__.update(module)
        sys.modules["__main__"] = sys.modules["__mp_main__"] = main
    func, args = pickle.loads(payload)
    func(*args)


def _stopped(signum, frame):
    """Stopped from outside (the launcher or MPI's process manager): say so, so that the
    launcher can tell this rank from the one that failed."""
    write_status("stopped", signal.Signals(signum).name)
    os._exit(128 + signum)


def main(argv: list) -> int:
    write_status("pid", str(os.getpid()))
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, _stopped)
    try:
        if argv[:1] == ["--spawn"]:
            _run_spawned(argv[1])
        elif argv[:1] == ["--script"]:
            sys.argv = argv[1:]
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[1])))
            runpy.run_path(argv[1], run_name="__main__")
        else:
            raise SystemExit(f"sampan.distributed._rank: unknown arguments {argv}")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            write_status("err", f"SystemExit({exc.code!r})\n")
            return 1
    except BaseException:
        text = traceback.format_exc()
        rank = rank_label()
        sys.stderr.write(f"[rank {rank}] {text}")
        sys.stderr.flush()
        write_status("err", text)
        return 1
    write_status("done")
    return 0


def _die_with_parent() -> None:
    """Linux: this child is killed when its guard is (MPI's process manager kills guards)."""
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def guard(argv: list) -> int:
    """Run the rank in a forked child and watch it: a child killed by a signal gets an
    `err` status naming the signal before this process exits (and MPI's process manager,
    which watches this process, stops the others), so the launcher names the right rank."""
    child = os.fork()
    if child == 0:
        _die_with_parent()
        code = main(argv)
        sys.stdout.flush()
        sys.stderr.flush()
        if code == 0:
            _finalize_mpi()
        os._exit(code)   # a failed rank never waits in MPI_Finalize for ranks that are stuck
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda signum, frame: os.kill(child, signum))
    _, status = os.waitpid(child, 0)
    code = (128 + os.WTERMSIG(status)) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    reported = any(os.path.exists(status_path(k) or "") for k in ("done", "err", "stopped"))
    if code and not reported:
        _report_silent_death(child, status)
    return code


def _finalize_mpi(limit: float = 30.0) -> None:
    """A rank that succeeded shuts MPI down properly: MPICH's process manager treats a rank
    that exits without MPI_Finalize as a crash and kills the ranks still exiting (signal 9),
    which made successful jobs fail at random. A watchdog bounds the wait."""
    mpi = sys.modules.get("mpi4py.MPI")
    if mpi is None or not mpi.Is_initialized() or mpi.Is_finalized():
        return
    import faulthandler
    faulthandler.dump_traceback_later(limit, exit=True)
    try:
        mpi.Finalize()
    finally:
        faulthandler.cancel_dump_traceback_later()


def _report_silent_death(child: int, status: int) -> None:
    rank = rank_label()
    if os.WIFSIGNALED(status):
        text = (f"rank {rank} (pid {child}) was killed by "
                f"{signal.Signals(os.WTERMSIG(status)).name}\n")
    else:
        text = f"rank {rank} (pid {child}) exited with code {os.WEXITSTATUS(status)}\n"
    watchdog = status_path("watchdog")
    if watchdog and os.path.exists(watchdog):
        with open(watchdog) as f:
            text = f.read()
    write_status("err", text)


if __name__ == "__main__":
    os._exit(guard(sys.argv[1:]))

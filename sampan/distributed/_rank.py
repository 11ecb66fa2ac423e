"""Per-rank entry point the launcher and spawn start through mpiexec: run a script
(`--script path args...`) or a pickled function (`--spawn file`), and report the outcome in
the job's status directory (pid, then done or err with the traceback) for the launcher.
"""
from __future__ import annotations

import os
import pickle
import runpy
import sys
import traceback


def _status(kind: str, text: str = "") -> None:
    folder = os.environ.get("SAMPAN_DIST_STATUS")
    if folder:
        rank = os.environ.get("PADDLE_TRAINER_ID", "0")
        path = os.path.join(folder, f"rank_{rank}.{kind}")
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)


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


def main(argv: list) -> int:
    _status("pid", str(os.getpid()))
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
            _status("err", f"SystemExit({exc.code!r})\n")
            return 1
    except BaseException:
        text = traceback.format_exc()
        rank = os.environ.get("PADDLE_TRAINER_ID", "0")
        sys.stderr.write(f"[rank {rank}] {text}")
        sys.stderr.flush()
        _status("err", text)
        return 1
    _status("done")
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    sys.stderr.flush()
    if code:
        os._exit(code)   # do not wait in MPI_Finalize for ranks that are stuck
    sys.exit(0)

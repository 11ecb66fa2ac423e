"""A job of N ranks started by one mpiexec with Paddle's trainer environment and watched
through per-rank status files (written by `sampan.distributed._rank`); used by the launcher
and by spawn.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

_BASE_PORT = 6170


def rank_env(rank: int, nranks: int, ips: str = "127.0.0.1") -> dict:
    """The variables Paddle's launcher gives rank `rank` of `nranks` on one node."""
    host = ips.split(",")[0] or "127.0.0.1"
    endpoints = [f"{host}:{_BASE_PORT + r}" for r in range(nranks)]
    return {"PADDLE_TRAINER_ID": str(rank), "PADDLE_TRAINERS_NUM": str(nranks),
            "PADDLE_TRAINER_ENDPOINTS": ",".join(endpoints),
            "PADDLE_CURRENT_ENDPOINT": endpoints[rank], "PADDLE_RANK_IN_NODE": str(rank),
            "PADDLE_LOCAL_RANK": str(rank), "PADDLE_GLOBAL_RANK": str(rank),
            "PADDLE_LOCAL_SIZE": str(nranks), "PADDLE_GLOBAL_SIZE": str(nranks),
            "PADDLE_NNODES": "1", "PADDLE_MASTER": endpoints[0],
            "PADDLE_DISTRI_BACKEND": "mpi", "OMP_NUM_THREADS": "1"}


def ps_env(rank: int, server_num: int, trainer_num: int, ips: str = "127.0.0.1") -> dict:
    """The variables Paddle's launcher gives MPI rank `rank` of a parameter-server job on one
    node: ranks 0..server_num-1 are servers (TRAINING_ROLE=PSERVER), the rest trainers."""
    host = ips.split(",")[0] or "127.0.0.1"
    servers = [f"{host}:{_BASE_PORT + i}" for i in range(server_num)]
    trainers = [f"{host}:{_BASE_PORT + 100 + i}" for i in range(trainer_num)]
    env = {"PADDLE_PSERVERS_IP_PORT_LIST": ",".join(servers),
           "PADDLE_TRAINER_ENDPOINTS": ",".join(trainers),
           "PADDLE_TRAINERS_NUM": str(trainer_num), "PADDLE_PSERVER_NUM": str(server_num),
           "POD_IP": host, "PADDLE_NNODES": "1", "PADDLE_DISTRI_BACKEND": "mpi",
           "OMP_NUM_THREADS": "1"}
    if rank < server_num:
        env.update({"TRAINING_ROLE": "PSERVER", "PADDLE_ROLE": "PSERVER",
                    "PADDLE_PORT": servers[rank].split(":")[1],
                    "PADDLE_PSERVER_ID": str(rank), "PADDLE_CURRENT_ENDPOINT": servers[rank]})
    else:
        tid = rank - server_num
        env.update({"TRAINING_ROLE": "TRAINER", "PADDLE_ROLE": "TRAINER",
                    "PADDLE_TRAINER_ID": str(tid), "PADDLE_PORT": trainers[tid].split(":")[1],
                    "PADDLE_CURRENT_ENDPOINT": trainers[tid]})
    return env


def _mpiexec() -> str:
    path = shutil.which("mpiexec") or shutil.which("mpirun")
    if path is None:
        raise RuntimeError("paddle.distributed.launch: mpiexec was not found; "
                           "pip install mpich mpi4py")
    return path


class Job:
    """N ranks of `argv_tail` (arguments after `python -m sampan.distributed._rank`)
    started by one mpiexec and watched through per-rank status files. `envs` (one dict per
    rank; default Paddle's trainer variables) and `labels` (e.g. "server 0", named in
    failure reports) describe parameter-server jobs."""

    def __init__(self, nranks: int, argv_tail: list, ips: str = "127.0.0.1",
                 envs: list | None = None, labels: list | None = None) -> None:
        self.nranks = nranks
        self.labels = labels
        envs = envs or [rank_env(rank, nranks, ips) for rank in range(nranks)]
        self.status_dir = tempfile.mkdtemp(prefix="sampan_dist_")
        # the launcher, not hydra, stops the other ranks, so it can tell which one failed
        cmd = [_mpiexec(), ]
        for rank in range(nranks):
            if rank:
                cmd.append(":")
            cmd += ["-n", "1"]
            for key, value in envs[rank].items():
                cmd += ["-env", key, value]
            cmd += ["-env", "SAMPAN_DIST_STATUS", self.status_dir]
            cmd += ["-env", "SAMPAN_DIST_RANK", str(rank)]
            cmd += [sys.executable, "-m", "sampan.distributed._rank"] + list(argv_tail)
        self.proc = subprocess.Popen(cmd, start_new_session=True)

    def _file(self, rank: int, kind: str) -> str:
        return os.path.join(self.status_dir, f"rank_{rank}.{kind}")

    def _dead_rank(self):
        """A rank whose process is gone without reporting success or an error, or None."""
        for rank in range(self.nranks):
            if self._reported(rank):
                continue
            try:
                with open(self._file(rank, "pid")) as f:
                    pid = int(f.read())
            except (OSError, ValueError):
                continue
            # re-check after the liveness test: a rank may write `done` and exit in between
            if not _alive(pid) and not self._reported(rank):
                return rank
        return None

    def _reported(self, rank: int) -> bool:
        return any(os.path.exists(self._file(rank, kind)) for kind in ("done", "err", "stopped"))

    def _all_done(self) -> bool:
        return all(os.path.exists(self._file(r, "done")) for r in range(self.nranks))

    def _errors(self) -> list:
        return [r for r in range(self.nranks) if os.path.exists(self._file(r, "err"))]

    def wait(self) -> tuple:
        """Watch until every rank finishes or one fails; returns (ok, report text)."""
        failed = None
        while self.proc.poll() is None:
            if self._errors() or self._dead_rank() is not None:
                self._settle()
                failed = self._report()
                self.stop()
                break
            time.sleep(0.05)
        code = self.proc.wait()
        # every rank reported success: a non-zero code is MPICH's process manager killing
        # ranks that were already inside MPI_Finalize (it happens at random under load)
        if failed is None and code != 0 and not self._all_done():
            failed = self._report() or (f"paddle.distributed.launch: mpiexec exited with "
                                        f"code {code}")
        shutil.rmtree(self.status_dir, ignore_errors=True)
        return failed is None, failed or ""

    def _settle(self, limit: float = 5.0) -> None:
        """Give a rank that raised time to finish writing its traceback: when one rank fails,
        MPI may kill the others first, and the launcher must name the one that failed, not
        the one killed because of it (a loaded machine can take seconds)."""
        time.sleep(0.3)
        deadline = time.monotonic() + limit
        while not self._errors() and time.monotonic() < deadline:
            if self.proc.poll() is not None and self._dead_rank() is None:
                return
            time.sleep(0.1)

    def _report(self) -> str:
        """The failing ranks' tracebacks; else the rank that vanished without one."""
        parts = []
        for rank in self._errors():
            with open(self._file(rank, "err")) as f:
                parts.append(f"rank {rank} of {self.nranks}{self._label(rank)} failed:\n"
                             f"{f.read()}")
        dead = None if parts else self._dead_rank()
        if dead is not None:
            parts.append(f"rank {dead} of {self.nranks}{self._label(dead)} died without a Python traceback "
                         f"(os._exit or a crash in native code)")
        return "\n".join(parts)

    def _label(self, rank: int) -> str:
        return f" ({self.labels[rank]})" if self.labels else ""

    def stop(self) -> None:
        """Stop mpiexec and every rank it started."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(timeout=3)
                return
            except subprocess.TimeoutExpired:
                continue


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] not in ("Z", "X")
    except OSError:
        return False

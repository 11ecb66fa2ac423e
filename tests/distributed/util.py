"""Helpers for the multi-process tests: run a worker under the launcher, bounded in time."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))


def need_mpi():
    pytest.importorskip("mpi4py", reason="paddle.distributed needs mpi4py (pip install "
                                         "mpi4py mpich)")
    if shutil.which("mpiexec") is None:
        pytest.skip("mpiexec not found (pip install mpich)")


def launch(worker: str, *args, nproc: int = 2, timeout: float = 90):
    """Run tests/distributed/<worker> on `nproc` ranks; returns (returncode, output)."""
    need_mpi()
    cmd = [sys.executable, "-m", "sampan.distributed.launch", "--nproc_per_node", str(nproc),
           os.path.join(HERE, worker)] + list(args)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr

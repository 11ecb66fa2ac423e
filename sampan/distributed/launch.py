"""`python -m sampan.distributed.launch --nproc_per_node N train.py [args]`: start N ranks on
this machine through MPI's launcher (mpiexec) with the environment Paddle's launcher sets,
and watch them: a rank that raises or dies makes the launcher stop the others and exit
non-zero, naming the rank and showing its traceback. Accepts Paddle's launch arguments.
"""
from __future__ import annotations

import argparse
import sys

from .job import Job


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m sampan.distributed.launch",
                                description="Start data-parallel ranks through mpiexec.")
    p.add_argument("--nproc_per_node", type=int, default=None)
    p.add_argument("--ips", type=str, default="127.0.0.1")
    p.add_argument("--log_dir", type=str, default="log")
    for name in ("--master", "--rank", "--nnodes", "--job_id", "--run_mode", "--devices",
                 "--gpus", "--xpus", "--log_level", "--host", "--servers", "--trainers",
                 "--server_num", "--trainer_num", "--elastic_level", "--elastic_timeout",
                 "--max_restart", "--legacy", "--selected_gpus", "--started_port"):
        p.add_argument(name, type=str, default=None)
    p.add_argument("training_script", type=str)
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _nprocs(args) -> int:
    if args.nproc_per_node is not None:
        n = args.nproc_per_node
    else:
        devices = args.devices or args.gpus or args.selected_gpus
        n = len(devices.split(",")) if devices else 1
    if n < 1:
        raise SystemExit(f"paddle.distributed.launch: --nproc_per_node must be >= 1, got {n}")
    if args.nnodes not in (None, "1") or len(args.ips.split(",")) > 1:
        raise SystemExit("paddle.distributed.launch: only one node (this machine) is supported")
    if args.server_num or args.servers:
        raise SystemExit("paddle.distributed.launch: parameter-server mode is not supported")
    return n


def main(argv=None) -> int:
    """Entry point of `python -m sampan.distributed.launch`; returns the exit status."""
    args = _parser().parse_args(argv)
    n = _nprocs(args)
    job = Job(n, ["--script", args.training_script] + list(args.training_script_args),
              args.ips)
    try:
        ok, report = job.wait()
    except KeyboardInterrupt:
        job.stop()
        raise
    if not ok:
        sys.stderr.write(f"paddle.distributed.launch: job failed\n{report}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

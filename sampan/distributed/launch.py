"""`python -m sampan.distributed.launch --nproc_per_node N train.py [args]`: start N ranks on
this machine through MPI's launcher (mpiexec) with the environment Paddle's launcher sets,
and watch them: a rank that raises or dies makes the launcher stop the others and exit
non-zero, naming the rank and showing its traceback. Accepts Paddle's launch arguments.
Parameter-server jobs: `--server_num S --trainer_num T` (or `--servers`/`--trainers`
endpoint lists): MPI ranks 0..S-1 are servers, the rest trainers, with Paddle's PS variables.
Heterogeneous PS jobs add `--heter_worker_num H` (or `--heter_workers` endpoints) and
`--heter_devices gpu`: H heter workers after the trainers (TRAINING_ROLE=HETER_TRAINER);
such a job may have no server (the trainers then keep their tables in-process).
"""
from __future__ import annotations

import argparse
import sys

from .job import _BASE_PORT, Job, ps_env


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m sampan.distributed.launch", allow_abbrev=False,
                                description="Start data-parallel ranks through mpiexec.")
    p.add_argument("--nproc_per_node", type=int, default=None)
    p.add_argument("--ips", type=str, default="127.0.0.1")
    p.add_argument("--log_dir", type=str, default="log")
    for name in ("--master", "--rank", "--nnodes", "--job_id", "--run_mode", "--devices",
                 "--gpus", "--xpus", "--log_level", "--host", "--servers", "--trainers",
                 "--workers", "--server_num", "--trainer_num", "--worker_num", "--elastic_level", "--elastic_timeout",
                 "--max_restart", "--legacy", "--selected_gpus", "--started_port",
                 "--heter_worker_num", "--heter_workers", "--heter_devices"):
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
    return n


def _count(args, num: str, lists: tuple) -> int:
    """A role's count from `--<role>_num` or an endpoint list (`--servers a:1,b:2`)."""
    value = getattr(args, num)
    if value is None:
        for name in lists:
            if getattr(args, name):
                return len([e for e in getattr(args, name).split(",") if e])
        return 0
    if not value.isdigit():
        raise SystemExit(f"paddle.distributed.launch: --{num} must be an integer, got "
                         f"{value!r}")
    return int(value)


def ps_roles(args):
    """(server_num, trainer_num) of a parameter-server job, or None for a collective one."""
    servers = _count(args, "server_num", ("servers",))
    trainers = _count(args, "trainer_num", ("trainers", "workers")) or \
        _count(args, "worker_num", ())
    if not servers and not trainers:
        return None
    if (servers < 1 and not _heter_count(args)) or trainers < 1:
        raise SystemExit(f"paddle.distributed.launch: a parameter-server job needs at least "
                         f"one server and one trainer, got --server_num {servers} "
                         f"--trainer_num {trainers}")
    if args.nnodes not in (None, "1"):
        raise SystemExit("paddle.distributed.launch: only one node (this machine) is supported")
    return servers, trainers


def _heter_count(args) -> int:
    return _count(args, "heter_worker_num", ("heter_workers",))


def _heter_env(env: dict, rank: int, first: int, count: int, host: str, device: str) -> dict:
    """`env` (a trainer's) with the heter workers' variables; rank >= first: a heter worker."""
    heters = [f"{host}:{_BASE_PORT + 200 + i}" for i in range(count)]
    env = dict(env, PADDLE_ALL_HETER_TRAINER_IP_PORT_LIST=",".join(heters),
               HETER_DEVICE_TYPE=device)
    if rank >= first:
        me = heters[rank - first]
        env.pop("PADDLE_TRAINER_ID", None)
        env.update({"TRAINING_ROLE": "HETER_TRAINER", "PADDLE_ROLE": "HETER_TRAINER",
                    "PADDLE_PORT": me.split(":")[1], "PADDLE_CURRENT_ENDPOINT": me,
                    "STAGE_ID": "2", "STAGE_NUM": "2",
                    "PADDLE_STAGE_TRAINERS_NUM": env["PADDLE_TRAINERS_NUM"]})
    return env


def _job(args) -> Job:
    tail = ["--script", args.training_script] + list(args.training_script_args)
    roles = ps_roles(args)
    if roles is None:
        return Job(_nprocs(args), tail, args.ips)
    servers, trainers = roles
    heters = _heter_count(args)
    n = servers + trainers + heters
    labels = [f"server {r}" if r < servers else f"trainer {r - servers}"
              if r < servers + trainers else f"heter worker {r - servers - trainers}"
              for r in range(n)]
    envs = [ps_env(min(r, servers + trainers - 1), servers, trainers, args.ips)
            for r in range(n)]
    if heters:
        device = (args.heter_devices or "gpu").split(";")[0]
        host = args.ips.split(",")[0] or "127.0.0.1"
        envs = [_heter_env(e, r, servers + trainers, heters, host, device)
                for r, e in enumerate(envs)]
    return Job(n, tail, args.ips, envs=envs, labels=labels)


def main(argv=None) -> int:
    """Entry point of `python -m sampan.distributed.launch`; returns the exit status."""
    args = _parser().parse_args(argv)
    job = _job(args)
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

"""The launcher and spawn: Paddle's arguments and environment, and faults reported within
the timeout naming the rank (worker_faults.py, spawn_funcs.py)."""
import os
import tempfile
import time

import pytest

from sampan.distributed import launch as launch_mod
from sampan.distributed.job import rank_env
from tests.distributed.util import launch, need_mpi


@pytest.mark.parametrize("mode, rank, text", [
    ("raise", 1, "ValueError: rank 1 fails on purpose"),
    ("kill", 1, "was killed by SIGKILL"),
    ("hang", 0, "all_reduce: rank 0 of 2 (group 0) waited 3 s"),
    ("nojoin", 0, "init_parallel_env: rank 0 could not start MPI within 3 s"),
])
def test_a_failing_rank_is_named_and_the_job_stops(mode, rank, text):
    start = time.monotonic()
    code, out = launch("worker_faults.py", mode, timeout=40)
    assert code != 0, out
    assert f"rank {rank} of 2 failed" in out and text in out, out
    assert time.monotonic() - start < 30   # the other rank sleeps 60 s: it was stopped


def test_spawn_runs_model_fit_on_two_ranks_and_reports_a_failure():
    need_mpi()
    import sampan.distributed as dist
    from tests.distributed.spawn_funcs import fail_on_rank_one, fit_two_ranks
    folder = tempfile.mkdtemp()
    dist.spawn(fit_two_ranks, args=(folder,), nprocs=2)
    assert os.path.exists(os.path.join(folder, "final.pdparams"))
    with pytest.raises(RuntimeError, match="rank 1 of 2 failed"):
        dist.spawn(fail_on_rank_one, nprocs=2)


def test_paddle_launch_arguments_are_accepted():
    args = launch_mod._parser().parse_args(
        ["--master", "127.0.0.1:8090", "--nnodes", "1", "--devices", "0,1", "--log_dir",
         "log", "--job_id", "j", "train.py", "--lr", "0.1"])
    assert launch_mod._nprocs(args) == 2
    assert args.training_script == "train.py" and args.training_script_args == ["--lr", "0.1"]
    with pytest.raises(SystemExit, match="only one node"):
        launch_mod._nprocs(launch_mod._parser().parse_args(["--nnodes", "2", "t.py"]))


def test_rank_environment_is_paddles():
    env = rank_env(1, 3)
    assert env["PADDLE_TRAINER_ID"] == "1" and env["PADDLE_TRAINERS_NUM"] == "3"
    assert env["PADDLE_TRAINER_ENDPOINTS"].split(",")[1] == env["PADDLE_CURRENT_ENDPOINT"]

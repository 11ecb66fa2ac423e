"""Parameter-server jobs under the launcher (worker_ps.py): PSClient against LocalPS in sync
and async mode on 2 servers + 2 trainers, a 10^7-id table holding only touched rows, a
dynamic-mode model through fleet against one process, stop_worker shutdown, a killed
server reported."""
import os
import sys
import tempfile

import numpy as np
import pytest

from tests.distributed.util import HERE, ROOT, need_mpi

sys.path.insert(0, HERE)
import worker_ps  # noqa: E402


def launch_ps(*args, servers=2, trainers=2, timeout=150, limit="40"):
    need_mpi()
    import subprocess
    cmd = [sys.executable, "-m", "sampan.distributed.launch", "--server_num", str(servers),
           "--trainer_num", str(trainers), os.path.join(HERE, "worker_ps.py")] + list(args)
    env = dict(os.environ, SAMPAN_DIST_TIMEOUT=limit,
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def _reference(mode, save_to=None):
    """Final state of the same traffic on one LocalPS."""
    ps = worker_ps.LocalPS(sync=mode == "sync", trainer_num=2)
    ps.create_tables(worker_ps.TABLES)
    ps.init_dense("w", np.arange(6, dtype=np.float32).reshape(2, 3), ("sgd", 0.5))
    for step in range(4):
        for t in range(2):
            for table, ids, _ in worker_ps.traffic(t, step, mode):
                ps.pull_sparse(table, ids)
        for t in range(2):
            for table, ids, grads in worker_ps.traffic(t, step, mode):
                ps.push_sparse(table, ids, grads)
            ps.push_dense("w", np.full((2, 3), t + step, np.float32))
        ps.step()
    final = {t.name: ps.pull_sparse(t.name, worker_ps.PROBE) for t in worker_ps.TABLES}
    final["w"] = ps.pull_dense("w")
    if save_to:
        ps.save(save_to)
    return final, ps.table_sizes()


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_pull_push_on_two_servers_matches_local_ps(mode):
    out = os.path.join(tempfile.mkdtemp(), "final.npz")
    code, text = launch_ps("client", mode, out)
    assert code == 0 and text.count("PS-OK") == 2, text
    assert "server 0 left run_server" in text and "server 1 left run_server" in text, text
    got = np.load(out)
    ref, sizes = _reference(mode)
    for name, value in ref.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    # the 10^7-id table holds only the rows that were touched (pulled or pushed)
    names = [t.name for t in worker_ps.TABLES]
    assert got["sizes"].tolist() == [sizes[n] for n in names]
    assert sizes["sgd_t"] < 500
    # what the two servers saved loads into one in-process table set
    ps = worker_ps.LocalPS()
    ps.create_tables(worker_ps.TABLES)
    ps.init_dense("w", np.zeros((2, 3), np.float32))
    ps.load(out + ".tables")
    assert ps.table_sizes() == sizes
    np.testing.assert_allclose(ps.pull_dense("w"), ref["w"], rtol=1e-5)
    for name in names:
        np.testing.assert_allclose(ps.pull_sparse(name, worker_ps.PROBE), ref[name],
                                   rtol=1e-5, atol=1e-6)


def test_dynamic_model_through_fleet_matches_one_process():
    import sampan.distributed.fleet as fleet
    out = os.path.join(tempfile.mkdtemp(), "model.npz")
    code, text = launch_ps("model", "sync", out, servers=1, trainers=2)
    assert code == 0 and text.count("PS-OK") == 2, text
    strategy = fleet.DistributedStrategy()
    strategy.a_sync = False
    fleet.init(is_collective=False, strategy=strategy)   # no launcher: LocalPS
    fleet.init_worker()
    try:
        losses, probe = worker_ps.train_model(0, 1)
    finally:
        fleet.stop_worker()
    assert losses[-1] < losses[0]
    np.testing.assert_allclose(np.load(out)["probe"], probe, rtol=1e-4, atol=1e-5)


def test_a_killed_server_is_reported_and_the_job_stops():
    code, text = launch_ps("kill_server", servers=1, trainers=2, limit="20")
    assert code != 0
    assert "rank 0 of 3 (server 0) failed" in text and "killed by SIGKILL" in text, text


@pytest.mark.parametrize("kind, rank, text", [
    ("raise_trainer", "rank 2 of 3 (trainer 1) failed", "ValueError: trainer 1 fails on purpose"),
    ("hang_trainer", "rank 0 of 3 (server 0) failed",
     "no request from any trainer within 5 s; trainers [1] have not called "
     "fleet.stop_worker()"),
])
def test_a_failing_or_silent_trainer_ends_the_job_with_a_report(kind, rank, text):
    code, out = launch_ps(kind, servers=1, trainers=2, limit="5")
    assert code != 0
    assert rank in out and text in out, out


def test_sync_steps_go_on_when_a_trainer_has_stopped_early():
    code, out = launch_ps("uneven", "sync", servers=1, trainers=2, limit="20")
    assert code == 0 and out.count("PS-OK") == 2 and "left run_server" in out, out


def test_servers_started_from_a_saved_folder_serve_the_saved_rows(tmp_path):
    ref, _ = _reference("sync", save_to=str(tmp_path))
    code, text = launch_ps("reload", "sync", str(tmp_path))
    assert code == 0 and text.count("PS-OK") == 2, text
    got = np.load(str(tmp_path) + ".got.npz")
    for name, value in ref.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-6, err_msg=name)

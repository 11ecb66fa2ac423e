"""examples/ps_ctr.py (Paddle's static parameter-server recipe, wide & deep CTR model with
two 10^7-row tables): run in one process (tables in-process, LocalPS) and under the
launcher with 2 servers + 2 trainers; in sync mode the distributed job trains like the
single process (same data, same order) and reaches the same AUC."""
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.distributed.util import HERE, ROOT, need_mpi

EXAMPLE = os.path.join(ROOT, "examples", "ps_ctr.py")
N, EPOCHS = 1024, 3
ARGS = ["--num_examples", str(N), "--epochs", str(EPOCHS)]


def _run(cmd, timeout=150, retry_exit_kill=False):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)
    out = proc.stdout + proc.stderr
    # NOTE: MPICH's process manager sometimes SIGKILLs a rank's guard process while the
    # ranks shut down after finishing (seen with the launcher's own PS workers too); one
    # rerun of such a job only, never of a job that failed before its end.
    if proc.returncode and retry_exit_kill and "Killed (signal 9)" in out \
            and "Traceback" not in out and out.count(f"epoch {EPOCHS - 1}:") == 2:
        return _run(cmd, timeout)
    assert proc.returncode == 0, out[-3000:]
    return out


def _single(out_dir):
    return _run([sys.executable, EXAMPLE, "--out", str(out_dir)] + ARGS)


def _distributed(out_dir, *extra):
    need_mpi()
    return _run([sys.executable, "-m", "sampan.distributed.launch", "--server_num", "2",
                 "--trainer_num", "2", EXAMPLE, "--out", str(out_dir)] + ARGS + list(extra),
                retry_exit_kill=True)


def _predictions(out_dir, trainers):
    """The last epoch's predicted click probability of every example."""
    prob = np.full(N, np.nan)
    parts = [np.load(os.path.join(out_dir, f"trainer_{k}.npz")) for k in range(trainers)]
    for p in parts:
        prob[p["rows"]] = p["prob"]
    return prob, parts


def _data():
    sys.path.insert(0, os.path.dirname(EXAMPLE))
    try:
        from ps_ctr import synthetic_data
    finally:
        sys.path.pop(0)
    return synthetic_data(N)


def _labels():
    return _data()["label"].reshape(-1)


def _distinct_ids():
    return len(np.unique(_data()["ids"]))


def roc_auc(label, score):
    """Area under the ROC curve (Mann-Whitney, ties counted half)."""
    pos, neg = score[label == 1], score[label == 0]
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return greater / (len(pos) * len(neg))


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    out = tmp_path_factory.mktemp("single")
    log = _single(out)
    return out, log


def test_example_learns_in_one_process(single):
    out, log = single
    assert f"trainer 0 epoch {EPOCHS - 1}" in log
    prob, (part,) = _predictions(out, 1)
    assert not np.isnan(prob).any()
    assert roc_auc(_labels(), prob) > 0.9
    assert part["loss"][-8:].mean() < 0.75 * part["loss"][:8].mean()
    # both 10^7-row tables hold just the rows of the ids seen (fewer than 400)
    assert part["table_rows"].tolist() == [_distinct_ids()] * 2


def test_two_servers_two_trainers_match_one_process(single, tmp_path):
    """Sync mode averages the trainers' gradients of each global batch, so the job follows
    the single process: the same losses step by step while float rounding is all that
    differs (Adagrad's per-coordinate scaling later amplifies it: the two runs drift apart
    by ~1e-2 in a few weights after ~25 steps), and the same AUC at the end."""
    want, (single_part,) = _predictions(single[0], 1)
    log = _distributed(tmp_path)
    assert f"trainer 0 epoch {EPOCHS - 1}" in log and f"trainer 1 epoch {EPOCHS - 1}" in log
    got, parts = _predictions(tmp_path, 2)
    assert not np.isnan(got).any()
    steps = N // 64   # the first epoch
    job_loss = (parts[0]["loss"] + parts[1]["loss"]) / 2   # equal halves of each batch
    np.testing.assert_allclose(job_loss[:steps], single_part["loss"][:steps], rtol=1e-4)
    label = _labels()
    assert abs(roc_auc(label, got) - roc_auc(label, want)) < 2e-3
    assert np.abs(got - want).mean() < 0.02
    for p in parts:   # rows exist only where ids were touched, over both servers
        assert p["table_rows"].tolist() == [_distinct_ids()] * 2
        assert float(p["auc"]) > 0.75   # each trainer's static.auc over its half


def test_async_mode_learns(tmp_path):
    _distributed(tmp_path, "--async_mode")
    got, _ = _predictions(tmp_path, 2)
    assert roc_auc(_labels(), got) > 0.85

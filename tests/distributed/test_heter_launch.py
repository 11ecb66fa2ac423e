"""A heterogeneous-PS job under the launcher (worker_heter.py): a trainer and a heter worker
(2 processes), and with a parameter server (3 processes), train like the single-process
program: same losses and parameters to 1e-6."""
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.distributed.util import HERE, ROOT, need_mpi

WORKER = os.path.join(HERE, "worker_heter.py")


def _run(args, timeout=150):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable] + args, cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]


@pytest.mark.parametrize("servers", ["0", "1"], ids=["trainer+heter", "server+trainer+heter"])
def test_launched_heter_job_trains_like_one_process(tmp_path, servers):
    need_mpi()
    _run([WORKER, "--single", "--out", str(tmp_path)])
    _run(["-m", "sampan.distributed.launch", "--server_num", servers, "--trainer_num", "1",
          "--heter_worker_num", "1", "--heter_devices", "gpu", WORKER, "--out",
          str(tmp_path)])
    single = np.load(tmp_path / "single.npz")
    trainer, heter = np.load(tmp_path / "trainer.npz"), np.load(tmp_path / "heter.npz")
    np.testing.assert_allclose(trainer["losses"], single["losses"], rtol=1e-6, atol=1e-7)
    assert single["losses"][-1] < single["losses"][0]
    np.testing.assert_allclose(trainer["emb"], single["emb"], rtol=1e-6, atol=1e-7)
    for name in ("fc0.w", "fc0.b", "fc1.w", "fc1.b"):
        np.testing.assert_allclose(heter[name], single[name], rtol=1e-6, atol=1e-7,
                                   err_msg=name)

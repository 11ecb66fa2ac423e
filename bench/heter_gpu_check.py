"""GPU check of the heterogeneous parameter server in one short run: the heter worker computes
its section (the dense tower of a wide&deep program) on the GPU through CuPy while the trainer
runs the cpu part, (1) in one process (LocalHeter, the worker's Executor on gpu:0) and (2) as a
launched job (`--trainer_num 1 --heter_worker_num 1 --heter_devices gpu`), each against the
same program trained on the CPU in one process. Prints one JSON line per check.

    PYTHONPATH=. python bench/heter_gpu_check.py

Without a usable GPU it says so and exits 0.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sampan as paddle  # noqa: E402

HETER = ["fc0.w", "fc0.b", "fc1.w", "fc1.b"]


def _diffs(got: dict, ref: dict, names) -> dict:
    return {n: float(np.abs(np.asarray(got[n]) - np.asarray(ref[n])).max()) for n in names}


def in_process() -> dict:
    from tests.distributed.test_heter_local import (PARAMS, LocalHeter, _heter_run, _single,
                                                    build_wide_deep, wide_deep_feeds)
    feeds = wide_deep_feeds(6)
    ref_losses, ref = _single(feeds, None)
    local = LocalHeter(trainer_num=1, timeout=60).enter()
    began = time.perf_counter()
    losses, params, worker, _ = _heter_run(feeds, build_wide_deep(), local, place="gpu:0")
    module = type(worker.scope._vars.get("fc0.w")).__module__.split(".")[0]
    return {"check": "in-process", "seconds": round(time.perf_counter() - began, 3),
            "served": worker.served, "worker_arrays": module,
            "loss_diff": float(np.abs(losses - ref_losses).max()),
            "param_diff": _diffs(params, ref, PARAMS)}


def launched() -> dict:
    if shutil.which("mpiexec") is None:
        return {"check": "launched", "skipped": "mpiexec not found"}
    worker = os.path.join(ROOT, "tests", "distributed", "worker_heter.py")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as out:
        runs = [[worker, "--single", "--out", out],
                ["-m", "sampan.distributed.launch", "--trainer_num", "1", "--heter_worker_num",
                 "1", "--heter_devices", "gpu", worker, "--out", out]]
        for args in runs:
            proc = subprocess.run([sys.executable] + args, cwd=ROOT, env=env, text=True,
                                  capture_output=True, timeout=240)
            if proc.returncode:
                return {"check": "launched", "failed": (proc.stdout + proc.stderr)[-2000:]}
        single = np.load(os.path.join(out, "single.npz"))
        trainer = np.load(os.path.join(out, "trainer.npz"))
        heter = np.load(os.path.join(out, "heter.npz"))
        return {"check": "launched", "worker_arrays": str(heter["module"]),
                "loss_diff": float(np.abs(trainer["losses"] - single["losses"]).max()),
                "emb_diff": float(np.abs(trainer["emb"] - single["emb"]).max()),
                "param_diff": _diffs(heter, single, HETER)}


def main() -> int:
    if not paddle.is_compiled_with_cuda():
        print("heter_gpu_check: no usable GPU (CuPy and a GPU); nothing to check")
        return 0
    for check in (in_process, launched):
        try:
            result = check()
        except Exception as exc:  # noqa: BLE001 - reported, the next check still runs
            result = {"check": check.__name__, "error": f"{type(exc).__name__}: {exc}"[:2000]}
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""GPU check of issue #18 in one short run: the op database on the GPU backend (CuPy) against
the CPU, then MLP and ResNet-20 training steps on the GPU against PyTorch CUDA.

    PYTHONPATH=. python bench/gpu_check.py [--ops-seconds 60] [--steps 10] [--json PATH]

Without a usable GPU it says so and exits 0. Each op entry gets a few seconds (SIGALRM);
entries left when --ops-seconds runs out are reported as not run.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time

import numpy as np


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout("took too long")


def run_ops(seconds: float, per_entry: int) -> dict:
    from sampan.framework.place import CUDAPlace
    from tests.backend.device_check import check_entry
    from tests.ops.op_db import ENTRIES
    signal.signal(signal.SIGALRM, _alarm)
    result = {"passed": [], "failed": {}, "not_run": 0}
    end = time.perf_counter() + seconds
    for k, entry in enumerate(ENTRIES):
        if time.perf_counter() > end:
            result["not_run"] = len(ENTRIES) - k
            break
        if entry.op in ("send_recv", "recv"):
            continue
        signal.alarm(per_entry)
        try:
            check_entry(entry, CUDAPlace(0), max_samples=2)
            result["passed"].append(entry.name)
        except BaseException as err:  # noqa: BLE001 - every failure is a finding to report
            if isinstance(err, KeyboardInterrupt):
                raise
            result["failed"][entry.name] = f"{type(err).__name__}: {str(err)[:160]}"
        finally:
            signal.alarm(0)
    return result


def _time(step, sync, steps: int) -> float:
    for _ in range(3):
        step()
    sync()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    sync()
    return (time.perf_counter() - t0) / steps * 1e3


def run_training(steps: int) -> dict:
    import sampan as paddle
    from bench.train_step import paddle_step, torch_step
    out = {}
    paddle.set_device("gpu")
    for name in ("mlp", "resnet20"):
        try:
            step = paddle_step(paddle, name)
            out[f"sampan {name} ms"] = _time(step, paddle.device.cuda.synchronize, steps)
        except Exception as err:  # noqa: BLE001
            out[f"sampan {name} error"] = f"{type(err).__name__}: {str(err)[:200]}"
        print(json.dumps(out), flush=True)
    paddle.set_device("cpu")
    try:
        import torch
        torch.set_default_device("cuda")
        for name in ("mlp", "resnet20"):
            out[f"torch {name} ms"] = _time(torch_step(torch, name), torch.cuda.synchronize,
                                            steps)
        out["torch"] = torch.__version__
    except Exception as err:  # noqa: BLE001
        out["torch error"] = f"{type(err).__name__}: {str(err)[:200]}"
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ops-seconds", type=float, default=60.0)
    ap.add_argument("--per-entry", type=int, default=6)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    import sampan as paddle
    if not paddle.is_compiled_with_cuda():
        print("no usable GPU (CuPy and a CUDA device are needed); nothing to check")
        return 0
    import cupy
    report = {"device": paddle.device.cuda.get_device_name(), "cupy": cupy.__version__,
              "numpy": np.__version__}
    print(json.dumps(report), flush=True)
    t0 = time.perf_counter()
    report["training"] = run_training(args.steps)
    report["training_s"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(report["training"]), flush=True)
    t0 = time.perf_counter()
    ops = run_ops(args.ops_seconds, args.per_entry)
    report["ops"] = {"passed": len(ops["passed"]), "failed": ops["failed"],
                     "not_run": ops["not_run"], "seconds": round(time.perf_counter() - t0, 1)}
    print(json.dumps(report["ops"], indent=1), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

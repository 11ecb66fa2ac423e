"""Parameter-server throughput (issue #14): rows per second pulled and pushed by trainers
through PSClient over MPI to 1 server, with 1 and 2 trainers, and the same calls on the
in-process LocalPS (no messages) for reference.

    python bench/ps.py [--dim 16] [--batch 4096] [--iters 30] [--ids 1000000]

Each trainer times `iters` batches of `batch` ids drawn from [0, ids) (about 1/3
duplicates removed client-side) after a warm-up that creates the rows; pushes are timed up
to the step() that waits for the server to have applied them (async mode). With 2 trainers
the rows/s are summed over both (they run at the same time). Medians of per-batch times; a
shared 2-core machine, so the server and trainers compete for the same cores.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)


def _measure(client, args, seed: int) -> dict:
    from sampan.distributed.ps.client import TableConfig
    client.create_tables([TableConfig("bench", args.dim, optimizer=("adagrad", 0.01))])
    rng = np.random.default_rng(seed)
    batches = [rng.integers(0, args.ids, args.batch) for _ in range(args.iters)]
    grads = rng.standard_normal((args.batch, args.dim)).astype(np.float32)
    for ids in batches:   # warm-up: the rows exist afterwards
        client.pull_sparse("bench", ids)
    client.barrier()
    pulls, pushes = [], []
    for ids in batches:
        t0 = time.perf_counter()
        client.pull_sparse("bench", ids)
        t1 = time.perf_counter()
        client.push_sparse("bench", ids, grads)
        client.step()
        pulls.append(t1 - t0)
        pushes.append(time.perf_counter() - t1)
    return {"pull_rows_s": args.batch / float(np.median(pulls)),
            "push_rows_s": args.batch / float(np.median(pushes))}


def worker(args) -> None:
    import sampan.distributed.fleet as fleet
    fleet.init(is_collective=False)
    if fleet.is_server():
        fleet.init_server()
        fleet.run_server()
        return
    fleet.init_worker()
    from sampan.distributed.ps.client import get_client
    result = _measure(get_client(), args, fleet.worker_index())
    with open(os.path.join(args.out, f"trainer_{fleet.worker_index()}.json"), "w") as f:
        json.dump(result, f)
    fleet.stop_worker()


def _launch(args, trainers: int) -> dict:
    out = tempfile.mkdtemp(prefix="bench_ps_")
    cmd = [sys.executable, "-m", "sampan.distributed.launch", "--server_num", "1",
           "--trainer_num", str(trainers), os.path.abspath(__file__), "--as_worker", "--out",
           out, "--dim", str(args.dim), "--batch", str(args.batch), "--iters",
           str(args.iters), "--ids", str(args.ids)]
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stdout + proc.stderr)
    parts = [json.load(open(os.path.join(out, f"trainer_{k}.json"))) for k in range(trainers)]
    return {key: sum(p[key] for p in parts) for key in parts[0]}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--dim", type=int, default=16)
    p.add_argument("--batch", type=int, default=4096)
    p.add_argument("--iters", type=int, default=30)
    p.add_argument("--ids", type=int, default=1_000_000)
    p.add_argument("--as_worker", action="store_true")
    p.add_argument("--out", type=str, default="")
    args = p.parse_args()
    if args.as_worker:
        worker(args)
        return
    from sampan.distributed.ps.client import LocalPS
    rows = {"LocalPS (in-process)": _measure(LocalPS(), args, 0)}
    for trainers in (1, 2):
        rows[f"MPI: 1 server, {trainers} trainer(s)"] = _launch(args, trainers)
    print(f"dim {args.dim}, batch {args.batch} ids from [0, {args.ids}), adagrad rule")
    for name, r in rows.items():
        print(f"{name:32s} pull {r['pull_rows_s'] / 1e6:6.2f} M rows/s   "
              f"push {r['push_rows_s'] / 1e6:6.2f} M rows/s")


if __name__ == "__main__":
    main()

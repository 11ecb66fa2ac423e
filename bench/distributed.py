"""paddle.distributed benchmarks (issue #14): DataParallel at 2 ranks (1 BLAS thread each) vs
1 rank with 2 threads on the same global batch, and all_reduce bandwidth of sampan's
collective (an OpDef over MPI) vs the raw mpi4py call on the same buffer.

    python bench/distributed.py [--only dp,allreduce] [--steps 20] [--models mlp,transformer]

Each measurement runs in fresh processes (the launcher for 2 ranks); rank 0 prints one JSON
line, which the driver collects. Medians; a shared 2-core machine, so compare ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SIZES = (1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 24)   # float32 elements x4 bytes


def _model(P, name):
    nn = P.nn
    if name == "mlp":   # the train_step MLP: 784-512-256-10, global batch 128, Adam
        net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                            nn.Linear(256, 10))
        return net, (128, 784), 10
    layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0)
    net = nn.Sequential(nn.TransformerEncoder(layer, 2), nn.Flatten(), nn.Linear(128 * 256, 10))
    return net, (16, 128, 256), 10


def worker_dp(name: str, steps: int) -> dict:
    import numpy as np
    import sampan as P
    import sampan.distributed as dist
    dist.init_parallel_env()
    r, n = dist.get_rank(), dist.get_world_size()
    P.seed(0)
    net, shape, classes = _model(P, name)
    model = P.DataParallel(net) if n > 1 else net
    opt = P.optimizer.Adam(1e-3, parameters=model.parameters())
    rng = np.random.RandomState(0)
    x = rng.standard_normal(shape).astype("float32")
    y = rng.randint(0, classes, (shape[0], 1)).astype("int64")
    per = shape[0] // n
    xs, ys = P.to_tensor(x[r * per:(r + 1) * per]), P.to_tensor(y[r * per:(r + 1) * per])
    times = []
    for i in range(steps + 2):
        dist.barrier()
        t0 = time.perf_counter()
        loss = P.nn.functional.cross_entropy(model(xs), ys)
        loss.backward()
        opt.step()
        opt.clear_grad()
        times.append(time.perf_counter() - t0)
    return {"model": name, "ranks": n, "step_ms": 1e3 * float(np.median(times[2:]))}


def worker_allreduce(reps: int) -> dict:
    import numpy as np
    import sampan as P
    import sampan.distributed as dist
    from mpi4py import MPI
    dist.init_parallel_env()
    comm = MPI.COMM_WORLD
    rows = []
    for size in SIZES:
        buf = np.ones(size, "float32")
        out = np.empty_like(buf)
        t = P.to_tensor(buf)
        raw, ours = [], []
        for _ in range(reps):   # interleaved so both see the same machine load
            comm.Barrier()
            t0 = time.perf_counter()
            comm.Allreduce(buf, out)
            raw.append(time.perf_counter() - t0)
            comm.Barrier()
            t0 = time.perf_counter()
            dist.all_reduce(t)
            ours.append(time.perf_counter() - t0)
        rows.append({"bytes": size * 4, "raw_us": 1e6 * float(np.median(raw)),
                     "sampan_us": 1e6 * float(np.median(ours))})
    return {"allreduce": rows}


def _run(cmd: list, nranks: int, threads: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               PYTHONPATH=ROOT)
    if nranks > 1:
        cmd = [sys.executable, "-m", "sampan.distributed.launch", "--nproc_per_node",
               str(nranks)] + cmd
    else:
        cmd = [sys.executable] + cmd
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError(f"benchmark run failed:\n{out.stdout}\n{out.stderr}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="dp,allreduce")
    p.add_argument("--models", default="mlp,transformer")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--reps", type=int, default=30)
    p.add_argument("--worker", default=None)
    p.add_argument("--model", default="mlp")
    args = p.parse_args()
    if args.worker:
        result = (worker_dp(args.model, args.steps) if args.worker == "dp"
                  else worker_allreduce(args.reps))
        if int(os.environ.get("PADDLE_TRAINER_ID", "0")) == 0:
            print(json.dumps(result), flush=True)
        return
    me = os.path.abspath(__file__)
    if "dp" in args.only:
        print("| model | 1 rank x 1 thread | 1 rank x 2 threads | 2 ranks x 1 thread (ms/step) "
              "| 2 ranks vs 1x2 |")
        print("|---|---|---|---|---|")
        for name in args.models.split(","):
            base = [me, "--worker", "dp", "--model", name, "--steps", str(args.steps)]
            single = _run(base, 1, 1)["step_ms"]
            one = _run(base, 1, 2)["step_ms"]
            two = _run(base, 2, 1)["step_ms"]
            print(f"| {name} | {single:.1f} | {one:.1f} | {two:.1f} | {one / two:.2f} |",
                  flush=True)
    if "allreduce" in args.only:
        rows = _run([me, "--worker", "allreduce", "--reps", str(args.reps)], 2, 1)["allreduce"]
        print("\n| bytes | mpi4py Allreduce (us) | sampan all_reduce (us) | sampan/raw | "
              "sampan GB/s |")
        print("|---|---|---|---|---|")
        for row in rows:
            gbs = row["bytes"] / row["sampan_us"] / 1e3
            print(f"| {row['bytes']} | {row['raw_us']:.1f} | {row['sampan_us']:.1f} | "
                  f"{row['sampan_us'] / row['raw_us']:.2f} | {gbs:.2f} |", flush=True)


if __name__ == "__main__":
    main()

"""paddle.distributed benchmarks (issue #14): DataParallel at 2 ranks (1 BLAS thread each) vs
1 rank with 2 threads on the same global batch, and sampan's collectives (OpDefs over MPI)
vs the raw mpi4py calls on the same buffers (all_reduce, broadcast, all_gather).

    python bench/distributed.py [--only dp,allreduce] [--steps 20] [--models mlp,transformer]
        [--root DIR]   # import sampan from DIR (e.g. an export of an older commit)

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
    """Median step time; at 2 ranks also the median time per step spent in DataParallel's
    `_finish` (waiting for the bucket all-reduces and writing .grad): what backward did not
    hide."""
    import numpy as np
    import sampan as P
    import sampan.distributed as dist
    dist.init_parallel_env()
    r, n = dist.get_rank(), dist.get_world_size()
    P.seed(0)
    net, shape, classes = _model(P, name)
    model = P.DataParallel(net) if n > 1 else net
    finish = [0.0]
    if n > 1:
        inner = model._finish

        def timed_finish(*a):
            t0 = time.perf_counter()
            inner(*a)
            finish[0] += time.perf_counter() - t0
        model._finish = timed_finish
    opt = P.optimizer.Adam(1e-3, parameters=model.parameters())
    rng = np.random.RandomState(0)
    x = rng.standard_normal(shape).astype("float32")
    y = rng.randint(0, classes, (shape[0], 1)).astype("int64")
    per = shape[0] // n
    xs, ys = P.to_tensor(x[r * per:(r + 1) * per]), P.to_tensor(y[r * per:(r + 1) * per])
    times, waits = [], []
    for i in range(steps + 2):
        dist.barrier()
        finish[0] = 0.0
        t0 = time.perf_counter()
        loss = P.nn.functional.cross_entropy(model(xs), ys)
        loss.backward()
        opt.step()
        opt.clear_grad()
        times.append(time.perf_counter() - t0)
        waits.append(finish[0])
    return {"model": name, "ranks": n, "step_ms": 1e3 * float(np.median(times[2:])),
            "finish_ms": 1e3 * float(np.median(waits[2:]))}


def _timed(comm, fns: dict, reps: int) -> dict:
    """Median and minimum microseconds of each function (keys k and k_min), the functions
    interleaved (same machine load), each call started after a barrier."""
    import numpy as np
    times = {k: [] for k in fns}
    for _ in range(reps):
        for k, fn in fns.items():
            comm.Barrier()
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
    row = {k: 1e6 * float(np.median(v)) for k, v in times.items()}
    row.update({k + "_min": 1e6 * float(np.min(v)) for k, v in times.items()})
    return row


def worker_allreduce(reps: int) -> dict:
    import numpy as np
    import sampan as P
    import sampan.distributed as dist
    from mpi4py import MPI
    dist.init_parallel_env()
    comm = MPI.COMM_WORLD
    rows = []
    for size in SIZES:
        buf, out, raw_in = (np.ones(size, "float32") for _ in range(3))
        t, tb, tg = P.to_tensor(buf), P.to_tensor(buf), P.to_tensor(buf)
        gathered = np.empty((comm.size, size), "float32")
        fns = {"raw": lambda: comm.Allreduce(buf, out),
               "raw_inplace": lambda: comm.Allreduce(MPI.IN_PLACE, raw_in),
               "sampan": lambda: dist.all_reduce(t),
               "raw_bcast": lambda: comm.Bcast(raw_in, root=0),
               "sampan_bcast": lambda: dist.broadcast(tb, 0),
               "raw_gather": lambda: comm.Allgather(buf, gathered),
               "sampan_gather": lambda: dist.all_gather([], tg)}
        row = _timed(comm, fns, reps if size < (1 << 22) else max(8, reps // 3))
        row["bytes"] = size * 4
        rows.append(row)
    return {"allreduce": rows}


def _run(cmd: list, nranks: int, threads: int, root: str = ROOT) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               PYTHONPATH=root)
    if nranks > 1:
        cmd = [sys.executable, "-m", "sampan.distributed.launch", "--nproc_per_node",
               str(nranks)] + cmd
    else:
        cmd = [sys.executable] + cmd
    out = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=900)
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
    p.add_argument("--role", default=None, help="internal: run one measurement")
    p.add_argument("--model", default="mlp")
    p.add_argument("--root", default=ROOT, help="import sampan from this directory")
    args = p.parse_args()
    if args.role:
        result = (worker_dp(args.model, args.steps) if args.role == "dp"
                  else worker_allreduce(args.reps))
        if int(os.environ.get("PADDLE_TRAINER_ID", "0")) == 0:
            print(json.dumps(result), flush=True)
        return
    me = os.path.abspath(__file__)
    root = os.path.abspath(args.root)
    print(f"sampan from {root}; load average {os.getloadavg()[0]:.1f}")
    if "dp" in args.only:
        _bench_dp(me, root, args)
    if "allreduce" in args.only:
        rows = _run([me, "--role", "allreduce", "--reps", str(args.reps)], 2, 1,
                    root)["allreduce"]
        _print_collectives(rows)


def _bench_dp(me: str, root: str, args) -> None:
    print("| model | 1 rank x 1 thread | 1 rank x 2 threads | 2 ranks x 1 thread (ms/step) "
          "| of which waiting for all-reduce | 2 ranks vs 1x2 | 2 ranks vs 1x1 |")
    print("|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        base = [me, "--role", "dp", "--model", name, "--steps", str(args.steps)]
        single = _run(base, 1, 1, root)["step_ms"]
        one = _run(base, 1, 2, root)["step_ms"]
        two = _run(base, 2, 1, root)
        print(f"| {name} | {single:.1f} | {one:.1f} | {two['step_ms']:.1f} | "
              f"{two['finish_ms']:.1f} | {one / two['step_ms']:.2f} | "
              f"{single / two['step_ms']:.2f} |", flush=True)


def _print_collectives(rows: list) -> None:
    """Medians in us, ratios of medians, and (in brackets) ratios of the minima, which the
    load of a shared machine disturbs least."""
    def ratio(r, a, b):
        return f"{r[a] / r[b]:.2f} ({r[a + '_min'] / r[b + '_min']:.2f})"
    print("\n| bytes | Allreduce | Allreduce IN_PLACE | sampan all_reduce | / raw | "
          "/ raw in-place | Bcast | sampan broadcast | / raw | Allgather | "
          "sampan all_gather | / raw |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['bytes']} | {r['raw']:.1f} | {r['raw_inplace']:.1f} | {r['sampan']:.1f} "
              f"| {ratio(r, 'sampan', 'raw')} | {ratio(r, 'sampan', 'raw_inplace')} | "
              f"{r['raw_bcast']:.1f} | {r['sampan_bcast']:.1f} | "
              f"{ratio(r, 'sampan_bcast', 'raw_bcast')} | {r['raw_gather']:.1f} | "
              f"{r['sampan_gather']:.1f} | {ratio(r, 'sampan_gather', 'raw_gather')} |",
              flush=True)


if __name__ == "__main__":
    main()

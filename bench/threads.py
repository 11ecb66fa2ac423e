"""BLAS threads and oversubscription (issue #16, round 4): is any setting worse than one thread?

    python bench/threads.py gemm  [--rounds 5] [--quiet-only|--contended-only]
    python bench/threads.py steps [--rounds 6] [--only lenet,mlp,resnet20]
    python bench/threads.py switch
    taskset -c 0,1 python bench/threads.py all   # a 2-core slice of a bigger machine

- `gemm`: float32 GEMMs (square M=N=K 16..1024 and the models' skinny shapes) with OpenBLAS
  pinned to 1 and to 2 threads, ABBA-interleaved in one process; median wall and process CPU
  time (all threads) per call.
- `steps`: LeNet-5 (b64), MLP 784-512-256-10 (b128) and ResNet-20 (b32) training steps
  (bench/train_step.py's models) at `paddle.base.core.set_num_threads(1)`, `(2)` with the
  thread policy off (every GEMM on OpenBLAS's own choice, the kernel pool always on: sampan
  before round 4), and the default (cap = the CPU count, policy on), interleaved over rounds
  in one process; median wall ms per step. Also "size only": the default cap, the size
  choice on, the contention guard off.
- `switch`: the cost of openblas_set_num_threads per call and of the first 2-thread GEMM
  after a 1-thread stretch (workers asleep).

"contended" runs start a competitor, a `python -c` loop spinning (one core's worth of load;
it stops itself after 15 minutes), and kill it at the end (SIGTERM included); "quiet" runs
have none (the host's own load still counts: note it). Nothing here is asserted: numbers go
to bench/RESULTS.md ("#16 round 4: threads (S3)"). On a bigger machine, `taskset -c 0,1`
emulates 2 cores (the competitor inherits the affinity).
"""
from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

SQUARE = (16, 32, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
# (M, K, N) of the anchor models' GEMMs: MLP forward/backward, LeNet fc, ResNet-20 3x3 convs
SKINNY = ((128, 784, 512), (784, 128, 512), (128, 512, 256), (64, 400, 120), (64, 120, 84),
          (16, 144, 1024), (32, 288, 256), (64, 576, 64), (1024, 64, 144))


class Competitor:
    """A spinning second process (one core's worth of load) for the block, or nothing."""

    def __init__(self, on: bool, limit_s: int = 900):
        self.on, self.limit_s, self.proc = on, limit_s, None

    def __enter__(self):
        if self.on:  # it ends itself after limit_s even if this process is killed
            code = f"import time\nend = time.time() + {self.limit_s}\nwhile time.time() < end: pass"
            self.proc = subprocess.Popen([sys.executable, "-c", code])
            time.sleep(0.3)
        return self

    def __exit__(self, *exc):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


def _blas():
    from sampan.backend import threads
    if threads._BLAS is None:
        sys.exit("no OpenBLAS thread control in this NumPy build")
    return threads._BLAS


def _time_gemm(a, b, reps: int):
    """(median wall us, mean process-CPU us) of a @ b over reps calls."""
    walls = []
    c0 = time.process_time()
    for _ in range(reps):
        t0 = time.perf_counter()
        np.matmul(a, b)
        walls.append(time.perf_counter() - t0)
    cpu = (time.process_time() - c0) / reps
    return statistics.median(walls) * 1e6, cpu * 1e6


def gemm_table(rounds: int, contended: bool) -> list:
    get, put = _blas()
    rng = np.random.default_rng(0)
    shapes = [(s, s, s) for s in SQUARE] + list(SKINNY)
    rows = []
    with Competitor(contended):
        for m, k, n in shapes:
            a = rng.standard_normal((m, k), dtype=np.float32)
            b = rng.standard_normal((k, n), dtype=np.float32)
            reps = int(min(400, max(5, 3e7 / (2 * m * k * n) * 20)))
            res = {1: [], 2: []}
            for r in range(rounds):  # ABBA: 1,2,2,1,1,2,...
                for t in ((1, 2) if r % 2 == 0 else (2, 1)):
                    put(t)
                    np.matmul(a, b)
                    res[t].append(_time_gemm(a, b, reps))
            w1 = statistics.median(x[0] for x in res[1])
            w2 = statistics.median(x[0] for x in res[2])
            c1 = statistics.median(x[1] for x in res[1])
            c2 = statistics.median(x[1] for x in res[2])
            rows.append((m, k, n, w1, w2, c1, c2))
    put(2)
    return rows


def print_gemm(rows, label: str) -> None:
    print(f"\nGEMM {label} (median wall us per call, process CPU us; ratio = 2 threads / 1)")
    print("| M,K,N | MFLOP | 1 thr wall | 2 thr wall | 2/1 wall | 1 thr CPU | 2 thr CPU |")
    print("|---|---|---|---|---|---|---|")
    for m, k, n, w1, w2, c1, c2 in rows:
        print(f"| {m},{k},{n} | {2 * m * k * n / 1e6:.2f} | {w1:.1f} | {w2:.1f} | "
              f"{w2 / w1:.2f} | {c1:.1f} | {c2:.1f} |")


def switch_cost() -> None:
    get, put = _blas()
    n = 200000
    t0 = time.perf_counter()
    for _ in range(n // 2):
        put(1)
        put(2)
    print(f"\nopenblas_set_num_threads: {(time.perf_counter() - t0) / n * 1e6:.2f} us per call")
    from sampan.backend import threads
    t0 = time.perf_counter()
    for _ in range(n // 10):
        with threads.blas_threads(1):
            pass
    print(f"blas_threads(1) guard enter+exit: {(time.perf_counter() - t0) / (n // 10) * 1e6:.2f}"
          " us")
    t0 = time.perf_counter()
    for _ in range(n // 10):
        threads._unpin(threads._pin(1))
    print(f"_pin(1) + _unpin (the policy's per-GEMM pin): "
          f"{(time.perf_counter() - t0) / (n // 10) * 1e6:.2f} us")
    from sampan.backend import numpy_ as xp
    for size in (8, 64, 96):  # the policy's cost on a call: backend matmul vs np.matmul
        a = np.ones((size, size), np.float32)
        best = {}
        for name, fn in (("np.matmul", np.matmul), ("backend matmul", xp.matmul)) * 15:
            t0 = time.perf_counter()
            for _ in range(2000):
                fn(a, a)
            best[name] = min(best.get(name, 1e9), (time.perf_counter() - t0) / 2000 * 1e6)
        print(f"{size}^3 GEMM: " + ", ".join(f"{k} {v:.2f} us" for k, v in best.items()))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 256), dtype=np.float32)
    for idle in (0.0, 0.01, 0.3):
        firsts, warm = [], []
        for _ in range(7):
            put(2)
            np.matmul(a, a)
            time.sleep(idle)  # workers spin, then sleep (OpenBLAS thread timeout)
            t0 = time.perf_counter()
            np.matmul(a, a)
            firsts.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            np.matmul(a, a)
            warm.append(time.perf_counter() - t0)
        print(f"256^3 at 2 threads after {idle * 1e3:.0f} ms idle: first "
              f"{statistics.median(firsts) * 1e6:.0f} us, "
              f"next {statistics.median(warm) * 1e6:.0f} us")
    put(2)


SETTINGS = ("1", "2 fixed", "size only", "default")


def _apply(P, threads, setting: str) -> None:
    """1: cap 1; "2 fixed": cap 2, policy off (OpenBLAS decides per GEMM, the kernel pool
    always on: sampan before round 4); "size only": the default cap, small GEMMs on one
    thread, no contention guard; default: the default cap with the whole policy on."""
    threads.set_policy(setting != "2 fixed", guard=setting != "size only")
    n = {"1": 1, "2 fixed": 2}.get(setting, threads.default_num_threads())
    P.base.core.set_num_threads(n)


def step_table(names, rounds: int, steps: int, contended: bool, warm_s: float = 0.6) -> dict:
    """Median ms per step and setting; each block first runs steps for warm_s (at least
    one) from a fresh guard state, so the default is timed as a process in steady state."""
    import sampan as P
    from sampan.backend import threads
    from train_step import paddle_step
    P.set_device("cpu")
    res = {}
    with Competitor(contended):
        for name in names:
            step = paddle_step(P, name)
            times, seen = {s: [] for s in SETTINGS}, []
            for r in range(rounds):
                order = SETTINGS if r % 2 == 0 else SETTINGS[::-1]
                for s in order:
                    _apply(P, threads, s)
                    threads._guard.update(last=None, free=None)  # as a fresh process
                    t_end = time.perf_counter() + warm_s
                    step()
                    while time.perf_counter() < t_end:  # the guard's first windows
                        step()
                    for _ in range(steps):
                        t0 = time.perf_counter()
                        step()
                        times[s].append(time.perf_counter() - t0)
                    if s == "default":
                        seen.append(threads._guard["free"])
            res[name] = {s: statistics.median(v) * 1e3 for s, v in times.items()}
            res[name]["guard"] = seen[:]
            seen.clear()
    _apply(P, threads, "default")
    return res


def print_steps(res: dict, label: str) -> None:
    print(f"\nsteps {label} (median wall ms per step; worst/1 = the worst setting / 1 thread)")
    print("| model | " + " | ".join(SETTINGS) + " | worst/1 | guard: free cores per round |")
    print("|---|" + "---|" * (len(SETTINGS) + 2))
    for name, row in res.items():
        worst = max(row[s] for s in SETTINGS) / row["1"]
        print(f"| {name} | " + " | ".join(f"{row[s]:.2f}" for s in SETTINGS)
              + f" | {worst:.2f} | {row['guard']} |")


def main() -> None:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so Competitor's exit runs
    ap = argparse.ArgumentParser()
    ap.add_argument("part", choices=("gemm", "steps", "switch", "all"))
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--only", default="lenet,mlp,resnet20")
    ap.add_argument("--quiet-only", action="store_true")
    ap.add_argument("--contended-only", action="store_true")
    args = ap.parse_args()
    conds = [c for c in (False, True) if not ((c and args.quiet_only)
                                               or (not c and args.contended_only))]
    print(f"host: {os.cpu_count()} CPUs, affinity {len(os.sched_getaffinity(0))}, "
          f"loadavg {open('/proc/loadavg').read().split()[:3]}")
    if args.part in ("switch", "all"):
        switch_cost()
    for contended in conds:
        label = "contended (+1 spinning process)" if contended else "quiet"
        if args.part in ("gemm", "all"):
            print_gemm(gemm_table(args.rounds, contended), label)
        if args.part in ("steps", "all"):
            print_steps(step_table(args.only.split(","), args.rounds, args.steps, contended),
                        label)


if __name__ == "__main__":
    main()

"""Eager micro-benchmarks: per-op latency of sampan vs NumPy, Paddle and PyTorch.

    python bench/eager_ops.py                      # sampan and NumPy only
    python bench/eager_ops.py --ref-python PATH    # also Paddle and PyTorch
    python bench/eager_ops.py --ref-python PATH --torch-python PATH2 --threads 1

Each library runs in its own subprocess (`--lib NAME` prints JSON) set up by bench/libsetup.py
(threads, Paddle's MKL_DEBUG_CPU_TYPE=5, each library's own thread setter); the driver
alternates the libraries over several rounds and reports medians, so the ratios come from one
run. PyTorch runs from `--torch-python`, else `--ref-python` if it has torch, else
/work/torchenv/bin/python.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libsetup import child_env, import_lib, torch_python  # noqa: E402

CASES = ("add [4] f32", "add [4] f32 grad", "matmul 4x4", "chain backward", "import")


def _median_us(fn, number=20000, repeat=7) -> float:
    times = timeit.repeat(fn, number=number, repeat=repeat)
    return statistics.median(times) / number * 1e6


def _chain(lib, x):
    def step():
        y = ((x * x).exp() * x).sum()
        y.backward()
        x.grad = None if lib == "torch" else x.grad
    return step


def measure(lib: str, threads: int) -> dict:
    t0 = time.perf_counter()
    if lib == "numpy":
        import numpy as np
        imp = time.perf_counter() - t0
        a = np.ones(4, np.float32)
        m = np.ones((4, 4), np.float32)
        return {"add [4] f32": _median_us(lambda: a + a), "matmul 4x4": _median_us(lambda: m @ m),
                "import": imp * 1e6}
    T = import_lib(lib, threads)
    imp = time.perf_counter() - t0
    if lib == "torch":
        mk = lambda shape, g=False: T.ones(shape, dtype=T.float32, requires_grad=g)  # noqa
    else:
        mk = lambda shape, g=False: T.to_tensor(  # noqa
            __import__("numpy").ones(shape, "float32"), stop_gradient=not g)
    x, xg, m = mk([4]), mk([4], True), mk([4, 4])
    res = {"add [4] f32": _median_us(lambda: x + x),
           "add [4] f32 grad": _median_us(lambda: xg + xg),
           "matmul 4x4": _median_us(lambda: T.matmul(m, m)),
           "import": imp * 1e6}
    c = mk([16], True)
    res["chain backward"] = _median_us(_chain(lib, c), number=2000)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib")
    ap.add_argument("--ref-python", help="python with paddlepaddle installed")
    ap.add_argument("--torch-python", help="python with torch (default: see the docstring)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    if args.lib:
        print(json.dumps(measure(args.lib, args.threads)))
        return
    runs = [("numpy", sys.executable), ("sampan", sys.executable)]
    if args.ref_python:
        runs.append(("paddle", args.ref_python))
    torch_py = torch_python(args.torch_python, args.ref_python)
    if torch_py:
        runs.append(("torch", torch_py))
    env = child_env(args.threads, {"PATH": "/usr/bin:/bin"})
    results: dict = {lib: [] for lib, _ in runs}
    for _ in range(args.rounds):
        for lib, py in runs:
            out = subprocess.run([py, __file__, "--lib", lib, "--threads", str(args.threads)],
                                 capture_output=True, text=True, env=env)
            if out.returncode:
                print(out.stderr[-2000:], file=sys.stderr)
                continue
            results[lib].append(json.loads(out.stdout.strip().splitlines()[-1]))
    table = {lib: {c: statistics.median(r[c] for r in rs) for c in CASES if c in rs[0]}
             for lib, rs in results.items() if rs}
    libs = list(table)
    print("| case (median µs; import in ms) | " + " | ".join(libs) +
          " | sampan/numpy | sampan/paddle | sampan/torch |")
    print("|---" * (len(libs) + 4) + "|")
    for c in CASES:
        row = []
        for lib in libs:
            v = table[lib].get(c)
            row.append("-" if v is None else f"{v / 1000:.0f}" if c == "import" else f"{v:.2f}")
        s = table.get("sampan", {}).get(c)
        ratios = []
        for ref in ("numpy", "paddle", "torch"):
            r = table.get(ref, {}).get(c)
            ratios.append(f"{s / r:.2f}" if s and r else "-")
        print(f"| {c} | " + " | ".join(row) + " | " + " | ".join(ratios) + " |")


if __name__ == "__main__":
    main()

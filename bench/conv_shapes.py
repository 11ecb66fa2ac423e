"""Convolution micro-benchmark per shape class: sampan's kernels vs PyTorch, GFLOP/s (issue #16).

    python bench/conv_shapes.py                                  # sampan + torch, 3 rounds
    python bench/conv_shapes.py --torch-python /work/torchenv/bin/python --rounds 5
    python bench/conv_shapes.py --ab HEAD~3 --only r20                # A/B vs an older revision

Each shape class (ResNet-20 3x3 stride 1 and 2, 1x1 projections, LeNet 5x5, depthwise, batch-1)
is timed for the forward convolution, the input gradient and the weight gradient, single
thread, process CPU time (robust on a shared machine), best of a few repeats. sampan is timed
at its backend kernels (`sampan.backend.conv`: conv_array, conv_transpose_array,
weight_corr_array, what the conv ops compute with), PyTorch at `F.conv2d` and
`aten.convolution_backward` with one output mask each. The driver runs each library in its
own subprocess, interleaves them over rounds and reports medians next to the machine's
single-thread float32 GEMM rate (NumPy's OpenBLAS, 512^3). `--ab REV` instead times the
kernels of git revision REV (backend/conv*.py, window.py, threads.py loaded from git into a
temporary package) against the working tree in one process, interleaved: the ratio is
new/old CPU time, < 1 is faster.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# name: (N, C, H, W, O, k, stride, pad, groups)
CASES = {
    "r20_stem": (32, 3, 32, 32, 16, 3, 1, 1, 1),
    "r20_3x3_16": (32, 16, 32, 32, 16, 3, 1, 1, 1),
    "r20_3x3_32": (32, 32, 16, 16, 32, 3, 1, 1, 1),
    "r20_3x3_64": (32, 64, 8, 8, 64, 3, 1, 1, 1),
    "r20_3x3s2_32": (32, 16, 32, 32, 32, 3, 2, 1, 1),
    "r20_3x3s2_64": (32, 32, 16, 16, 64, 3, 2, 1, 1),
    "r20_1x1s2_32": (32, 16, 32, 32, 32, 1, 2, 0, 1),
    "r20_1x1s2_64": (32, 32, 16, 16, 64, 1, 2, 0, 1),
    "1x1_128": (32, 64, 16, 16, 128, 1, 1, 0, 1),
    "lenet_c1": (64, 1, 28, 28, 6, 5, 1, 2, 1),
    "lenet_c2": (64, 6, 14, 14, 16, 5, 1, 0, 1),
    "dw_3x3": (32, 32, 32, 32, 32, 3, 1, 1, 32),
    "dw_3x3s2": (32, 64, 16, 16, 64, 3, 2, 1, 64),
    "b1_3x3_16": (1, 16, 32, 32, 16, 3, 1, 1, 1),
    "b1_3x3_64": (1, 64, 8, 8, 64, 3, 1, 1, 1),
    "b1_stem": (1, 3, 32, 32, 16, 3, 1, 1, 1),
    "b1_dw_3x3": (1, 144, 28, 28, 144, 3, 1, 1, 144),
}
OPS = ("fwd", "dx", "dw")


def out_size(n, k, s, p):
    return (n + 2 * p - k) // s + 1


def flops(case) -> float:
    """Multiply-adds x 2 of one convolution (the same for each of the three ops)."""
    n, c, h, w, o, k, s, p, g = case
    return 2.0 * n * o * (c // g) * k * k * out_size(h, k, s, p) * out_size(w, k, s, p)


def arrays(case):
    n, c, h, w, o, k, s, p, g = case
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    wt = rng.standard_normal((o, c // g, k, k)).astype(np.float32)
    dy = rng.standard_normal((n, o, out_size(h, k, s, p), out_size(w, k, s, p)))
    return x, wt, dy.astype(np.float32)


def best_ms(fn, budget: float = 0.15, reps: int = 5) -> float:
    """Best-of-`reps` CPU ms of fn(), each rep looping fn for about `budget` / reps seconds."""
    fn()
    t0 = time.process_time()
    fn()
    one = max(time.process_time() - t0, 1e-5)
    inner = max(1, int(budget / reps / one))
    out = float("inf")
    for _ in range(reps):
        t0 = time.process_time()
        for _ in range(inner):
            fn()
        out = min(out, (time.process_time() - t0) / inner)
    return out * 1e3


def sampan_ops(conv, case):
    """{op: thunk} over a sampan backend.conv module `conv`."""
    n, c, h, w, o, k, s, p, g = case
    x, wt, dy = arrays(case)
    st, pads, dil = [s, s], [p, p, p, p], [1, 1]
    return {"fwd": lambda: conv.conv_array(np, x, wt, st, pads, dil, g),
            "dx": lambda: conv.conv_transpose_array(np, dy, wt, [h, w], st, pads, dil, g),
            "dw": lambda: conv.weight_corr_array(np, x, dy, [k, k], st, pads, dil, g)}


def torch_ops(torch, case):
    n, c, h, w, o, k, s, p, g = case
    x, wt, dy = (torch.from_numpy(a) for a in arrays(case))
    bwd = torch.ops.aten.convolution_backward
    args = (dy, x, wt, None, [s, s], [p, p], [1, 1], False, [0, 0], g)
    return {"fwd": lambda: torch.nn.functional.conv2d(x, wt, None, s, p, 1, g),
            "dx": lambda: bwd(*args, [True, False, False]),
            "dw": lambda: bwd(*args, [False, True, False])}


def gemm_gflops() -> float:
    a = np.random.default_rng(0).standard_normal((512, 512)).astype(np.float32)
    return 2 * 512 ** 3 / best_ms(lambda: a @ a) / 1e6


def measure(lib: str, names) -> dict:
    if lib == "torch":
        import torch
        torch.set_num_threads(1)
        make = lambda case: torch_ops(torch, case)  # noqa: E731
    else:
        sys.path.insert(0, ROOT)
        from sampan.backend import conv
        make = lambda case: sampan_ops(conv, case)  # noqa: E731
    res = {"gemm": gemm_gflops()} if lib == "sampan" else {}
    for name in names:
        for op, fn in make(CASES[name]).items():
            res[f"{name}.{op}"] = best_ms(fn)
    return res


def load_revision(rev: str):
    """backend/conv.py of git revision `rev` (with its window.py and threads.py) as a module."""
    pkg = tempfile.mkdtemp(prefix="sampan_conv_ab_")
    os.makedirs(os.path.join(pkg, "oldbackend"))
    names = subprocess.run(["git", "-C", ROOT, "ls-tree", "--name-only", rev,
                            "sampan/backend/"], capture_output=True, text=True,
                           check=True).stdout.split()
    for f in [os.path.basename(n) for n in names if os.path.basename(n).startswith("conv")
              and n.endswith(".py")] + ["window.py", "threads.py"]:
        src = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:sampan/backend/{f}"],
                             capture_output=True, text=True, check=True).stdout
        with open(os.path.join(pkg, "oldbackend", f), "w") as fh:
            fh.write(src)
    open(os.path.join(pkg, "oldbackend", "__init__.py"), "w").close()
    sys.path.insert(0, pkg)
    import oldbackend.conv
    return oldbackend.conv


def ab(rev: str, names, rounds: int) -> None:
    sys.path.insert(0, ROOT)
    from sampan.backend import conv as new
    old = load_revision(rev)
    print(f"| case.op | {rev} ms | new ms | new/old |")
    print("|---|---|---|---|")
    for name in names:
        ops_old, ops_new = sampan_ops(old, CASES[name]), sampan_ops(new, CASES[name])
        for op in OPS:
            a = np.allclose(ops_old[op](), ops_new[op](), rtol=1e-4, atol=1e-3)
            t_old, t_new = [], []
            for _ in range(rounds):
                t_old.append(best_ms(ops_old[op], 0.08, 3))
                t_new.append(best_ms(ops_new[op], 0.08, 3))
            mo, mn = statistics.median(t_old), statistics.median(t_new)
            flag = "" if a else " MISMATCH"
            print(f"| {name}.{op} | {mo:.3f} | {mn:.3f} | {mn / mo:.2f}{flag} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib")
    ap.add_argument("--only", default="", help="case-name prefixes, comma separated")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--torch-python", default="/work/torchenv/bin/python")
    ap.add_argument("--ab", help="a git revision to A/B the working tree's kernels against")
    args = ap.parse_args()
    prefixes = [p for p in args.only.split(",") if p]
    names = [n for n in CASES if not prefixes or any(n.startswith(p) for p in prefixes)]
    if args.ab:
        ab(args.ab, names, args.rounds)
        return
    if args.lib:
        print(json.dumps(measure(args.lib, names)))
        return
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               SAMPAN_NUM_THREADS="1")
    runs = [("sampan", sys.executable)]
    if os.path.exists(args.torch_python):
        runs.append(("torch", args.torch_python))
    results: dict = {lib: [] for lib, _ in runs}
    for _ in range(args.rounds):
        for lib, py in runs:
            cmd = [py, __file__, "--lib", lib, "--only", args.only]
            out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
            results[lib].append(json.loads(out.stdout.strip().splitlines()[-1]))
    med = {lib: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
           for lib, rs in results.items()}
    report(med, names)


def report(med: dict, names) -> None:
    print(f"single-thread float32 GEMM (NumPy OpenBLAS, 512^3): {med['sampan']['gemm']:.1f} "
          "GFLOP/s; CPU ms (GFLOP/s)")
    torch = "torch" in med
    print("| case | op | sampan | torch | sampan/torch |" if torch else "| case | op | sampan |")
    print("|---|---|---|---|---|" if torch else "|---|---|---|")
    for name in names:
        gf = flops(CASES[name]) / 1e6
        for op in OPS:
            key = f"{name}.{op}"
            s = med["sampan"][key]
            row = f"| {name} | {op} | {s:.3f} ({gf / s:.0f})"
            if torch:
                t = med["torch"][key]
                row += f" | {t:.3f} ({gf / t:.0f}) | {s / t:.2f}"
            print(row + " |")


if __name__ == "__main__":
    main()

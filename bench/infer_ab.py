"""Batch-1 inference of two sampan checkouts, A against B: ResNet-20 (CIFAR, eval) eager and
through the paddle.inference Predictor, interleaved rounds, one subprocess per checkout.

    python bench/infer_ab.py OLD_CHECKOUT [NEW_CHECKOUT (default: this one)]
                             [--rounds 3] [--threads 1,2] [--clock wall|cpu]

Each figure is the minimum over 7 repeats of 200 calls (ms per call); the report is the
median over rounds and the ratio new/old. `--threads` sets OMP/OpenBLAS/MKL threads of the
children (several: each is measured). Use `--clock cpu` on a busy machine with one thread.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

BENCH = pathlib.Path(__file__).resolve().parent

CHILD = r'''
import json, os, sys, tempfile, time, timeit
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])
import numpy as np
import sampan as P
from train_step import paddle_models
P.seed(0)
model = paddle_models(P)["resnet20"](); model.eval()
x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype("float32")
xt = P.to_tensor(x)
def eager():
    with P.no_grad():
        model(xt)
prefix = os.path.join(tempfile.mkdtemp(), "resnet20")
P.jit.save(model, prefix, input_spec=[P.static.InputSpec([None, 3, 32, 32], "float32", "x")])
pred = P.inference.create_predictor(P.inference.Config(prefix + ".pdmodel",
                                                       prefix + ".pdiparams"))
h = pred.get_input_handle(pred.get_input_names()[0])
o = pred.get_output_handle(pred.get_output_names()[0])
def infer():
    h.copy_from_cpu(x); pred.run(); o.copy_to_cpu()
timer = time.process_time if sys.argv[3] == "cpu" else time.perf_counter
def ms(fn):
    return min(timeit.repeat(fn, number=200, repeat=7, timer=timer)) / 200 * 1e3
eager(); infer()
print(json.dumps({"eager": ms(eager), "predictor": ms(infer)}))
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new", nargs="?", default=str(BENCH.parent))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = ap.parse_args()
    trees = {"old": args.old, "new": args.new}
    threads = [int(t) for t in args.threads.split(",")]
    res: dict = {}
    for _ in range(args.rounds):
        for t in threads:
            env = dict(os.environ, OMP_NUM_THREADS=str(t), OPENBLAS_NUM_THREADS=str(t),
                       MKL_NUM_THREADS=str(t))
            for name, path in trees.items():
                out = subprocess.run([sys.executable, "-c", CHILD, path, str(BENCH),
                                      args.clock], capture_output=True, text=True, env=env)
                if out.returncode:
                    sys.exit(f"{path}: {out.stderr[-2000:]}")
                for key, value in json.loads(out.stdout).items():
                    res.setdefault((key, t, name), []).append(value)
    print(f"{'case':22s} {'old ms':>8s} {'new ms':>8s}  new/old")
    for key in ("eager", "predictor"):
        for t in threads:
            old = statistics.median(res[(key, t, "old")])
            new = statistics.median(res[(key, t, "new")])
            print(f"{key + f' {t} thread(s)':22s} {old:8.3f} {new:8.3f}  {new / old:.3f}")


if __name__ == "__main__":
    main()

"""Eager per-op cost of two sampan checkouts, A against B, in one interleaved run.

    python bench/eager_ab.py OLD_CHECKOUT [NEW_CHECKOUT (default: this one)] [--rounds 4]

Each round runs one subprocess per checkout; each figure is the minimum CPU time per call
over 7 repeats (process time, so a shared, loaded machine still gives comparable ratios),
and the report is the median over rounds with the ratio new/old.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys

CHILD = r'''
import json, sys, time, timeit
sys.path.insert(0, sys.argv[1])
import numpy as np
import sampan as paddle
x, y = paddle.ones([4]), paddle.ones([4])
xg = paddle.ones([4]); xg.stop_gradient = False
a, b = paddle.ones([4, 4]), paddle.ones([4, 4])
w, bias = paddle.ones([16]), paddle.ones([16])
x16 = paddle.ones([16]); x16.stop_gradient = w.stop_gradient = bias.stop_gradient = False
paddle.seed(0)
mlp = paddle.nn.Sequential(paddle.nn.Linear(16, 32), paddle.nn.ReLU(), paddle.nn.Linear(32, 10))
opt = paddle.optimizer.SGD(0.01, parameters=mlp.parameters())
xb = paddle.to_tensor(np.random.RandomState(0).rand(4, 16).astype("float32"))
lb = paddle.to_tensor(np.arange(4).reshape(4, 1).astype("int64"))
loss_fn = paddle.nn.CrossEntropyLoss()
def us(fn, n=20000):
    return min(timeit.repeat(fn, number=n, repeat=7, timer=time.process_time)) / n * 1e6
def chain():
    z = ((xg * xg).exp() * xg).sum(); z.backward(); xg.clear_gradient()
def affine():
    z = (x16 * w + bias).tanh().sum(); z.backward()
def affine_fwd():
    z = (x16 * w + bias).tanh().sum()
def mlp_step():
    loss = loss_fn(mlp(xb), lb); loss.backward(); opt.step(); opt.clear_grad()
def mlp_fwd():
    loss = loss_fn(mlp(xb), lb)
print(json.dumps({"add [4]": us(lambda: x + y), "add [4] grad": us(lambda: xg + y),
                  "matmul 4x4": us(lambda: paddle.matmul(a, b)),
                  "chain backward": us(chain, 3000), "affine fwd": us(affine_fwd, 3000),
                  "affine fwd+bwd": us(affine, 3000), "mlp b4 fwd": us(mlp_fwd, 1000),
                  "mlp b4 step": us(mlp_step, 1000)}))
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new", nargs="?", default=str(pathlib.Path(__file__).parents[1]))
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    runs = {"old": [], "new": []}
    for _ in range(args.rounds):
        for key in ("old", "new"):
            out = subprocess.run([sys.executable, "-c", CHILD, getattr(args, key)],
                                 capture_output=True, text=True, check=True, timeout=600)
            runs[key].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"{'case':16s} {'old us':>8s} {'new us':>8s} {'new/old':>8s}")
    for case in runs["old"][0]:
        old = statistics.median(r[case] for r in runs["old"])
        new = statistics.median(r[case] for r in runs["new"])
        print(f"{case:16s} {old:8.2f} {new:8.2f} {new / old:8.3f}")


if __name__ == "__main__":
    main()

"""to_static benchmark (issue #9): ms per training step, eager vs to_static vs a hand-built
static Program of the same model, and the first to_static call's convert + trace + compile.

    python bench/to_static.py                    # MLP and Transformer encoder, 3 rounds
    python bench/to_static.py --only mlp --steps 20 --rounds 5

Workloads and optimizers are those of bench/train_step.py (MLP 784-512-256-10 batch 128 Adam;
2 Transformer encoder layers d_model 256, seq 128, batch 16, AdamW). to_static converts the
model (`paddle.jit.to_static(model)`), the loss and optimizer stay eager, as in Paddle's
tutorial. The static Program is built from the same Layers in static mode
(`enable_static` + `program_guard`, `optimizer.minimize`) and run with one Executor.run per
step. Each (workload, mode) runs in its own subprocess with `--threads` threads (default 2,
set up by bench/libsetup.py like every comparison driver); medians.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libsetup import child_env, import_lib  # noqa: E402
from train_step import _data, paddle_models  # noqa: E402

MODES = ("eager", "to_static", "static")
OPTS = {"mlp": lambda P, ps: P.optimizer.Adam(1e-3, parameters=ps),
        "transformer": lambda P, ps: P.optimizer.AdamW(1e-4, parameters=ps)}


def _dynamic_step(P, name: str, static: bool):
    import numpy as np
    P.seed(0)
    model = paddle_models(P)[name]()
    x, y = (P.to_tensor(a) for a in _data(name, np.random.default_rng(0)))
    if static:
        P.jit.to_static(model)
    opt = OPTS[name](P, model.parameters())
    ce = P.nn.CrossEntropyLoss()

    def forward():
        return ce(model(x), y)

    def step():
        loss = forward()
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step, forward


def _static_step(P, name: str):
    import numpy as np
    P.seed(0)
    model = paddle_models(P)[name]()
    xv, yv = _data(name, np.random.default_rng(0))
    P.enable_static()
    main, startup = P.static.Program(), P.static.Program()
    with P.static.program_guard(main, startup):
        x = P.static.data("x", list(xv.shape), "float32")
        y = P.static.data("y", list(yv.shape), "int64")
        loss = P.nn.CrossEntropyLoss()(model(x), y)
        OPTS[name](P, model.parameters()).minimize(loss)
    exe = P.static.Executor()
    exe.run(startup)
    feed = {"x": xv, "y": yv}

    def step():
        exe.run(main, feed=feed, fetch_list=[loss])
    return step


def measure(name: str, mode: str, steps: int, threads: int) -> dict:
    P = import_lib("sampan", threads)
    res = {}
    if mode == "static":
        step = _static_step(P, name)
    else:
        step, forward = _dynamic_step(P, name, mode == "to_static")
        if mode == "to_static":
            t0 = time.perf_counter()
            loss = forward()            # convert + trace + compile the forward plan + run
            t1 = time.perf_counter()
            loss.backward()             # build the backward Program + compile + run
            t2 = time.perf_counter()
            res["first forward ms"] = (t1 - t0) * 1e3
            res["first backward ms"] = (t2 - t1) * 1e3
    for _ in range(2):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    res["step ms"] = statistics.median(times) * 1e3
    if mode == "to_static":
        t0 = time.perf_counter()
        for _ in range(steps):
            forward().backward()
        steady = (time.perf_counter() - t0) / steps * 1e3
        res["first call overhead ms"] = res["first forward ms"] + res["first backward ms"] \
            - steady
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--run")     # "workload,mode": measure in this process
    ap.add_argument("--only", default="mlp,transformer")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    if args.run:
        name, mode = args.run.split(",")
        print(json.dumps(measure(name, mode, args.steps, args.threads)))
        return
    env = child_env(args.threads)
    results: dict = {}
    for _ in range(args.rounds):
        for name in args.only.split(","):
            for mode in MODES:
                out = subprocess.run([sys.executable, __file__, "--run", f"{name},{mode}",
                                      "--steps", str(args.steps), "--threads",
                                      str(args.threads)], capture_output=True,
                                     text=True, env=env, check=True)
                res = json.loads(out.stdout.strip().splitlines()[-1])
                for key, value in res.items():
                    results.setdefault((name, mode, key), []).append(value)
    med = {k: statistics.median(v) for k, v in results.items()}
    print("| workload | eager ms | to_static ms | static Program ms | to_static/eager | "
          "to_static/static | first call overhead ms (fwd convert+trace+compile / bwd build) |")
    print("|---|---|---|---|---|---|---|")
    for name in args.only.split(","):
        e, s, p = (med[(name, m, "step ms")] for m in MODES)
        first = med[(name, "to_static", "first call overhead ms")]
        fwd = med[(name, "to_static", "first forward ms")]
        bwd = med[(name, "to_static", "first backward ms")]
        print(f"| {name} | {e:.2f} | {s:.2f} | {p:.2f} | {s / e:.2f} | {s / p:.2f} | "
              f"{first:.0f} ({fwd:.0f} / {bwd:.0f}) |")


if __name__ == "__main__":
    main()

"""Static-graph training benchmark: MLP 784-512-256-10, batch 128, float32, softmax
cross-entropy, Adam, one training step per Executor.run; static vs eager, sampan vs Paddle.

    python bench/static_mlp.py                            # sampan only
    python bench/static_mlp.py --ref-python /work/venvs/ref/bin/python   # + Paddle 3.3.1

The model is written once against the Paddle API (`_static_step`, `_eager_step`) and run
with `import sampan as paddle` or the real paddle, each mode in its own subprocess
(`--mode NAME` prints JSON); the driver alternates the modes over several rounds and
reports medians. Also the Executor's per-op overhead (a chain of 200 adds on [4] float32).
Each subprocess is set up by bench/libsetup.py (`--threads`, default 2; Paddle's
MKL_DEBUG_CPU_TYPE=5 and its own thread setter).
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

SAMPAN_MODES = ("sampan-static", "sampan-static-fused", "sampan-eager")
PADDLE_MODES = ("paddle-static", "paddle-eager")
BATCH, DIMS = 128, (784, 512, 256, 10)


def _data():
    import numpy as np
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, DIMS[0])).astype("float32")
    y = rng.integers(0, DIMS[-1], (BATCH, 1)).astype("int64")
    return x, y


def _cross_entropy(P, logits, label):
    """F.cross_entropy; a one-hot composite where the library's loss rejects Variables."""
    F = P.nn.functional
    try:
        return F.cross_entropy(logits, label), "F.cross_entropy"
    except TypeError:
        onehot = F.one_hot(P.squeeze(label, 1), DIMS[-1])
        loss = P.mean(P.logsumexp(logits, axis=1) - (logits * onehot).sum(axis=1))
        return loss, "one-hot composite"


def _static_step(P, fused: bool):
    """(step function, info) for the static program: data -> 3 fc -> loss -> Adam."""
    P.enable_static()
    S = P.static
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        x = S.data("x", [BATCH, DIMS[0]], "float32")
        y = S.data("y", [BATCH, 1], "int64")
        h = S.nn.fc(x, DIMS[1], activation="relu")
        h = S.nn.fc(h, DIMS[2], activation="relu")
        logits = S.nn.fc(h, DIMS[3])
        loss, how = _cross_entropy(P, logits, y)
        try:
            opt = P.optimizer.Adam(learning_rate=1e-3)
        except AttributeError:  # sampan: Optimizer(parameters=None) not yet allowed
            opt = P.optimizer.Adam(learning_rate=1e-3, parameters=main.all_parameters())
        opt.minimize(loss)
    exe = S.Executor(P.CPUPlace())
    exe.run(startup)
    program = main
    if fused:
        strategy = S.BuildStrategy()
        strategy.fuse_elewise_add_act_ops = True
        strategy.fuse_gemm_epilogue = True
        strategy.enable_inplace = True
        program = S.CompiledProgram(main, build_strategy=strategy)
    xv, yv = _data()
    feed = {"x": xv, "y": yv}

    def step():
        return exe.run(program, feed=feed, fetch_list=[loss])[0]
    return step, {"ops": len(main.global_block().ops), "loss": how}


def _eager_step(P):
    P.disable_static()
    nn = P.nn
    model = nn.Sequential(nn.Linear(DIMS[0], DIMS[1]), nn.ReLU(), nn.Linear(DIMS[1], DIMS[2]),
                          nn.ReLU(), nn.Linear(DIMS[2], DIMS[3]))
    opt = P.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    xv, yv = _data()
    x, y = P.to_tensor(xv), P.to_tensor(yv)

    def step():
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return step, {}


def _per_op_us(P, n_ops: int = 200) -> float:
    """Executor time per op: a chain of n_ops adds on a [4] float32 variable."""
    import numpy as np
    P.enable_static()
    S = P.static
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        x = S.data("x", [4], "float32")
        y = x
        for _ in range(n_ops):
            y = y + x
    exe = S.Executor(P.CPUPlace())
    feed = {"x": np.ones(4, "float32")}
    exe.run(main, feed=feed, fetch_list=[y])
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        exe.run(main, feed=feed, fetch_list=[y])
        times.append(time.perf_counter() - t0)
    return statistics.median(times) / n_ops * 1e6


def measure(mode: str, steps: int, threads: int) -> dict:
    P = import_lib("sampan" if mode.startswith("sampan") else "paddle", threads)
    if mode.endswith("eager"):
        step, info = _eager_step(P)
    else:
        step, info = _static_step(P, fused=mode.endswith("fused"))
    first = float(step())
    for _ in range(4):
        step()
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step()
        times.append(time.perf_counter() - t0)
    last = float(step())
    res = {"median_ms": statistics.median(times) * 1e3, "min_ms": min(times) * 1e3,
           "loss_first": first, "loss_last": last, **info}
    if mode in ("sampan-static", "paddle-static"):
        res["per_op_us"] = _per_op_us(P)
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode")
    ap.add_argument("--ref-python", help="python with paddlepaddle installed")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    if args.mode:
        print(json.dumps(measure(args.mode, args.steps, args.threads)))
        return
    env = child_env(args.threads, {"PATH": "/usr/bin:/bin"})
    runs = [(m, sys.executable) for m in SAMPAN_MODES]
    if args.ref_python:
        runs += [(m, args.ref_python) for m in PADDLE_MODES]
    results: dict = {m: [] for m, _ in runs}
    for _ in range(args.rounds):
        for mode, py in runs:
            out = subprocess.run([py, __file__, "--mode", mode, "--steps", str(args.steps),
                                  "--threads", str(args.threads)],
                                 capture_output=True, text=True, env=env)
            if out.returncode:
                print(f"{mode} failed:\n{out.stderr[-2000:]}", file=sys.stderr)
                continue
            results[mode].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(f"MLP {'-'.join(map(str, DIMS))} batch {BATCH} Adam, ms per training step "
          f"(median over {args.rounds} runs of the per-run median of {args.steps} steps)")
    print("| mode | median ms | min ms | loss first -> last | static ops | per-op µs |")
    print("|---|---|---|---|---|---|")
    for mode, rs in results.items():
        if not rs:
            continue
        med = statistics.median(r["median_ms"] for r in rs)
        mn = min(r["min_ms"] for r in rs)
        per_op = [r["per_op_us"] for r in rs if "per_op_us" in r]
        print(f"| {mode} | {med:.2f} | {mn:.2f} | {rs[0]['loss_first']:.3f} -> "
              f"{rs[0]['loss_last']:.3f} | {rs[0].get('ops', '-')} | "
              f"{statistics.median(per_op):.2f} |" if per_op else
              f"| {mode} | {med:.2f} | {mn:.2f} | {rs[0]['loss_first']:.3f} -> "
              f"{rs[0]['loss_last']:.3f} | {rs[0].get('ops', '-')} | - |")
    losses = {m: rs[0].get("loss") for m, rs in results.items() if rs and rs[0].get("loss")}
    if losses:
        print(f"static loss built with: {losses}")


if __name__ == "__main__":
    main()

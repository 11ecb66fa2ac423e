"""AMP benchmark (issue #13): bfloat16 O1/O2 vs float32 on the Transformer workload of
bench/train_step.py (2 encoder layers, d_model 256, 4 heads, ff 1024, seq 128, batch 16, AdamW).

    python bench/amp.py --steps 5 --rounds 3

Reports the bytes of activations the tape saves for backward (walked from the loss's GradNode
after the forward, each array counted once, parameters excluded) and the median step time
(wall and process CPU time; the CPU time is steadier on a shared machine).
Modes run interleaved in one process, 2 BLAS threads as in train_step.py.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import sampan as P  # noqa: E402
from bench.train_step import _data, paddle_models  # noqa: E402

MODES = {"float32": None, "bf16-O1": "O1", "bf16-O2": "O2"}


def saved_bytes(loss, params) -> int:
    """Bytes of the arrays saved for backward in the graph behind `loss` (not parameters)."""
    skip = {id(p._data) for p in params}
    seen, total = set(), 0
    stack, visited = [loss._node], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in visited:
            continue
        visited.add(id(node))
        arrays = [t._data for t in (node.saved or {}).values() if hasattr(t, "_data")]
        arrays += [entry[1] for entry in node.saved_out or ()]
        for arr in arrays:
            if isinstance(arr, np.ndarray) and id(arr) not in seen and id(arr) not in skip:
                seen.add(id(arr))
                total += arr.nbytes
        for edge in node.edges:
            if isinstance(edge, tuple):
                stack.append(edge[0])
    return total


def make_step(level):
    rng = np.random.default_rng(0)
    P.seed(0)
    model = paddle_models(P)["transformer"]()
    params = model.parameters()
    opt = P.optimizer.AdamW(1e-4, parameters=params)
    if level == "O2":
        model, opt = P.amp.decorate(model, opt, level="O2", dtype="bfloat16")
    x, y = _data("transformer", rng)
    x, y = P.to_tensor(x), P.to_tensor(y)
    ce = P.nn.CrossEntropyLoss()
    record = {}

    def step():
        with P.amp.auto_cast(enable=level is not None, level=level or "O1", dtype="bfloat16"):
            logits = model(x)
        loss = ce(logits.astype("float32"), y)
        record["saved"] = saved_bytes(loss, params)
        loss.backward()
        opt.step()
        opt.clear_grad()
        record["loss"] = float(loss)
    return step, record


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    runs = {name: make_step(level) for name, level in MODES.items()}
    times = {name: [] for name in MODES}
    cpu = {name: [] for name in MODES}
    for _ in range(args.rounds):
        for name, (step, _) in runs.items():
            step()  # warm-up of the round
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(args.steps):
                step()
            times[name].append((time.perf_counter() - t0) / args.steps * 1e3)
            cpu[name].append((time.process_time() - c0) / args.steps * 1e3)
    base = statistics.median(times["float32"])
    base_cpu = statistics.median(cpu["float32"])
    base_mem = runs["float32"][1]["saved"]
    print(f"{'mode':<10} {'saved for backward (MB)':>24} {'vs fp32':>8} {'ms/step':>9} "
          f"{'vs fp32':>8} {'cpu ms':>8} {'vs fp32':>8} {'loss':>8}")
    for name, (_, record) in runs.items():
        ms = statistics.median(times[name])
        cms = statistics.median(cpu[name])
        print(f"{name:<10} {record['saved'] / 2 ** 20:>24.1f} {record['saved'] / base_mem:>8.2f} "
              f"{ms:>9.1f} {ms / base:>8.2f} {cms:>8.1f} {cms / base_cpu:>8.2f} "
              f"{record['loss']:>8.4f}")


if __name__ == "__main__":
    main()

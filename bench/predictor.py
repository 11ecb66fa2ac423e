"""Inference latency (issue #11, "Speed"): the paddle.inference Predictor vs eager, ms per
call, batch 1 and batch 32, on ResNet-20 (CIFAR, 32x32) and a 2-layer Transformer encoder
(d_model 256, 4 heads, ff 1024, seq 128) from bench/train_step.py, random weights, eval mode.

    python bench/predictor.py                           # sampan only
    python bench/predictor.py --ref-python PATH         # also PaddlePaddle (that venv)
    python bench/predictor.py --only resnet20 --batches 1 --steps 20
    python bench/predictor.py --ref-python PATH --threads 1 --clock cpu   # on a busy machine

Each library runs in its own subprocess with `--threads` BLAS threads (default 2); rounds
interleave libraries and the medians are reported. For sampan, also the Predictor with `enable_onnxruntime()` and
onnxruntime alone on the `sampan.onnx.export` of the same model (when onnxruntime is
installed). `--clock cpu` times with the process CPU
clock instead of the wall clock: with one thread it approximates the latency on an idle core
when other jobs share the machine. The Predictor of each library loads what that library's
`jit.save` wrote for the same architecture. Outputs of the sampan Predictor are checked
against sampan eager before timing.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libsetup import child_env, import_lib  # noqa: E402
from train_step import paddle_models  # noqa: E402

MODELS = ("resnet20", "transformer")


def _input(name: str, batch: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    shape = (batch, 3, 32, 32) if name == "resnet20" else (batch, 128, 256)
    return rng.standard_normal(shape).astype("float32")


def _time(fn, steps: int, clock) -> float:
    for _ in range(2):   # warm-up: plan compile, allocator
        fn()
    times = []
    for _ in range(steps):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times) * 1e3


def _spec(P, name: str):
    spec = [None, 3, 32, 32] if name == "resnet20" else [None, 128, 256]
    return [P.static.InputSpec(spec, "float32", "x")]


def _predictor(P, model, name: str, folder: str, threads: int, ort: bool = False):
    prefix = os.path.join(folder, name)
    if not os.path.exists(prefix + ".pdiparams"):
        P.jit.save(model, prefix, input_spec=_spec(P, name))
    model_file = prefix + (".pdmodel" if os.path.exists(prefix + ".pdmodel") else ".json")
    config = P.inference.Config(model_file, prefix + ".pdiparams")
    config.set_cpu_math_library_num_threads(threads)
    if hasattr(config, "disable_glog_info"):
        config.disable_glog_info()
    if ort:
        config.enable_onnxruntime()
    return P.inference.create_predictor(config)


def _onnxruntime(P, model, name: str, folder: str, threads: int, batches, steps, clock) -> dict:
    """sampan's Predictor with enable_onnxruntime, and onnxruntime alone on the model
    that sampan.onnx.export writes (same threads)."""
    try:
        import onnxruntime
    except ImportError:
        return {}
    predictor = _predictor(P, model, name, folder, threads, ort=True)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    out = predictor.get_output_handle(predictor.get_output_names()[0])
    path = os.path.join(folder, name + "_onnx")
    P.onnx.export(model, path, input_spec=_spec(P, name))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    session = onnxruntime.InferenceSession(path + ".onnx", options,
                                           providers=["CPUExecutionProvider"])
    feed_name = session.get_inputs()[0].name
    res = {}
    for b in batches:
        x = _input(name, b)

        def infer():
            handle.copy_from_cpu(x)
            predictor.run()
            return out.copy_to_cpu()
        res[f"{name} b{b} predictor+onnxruntime"] = _time(infer, steps, clock)
        res[f"{name} b{b} onnxruntime alone"] = _time(
            lambda: session.run(None, {feed_name: x}), steps, clock)
    return res


def measure(lib: str, names, batches, steps: int, threads: int, clock_name: str) -> dict:
    P = import_lib(lib, threads)
    P.seed(0)
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    res = {}
    folder = tempfile.mkdtemp(prefix=f"bench_predictor_{lib}_")
    for name in names:
        model = paddle_models(P)[name]()
        model.eval()
        t0 = time.perf_counter()
        predictor = _predictor(P, model, name, folder, threads)
        res[f"{name} load ms"] = (time.perf_counter() - t0) * 1e3
        handle = predictor.get_input_handle(predictor.get_input_names()[0])
        out = predictor.get_output_handle(predictor.get_output_names()[0])
        for b in batches:
            x = _input(name, b)
            xt = P.to_tensor(x)

            def eager():
                with P.no_grad():
                    return model(xt)

            def infer():
                handle.copy_from_cpu(x)
                predictor.run()
                return out.copy_to_cpu()
            if lib == "sampan":
                np.testing.assert_allclose(infer(), eager().numpy(), rtol=1e-4, atol=1e-4)
            res[f"{name} b{b} eager"] = _time(eager, steps, clock)
            res[f"{name} b{b} predictor"] = _time(infer, steps, clock)
        if lib == "sampan":
            res.update(_onnxruntime(P, model, name, folder, threads, batches, steps, clock))
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib")
    ap.add_argument("--ref-python")
    ap.add_argument("--only", default=",".join(MODELS))
    ap.add_argument("--batches", default="1,32")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    args = ap.parse_args()
    names, batches = args.only.split(","), [int(b) for b in args.batches.split(",")]
    if args.lib:
        print(json.dumps(measure(args.lib, names, batches, args.steps, args.threads,
                                 args.clock)))
        return
    n = str(args.threads)
    env = child_env(args.threads)   # bench/libsetup.py: threads, Paddle's MKL_DEBUG_CPU_TYPE
    runs = [("sampan", sys.executable)] + ([("paddle", args.ref_python)] if args.ref_python
                                          else [])
    results: dict = {lib: [] for lib, _ in runs}
    for _ in range(args.rounds):
        for lib, py in runs:
            cmd = [py, __file__, "--lib", lib, "--only", args.only, "--batches", args.batches,
                   "--steps", str(args.steps), "--threads", n, "--clock", args.clock]
            out = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if out.returncode:
                sys.exit(f"{lib} run failed:\n{out.stderr[-3000:]}")
            results[lib].append(json.loads(out.stdout.strip().splitlines()[-1]))
    med = {lib: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
           for lib, rs in results.items()}
    libs = [lib for lib, _ in runs]
    print("| measurement (ms) | " + " | ".join(libs) + " | sampan/paddle |")
    print("|---" * (len(libs) + 2) + "|")
    for k in med["sampan"]:
        vals = [med[lib].get(k) for lib in libs]
        # the onnxruntime rows compare with Paddle's own Predictor
        ref = k.replace(" predictor+onnxruntime", " predictor").replace(
            " onnxruntime alone", " predictor")
        ratio = f"{med['sampan'][k] / med['paddle'][ref]:.2f}" \
            if ref in med.get("paddle", {}) else "-"
        print(f"| {k} | " + " | ".join(f"{v:.2f}" if v is not None else "-" for v in vals)
              + f" | {ratio} |")


if __name__ == "__main__":
    main()

"""HTTP serving load (issue #17, "Serving"): `python -m sampan.serving` on 127.0.0.1 serving
LeNet (1x28x28, the quickstart's digit model, random weights) saved with jit.save (or its
ONNX export), driven by `--clients` threads (one keep-alive httpx client each) sending
`--requests` single-sample requests in all; every configuration stops by itself.

    python bench/serving_load.py                       # 2,000 requests, 16 clients
    python bench/serving_load.py --requests 500 --only json-batch

Reports per configuration: client-side latency p50/p99 (ms), throughput (requests/s), errors
(non-200 answers and transport errors), mean executed batch size (from /metrics), the
server's CPU time per request (user + system, from /proc: less sensitive to a busy machine
than latency), and the server's resident memory after the first 10% of requests and at the end (flat memory: the
end is not above the start by more than allocator noise). Every answer is checked against the
Predictor's output for the same sample.
"""
from __future__ import annotations

import argparse
import io
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import sampan as paddle  # noqa: E402

# name -> (model file kind, body, server options)
CONFIGS = {
    "json-batch": ("pdmodel", "json", ["--max-batch-size", "32", "--batch-timeout-ms", "2"]),
    "json-nobatch": ("pdmodel", "json", ["--max-batch-size", "1"]),
    "npy-batch": ("pdmodel", "npy", ["--max-batch-size", "32", "--batch-timeout-ms", "2"]),
    "onnx-npy-batch": ("onnx", "npy", ["--max-batch-size", "32", "--batch-timeout-ms", "2"]),
}


def save_models(folder: str) -> dict:
    paddle.seed(0)
    net = paddle.vision.models.LeNet()
    net.eval()
    spec = [paddle.static.InputSpec([None, 1, 28, 28], "float32", "x")]
    paddle.jit.save(net, os.path.join(folder, "lenet"), input_spec=spec)
    paths = {"pdmodel": os.path.join(folder, "lenet")}
    try:
        import onnxruntime  # noqa: F401
        paddle.onnx.export(net, os.path.join(folder, "lenet"), input_spec=spec)
        paths["onnx"] = os.path.join(folder, "lenet.onnx")
    except ImportError:
        pass
    return paths


def start(model: str, options: list, blas_threads: int | None) -> tuple:
    env = dict(os.environ)
    if blas_threads:
        for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            env[var] = str(blas_threads)
    proc = subprocess.Popen([sys.executable, "-m", "sampan.serving", "--model", model,
                             "--port", "0", *options], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()   # printed once the model is loaded and the port bound
    found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if not found:
        proc.kill()
        raise SystemExit(f"server did not start: {line}{proc.stderr.read()}")
    return proc, f"http://127.0.0.1:{found.group(1)}"


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) / 1024


def cpu_s(pid: int) -> float:
    """User + system CPU seconds of the process so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def body_of(x: np.ndarray, kind: str) -> tuple:
    if kind == "json":
        return {"json": {"inputs": {"x": x.tolist()}}}
    buf = io.BytesIO()
    np.save(buf, x)
    return {"content": buf.getvalue(), "headers": {"Content-Type": "application/x-npy",
                                                   "Accept": "application/x-npy"}}


def answer_of(r, kind: str) -> np.ndarray:
    if kind == "json":
        return np.asarray(list(r.json()["outputs"].values())[0], "float32")
    return np.load(io.BytesIO(r.content))


def drive(url: str, pid: int, kind: str, xs: np.ndarray, clients: int) -> dict:
    import httpx
    n, lock, nxt = len(xs), threading.Lock(), [0]
    lat, outs, errors, rss = [0.0] * n, [None] * n, [], {}

    def client() -> None:
        with httpx.Client(base_url=url, timeout=60) as c:
            while True:
                with lock:
                    i = nxt[0]
                    nxt[0] += 1
                if i >= n:
                    return
                if i == n // 10:
                    rss["start"], rss["cpu0"] = rss_mb(pid), cpu_s(pid)
                kw = body_of(xs[i:i + 1], kind)
                t0 = time.perf_counter()
                try:
                    r = c.post("/v1/models/lenet:predict", **kw)
                    lat[i] = time.perf_counter() - t0
                    if r.status_code != 200:
                        errors.append(r.status_code)
                    else:
                        outs[i] = answer_of(r, kind)
                except httpx.HTTPError as e:
                    errors.append(type(e).__name__)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    rss["end"], cpu = rss_mb(pid), cpu_s(pid) - rss["cpu0"]
    metrics = httpx.get(url + "/metrics").text
    count = float(re.search(r"^sampan_serving_batch_size_count (\S+)", metrics, re.M)[1])
    total = float(re.search(r"^sampan_serving_batch_size_sum (\S+)", metrics, re.M)[1])
    ms = np.array(lat) * 1000
    return {"p50": np.percentile(ms, 50), "p99": np.percentile(ms, 99), "rps": n / wall,
            "errors": len(errors), "batch": total / count, "outs": outs,
            "cpu_ms": cpu * 1000 / (n - n // 10), **rss}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--only", choices=list(CONFIGS), action="append")
    ap.add_argument("--blas-threads", type=int, default=None,
                    help="OMP/OPENBLAS/MKL_NUM_THREADS of the server (default: inherited)")
    args = ap.parse_args()
    from sampan.inference import Config, create_predictor
    xs = np.random.default_rng(0).standard_normal((args.requests, 1, 28, 28), "float32")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        paths = save_models(folder)
        want = create_predictor(Config(paths["pdmodel"])).run([xs])[0].numpy()
        for name in args.only or CONFIGS:
            model_kind, kind, options = CONFIGS[name]
            if model_kind not in paths:
                print(f"skipped {name}: onnxruntime is not installed")
                continue
            proc, url = start(paths[model_kind], options, args.blas_threads)
            try:
                res = drive(url, proc.pid, kind, xs, args.clients)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(60)
            got = [o for o in res["outs"] if o is not None]
            if len(got) == len(xs):
                np.testing.assert_allclose(np.concatenate(got), want, rtol=1e-4, atol=1e-5)
            rows.append(f"| {name} | {' '.join(options)} | {res['p50']:.2f} | "
                        f"{res['p99']:.2f} | {res['rps']:.0f} | {res['errors']} | "
                        f"{res['batch']:.2f} | {res['cpu_ms']:.2f} | "
                        f"{res['start']:.0f} -> {res['end']:.0f} |")
            print(rows[-1], flush=True)
    print(f"\n{args.requests} requests, {args.clients} clients, LeNet 1x28x28, one sample "
          f"per request, server BLAS threads {args.blas_threads or 'inherited'}\n")
    print("| configuration | server options | p50 ms | p99 ms | requests/s | errors | "
          "mean batch | server CPU ms/request | server RSS MB (10% -> end) |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()

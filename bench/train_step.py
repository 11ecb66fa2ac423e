"""Training-step benchmarks of issue #3: sampan vs PaddlePaddle vs PyTorch, ms per step.

    python bench/train_step.py                          # sampan only
    python bench/train_step.py --ref-python PATH        # also Paddle and PyTorch (that venv)
    python bench/train_step.py --only mlp,lenet --steps 20

Workloads: MLP 784-512-256-10 (batch 128, Adam), LeNet-5 (batch 64, Momentum), ResNet-20
CIFAR (batch 32, Momentum), 2-layer LSTM PTB-small (seq 35, batch 20, vocab 10000, hidden
200, SGD), 2 Transformer encoder layers (d_model 256, 4 heads, ff 1024, seq 128, batch 16,
AdamW), ResNet-20 batch-1 inference. The sampan and Paddle models are the same code (`P` is
the framework module); PyTorch gets the equivalent model. Each library runs in its own
subprocess with `--threads` threads (default 2); the driver interleaves libraries over rounds
and reports medians. Every library also reports the peak RSS growth of the ResNet-20
step (`--peak-mem`; ru_maxrss after minus before building the model and running its steps:
run `--only resnet20` so earlier workloads' peaks do not hide it). `--clock cpu` times with the process CPU clock (with `--threads 1` it
approximates the latency on an idle core when the machine is busy).

Thread settings and Paddle's MKL_DEBUG_CPU_TYPE=5 come from bench/libsetup.py (shared by
every comparison driver; its docstring says why). PyTorch runs from `--torch-python`, else the
`--ref-python` venv when it has torch, else /work/torchenv/bin/python.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from libsetup import child_env, import_lib, torch_python  # noqa: E402

WORKLOADS = ("mlp", "lenet", "resnet20", "lstm", "transformer", "resnet20_infer")


# --- models in the Paddle API (run by sampan and by PaddlePaddle) -------------------------
def paddle_models(P):
    nn = P.nn

    class BasicBlock(nn.Layer):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2D(cin, cout, 3, stride, 1, bias_attr=False)
            self.bn1 = nn.BatchNorm2D(cout)
            self.conv2 = nn.Conv2D(cout, cout, 3, 1, 1, bias_attr=False)
            self.bn2 = nn.BatchNorm2D(cout)
            self.short = None
            if stride != 1 or cin != cout:
                self.short = nn.Sequential(nn.Conv2D(cin, cout, 1, stride, bias_attr=False),
                                           nn.BatchNorm2D(cout))

        def forward(self, x):
            out = P.nn.functional.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return P.nn.functional.relu(out + (x if self.short is None else self.short(x)))

    class ResNet20(nn.Layer):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2D(3, 16, 3, 1, 1, bias_attr=False),
                                      nn.BatchNorm2D(16), nn.ReLU())
            blocks, cin = [], 16
            for cout, stride in ((16, 1), (32, 2), (64, 2)):
                for i in range(3):
                    blocks.append(BasicBlock(cin, cout, stride if i == 0 else 1))
                    cin = cout
            self.blocks = nn.Sequential(*blocks)
            self.pool = nn.AdaptiveAvgPool2D(1)
            self.fc = nn.Linear(64, 10)

        def forward(self, x):
            return self.fc(P.flatten(self.pool(self.blocks(self.stem(x))), 1))

    class PTBLSTM(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10000, 200)
            self.lstm = nn.LSTM(200, 200, num_layers=2)
            self.fc = nn.Linear(200, 10000)

        def forward(self, x):
            out, _ = self.lstm(self.emb(x))
            return self.fc(out)

    class Encoder(nn.Layer):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.1)
            self.enc = nn.TransformerEncoder(layer, 2)
            self.fc = nn.Linear(256, 10)

        def forward(self, x):
            return self.fc(self.enc(x).mean(axis=1))

    def mlp():
        return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                             nn.Linear(256, 10))

    def lenet():
        return nn.Sequential(nn.Conv2D(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2D(2, 2),
                             nn.Conv2D(6, 16, 5), nn.ReLU(), nn.MaxPool2D(2, 2), nn.Flatten(),
                             nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                             nn.Linear(84, 10))

    return {"mlp": mlp, "lenet": lenet, "resnet20": ResNet20, "lstm": PTBLSTM,
            "transformer": Encoder}


def paddle_step(P, name: str):
    rng = np.random.default_rng(0)
    models = paddle_models(P)
    if name == "resnet20_infer":
        model = models["resnet20"]()
        model.eval()
        x = P.to_tensor(rng.standard_normal((1, 3, 32, 32)).astype("float32"))

        def infer():
            with P.no_grad():
                model(x)
        return infer
    model = models[name]()
    x, y = _data(name, rng)
    x = P.to_tensor(x)
    y = P.to_tensor(y)
    params = model.parameters()
    opt = {"mlp": lambda: P.optimizer.Adam(1e-3, parameters=params),
           "lenet": lambda: P.optimizer.Momentum(0.01, 0.9, parameters=params),
           "resnet20": lambda: P.optimizer.Momentum(0.1, 0.9, parameters=params),
           "lstm": lambda: P.optimizer.SGD(1.0, parameters=params),
           "transformer": lambda: P.optimizer.AdamW(1e-4, parameters=params)}[name]()
    ce = P.nn.CrossEntropyLoss()

    def step():
        logits = model(x)
        if name == "lstm":
            loss = ce(logits.reshape([-1, 10000]), y.reshape([-1]))
        else:
            loss = ce(logits, y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step


# --- the same in PyTorch -------------------------------------------------------------------
def torch_step(T, name: str):
    nn = T.nn
    rng = np.random.default_rng(0)

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.short = None
            if stride != 1 or cin != cout:
                self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                           nn.BatchNorm2d(cout))

        def forward(self, x):
            out = T.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return T.relu(out + (x if self.short is None else self.short(x)))

    def resnet20():
        blocks, cin = [], 16
        for cout, stride in ((16, 1), (32, 2), (64, 2)):
            for i in range(3):
                blocks.append(BasicBlock(cin, cout, stride if i == 0 else 1))
                cin = cout
        return nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16),
                             nn.ReLU(), *blocks, nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                             nn.Linear(64, 10))

    class PTBLSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10000, 200)
            self.lstm = nn.LSTM(200, 200, num_layers=2, batch_first=True)
            self.fc = nn.Linear(200, 10000)

        def forward(self, x):
            return self.fc(self.lstm(self.emb(x))[0])

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.1, batch_first=True)
            self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.fc = nn.Linear(256, 10)

        def forward(self, x):
            return self.fc(self.enc(x).mean(1))

    build = {
        "mlp": lambda: nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256),
                                     nn.ReLU(), nn.Linear(256, 10)),
        "lenet": lambda: nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(),
                                       nn.MaxPool2d(2, 2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                                       nn.MaxPool2d(2, 2), nn.Flatten(), nn.Linear(400, 120),
                                       nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                                       nn.Linear(84, 10)),
        "resnet20": resnet20, "lstm": PTBLSTM, "transformer": Encoder}
    if name == "resnet20_infer":
        model = resnet20().eval()
        x = T.tensor(rng.standard_normal((1, 3, 32, 32)).astype("float32"))

        def infer():
            with T.no_grad():
                model(x)
        return infer
    model = build[name]()
    x, y = _data(name, rng)
    x, y = T.tensor(x), T.tensor(y)
    p = model.parameters()
    opt = {"mlp": lambda: T.optim.Adam(p, 1e-3),
           "lenet": lambda: T.optim.SGD(p, 0.01, momentum=0.9),
           "resnet20": lambda: T.optim.SGD(p, 0.1, momentum=0.9),
           "lstm": lambda: T.optim.SGD(p, 1.0),
           "transformer": lambda: T.optim.AdamW(p, 1e-4)}[name]()
    ce = nn.CrossEntropyLoss()

    def step():
        logits = model(x)
        loss = ce(logits.reshape(-1, 10000), y.reshape(-1)) if name == "lstm" else ce(logits, y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return step


def _data(name: str, rng):
    if name == "mlp":
        return rng.standard_normal((128, 784)).astype("float32"), rng.integers(0, 10, 128)
    if name == "lenet":
        return rng.standard_normal((64, 1, 28, 28)).astype("float32"), rng.integers(0, 10, 64)
    if name == "resnet20":
        return rng.standard_normal((32, 3, 32, 32)).astype("float32"), rng.integers(0, 10, 32)
    if name == "lstm":
        return rng.integers(0, 10000, (20, 35)), rng.integers(0, 10000, (20, 35))
    return rng.standard_normal((16, 128, 256)).astype("float32"), rng.integers(0, 10, 16)


def _peak_rss_mb() -> float:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def measure(lib: str, names, steps: int, peak_mem: bool, threads: int = 2,
            clock_name: str = "wall") -> dict:
    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    module = import_lib(lib, threads)
    build = torch_step if lib == "torch" else paddle_step
    make = lambda n: build(module, n)  # noqa: E731
    res = {}
    for name in names:
        before = _peak_rss_mb()
        step = make(name)
        for _ in range(2):  # warm-up (caches, allocator)
            step()
        times = []
        for _ in range(steps):
            t0 = clock()
            step()
            times.append(clock() - t0)
        res[name] = statistics.median(times) * 1e3
        if peak_mem and name == "resnet20":
            res["resnet20 peak MB"] = _peak_rss_mb() - before
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib")
    ap.add_argument("--ref-python")
    ap.add_argument("--only", default=",".join(WORKLOADS))
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--peak-mem", action="store_true")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--torch-python", help="a venv with PyTorch (default: --ref-python)")
    args = ap.parse_args()
    names = args.only.split(",")
    if args.lib:
        print(json.dumps(measure(args.lib, names, args.steps, args.peak_mem, args.threads,
                                 args.clock)))
        return
    n = str(args.threads)
    env = child_env(args.threads)
    runs = [("sampan", sys.executable)]
    if args.ref_python:
        runs.append(("paddle", args.ref_python))
    torch_py = torch_python(args.torch_python, args.ref_python)
    if torch_py:
        runs.append(("torch", torch_py))
    results: dict = {lib: [] for lib, _ in runs}
    for _ in range(args.rounds):
        for lib, py in runs:
            cmd = [py, __file__, "--lib", lib, "--only", args.only, "--steps", str(args.steps),
                   "--threads", n, "--clock", args.clock]
            cmd.append("--peak-mem")
            out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
            results[lib].append(json.loads(out.stdout.strip().splitlines()[-1]))
    keys = list(results["sampan"][0])
    med = {lib: {k: statistics.median(r[k] for r in rs) for k in rs[0]}
           for lib, rs in results.items()}
    libs = [lib for lib, _ in runs]
    print("| workload (ms/step) | " + " | ".join(libs) + " | sampan/paddle | sampan/torch |")
    print("|---" * (len(libs) + 3) + "|")
    for k in keys:
        vals = [med[lib].get(k) for lib in libs]
        ratio = lambda other: (f"{med['sampan'][k] / med[other][k]:.2f}"  # noqa: E731
                               if other in med and k in med[other] else "-")
        print(f"| {k} | " + " | ".join(f"{v:.2f}" if v is not None else "-" for v in vals)
              + f" | {ratio('paddle')} | {ratio('torch')} |")


if __name__ == "__main__":
    main()

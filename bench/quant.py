"""Quantization benchmark (issue #13): accuracy of QAT and PTQ int8 models against float32 on a
small CNN trained on sklearn's digits (8x8 images, 10 classes), and int8 vs float32 inference
latency (eager and jit.save -> jit.load).

    python bench/quant.py --epochs 30 --rounds 20

The CNN: conv 1->16 3x3 pad 1, relu, maxpool 2, conv 16->32 3x3 pad 1, relu, maxpool 2,
linear 128->10. Split 1347 train / 450 test (fixed seed). PTQ calibrates on 8 training
batches; QAT fine-tunes the float model for 3 epochs. Needs scikit-learn (for the data only).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import sampan as P  # noqa: E402
from sampan.quantization import PTQ, QAT, QuantConfig  # noqa: E402
from sampan.quantization import observers as O  # noqa: E402
from sampan.quantization import quanters as Q  # noqa: E402


class CNN(P.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv1 = P.nn.Conv2D(1, 16, 3, padding=1)
        self.conv2 = P.nn.Conv2D(16, 32, 3, padding=1)
        self.pool = P.nn.MaxPool2D(2)
        self.fc = P.nn.Linear(32 * 2 * 2, 10)

    def forward(self, x):
        x = self.pool(P.nn.functional.relu(self.conv1(x)))
        x = self.pool(P.nn.functional.relu(self.conv2(x)))
        return self.fc(P.flatten(x, 1))


def digits():
    from sklearn.datasets import load_digits
    d = load_digits()
    x = (d.images / 16.0).astype("float32")[:, None]
    y = d.target.astype("int64")
    idx = np.random.default_rng(0).permutation(len(y))
    return x[idx[:1347]], y[idx[:1347]], x[idx[1347:]], y[idx[1347:]]


def train(model, x, y, epochs, lr, seed=0):
    opt = P.optimizer.Adam(lr, parameters=model.parameters())
    rng = np.random.default_rng(seed)
    model.train()
    for _ in range(epochs):
        order = rng.permutation(len(y))
        for i in range(0, len(y), 64):
            b = order[i:i + 64]
            loss = P.nn.functional.cross_entropy(model(P.to_tensor(x[b])), P.to_tensor(y[b]))
            loss.backward()
            opt.step()
            opt.clear_grad()
    model.eval()


def accuracy(model, x, y) -> float:
    with P.no_grad():
        pred = model(P.to_tensor(x)).numpy().argmax(1)
    return float((pred == y).mean() * 100)


def ptq(model, x, act, weight):
    p = PTQ(QuantConfig(activation=act, weight=weight))
    observed = p.quantize(model)
    with P.no_grad():
        for i in range(0, 8 * 64, 64):
            observed(P.to_tensor(x[i:i + 64]))
    return p.convert(observed)


def qat(model, x, y, epochs):
    config = QuantConfig(activation=Q.FakeQuanterWithAbsMaxObserver(moving_rate=0.9),
                         weight=Q.FakeQuanterChannelWiseAbsMax())
    q = QAT(config)
    model.train()
    qmodel = q.quantize(model)
    train(qmodel, x, y, epochs, 2e-4, seed=1)
    return q.convert(qmodel)


def latency_ms(fn, x, rounds) -> float:
    with P.no_grad():
        fn(x)
        times = []
        for _ in range(rounds):
            t = time.perf_counter()
            fn(x)
            times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def saved(model):
    path = os.path.join(tempfile.mkdtemp(), "m")
    P.jit.save(model, path, input_spec=[P.static.InputSpec([None, 1, 8, 8], "float32")])
    return P.jit.load(path)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=20)
    args = ap.parse_args()
    P.seed(0)
    xtr, ytr, xte, yte = digits()
    model = CNN()
    train(model, xtr, ytr, args.epochs, 3e-3)
    base = accuracy(model, xte, yte)
    models = {"float32": model}
    chw = O.AbsMaxChannelWiseWeightObserver
    models["PTQ abs-max"] = ptq(model, xtr, O.AbsmaxObserver(), chw())
    models["PTQ moving-avg abs-max"] = ptq(model, xtr, O.MovingAverageAbsmaxObserver(), chw())
    models["PTQ hist 99.99%"] = ptq(model, xtr, O.HistObserver(percent=0.9999), chw())
    models["PTQ KL"] = ptq(model, xtr, O.KLObserver(), chw())
    models["QAT (3 epochs)"] = qat(model, xtr, ytr, 3)
    print(f"test accuracy, {len(yte)} digits")
    print("| model | accuracy % | drop (points) |\n|---|---|---|")
    for name, m in models.items():
        acc = accuracy(m, xte, yte)
        print(f"| {name} | {acc:.2f} | {base - acc:+.2f} |")
    print("\ninference latency, ms (median)")
    print("| model | batch | eager | jit.load |\n|---|---|---|---|")
    for name in ("float32", "QAT (3 epochs)"):
        loaded = saved(models[name])
        for batch in (1, 64, 450):
            x = P.to_tensor(xte[:batch])
            print(f"| {name} | {batch} | {latency_ms(models[name], x, args.rounds):.3f} | "
                  f"{latency_ms(loaded, x, args.rounds):.3f} |")


if __name__ == "__main__":
    main()

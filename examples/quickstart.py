"""Quickstart: train a small classifier, evaluate it, save, reload and run inference.

Written against the Paddle API: replace `import sampan as paddle` with `import paddle` and it
runs unchanged on PaddlePaddle. The data is generated (three Gaussian blobs in 8-D), so the
script needs no downloads.

    python examples/quickstart.py [--epochs 5] [--out /tmp/sampan_quickstart]
"""
from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np

import sampan as paddle
from sampan import nn
from sampan.io import DataLoader, Dataset


class Blobs(Dataset):
    """Three Gaussian blobs in 8-D: label = blob index."""

    def __init__(self, n: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        centers = np.random.default_rng(0).normal(0, 2.0, (3, 8))
        self.labels = rng.integers(0, 3, n)
        self.points = (centers[self.labels] + rng.normal(0, 1.0, (n, 8))).astype("float32")

    def __getitem__(self, i):
        return self.points[i], np.int64(self.labels[i])

    def __len__(self) -> int:
        return len(self.labels)


class Classifier(nn.Layer):
    def __init__(self) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(32, 3))

    def forward(self, x):
        return self.net(x)


def evaluate(model: nn.Layer, loader: DataLoader) -> float:
    model.eval()
    correct = total = 0
    with paddle.no_grad():
        for x, y in loader:
            pred = model(x).argmax(axis=-1)
            correct += int((pred == y).sum())
            total += y.shape[0]
    model.train()
    return correct / total


def main(epochs: int = 5, out: str | None = None) -> float:
    paddle.seed(2024)
    train = DataLoader(Blobs(1024, seed=1), batch_size=64, shuffle=True)
    test = DataLoader(Blobs(256, seed=2), batch_size=128)
    model = Classifier()
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for x, y in train:
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        print(f"epoch {epoch}: loss {float(loss):.4f}, test accuracy {evaluate(model, test):.3f}")

    out = out or tempfile.mkdtemp(prefix="sampan_quickstart_")
    paddle.save(model.state_dict(), os.path.join(out, "model.pdparams"))
    paddle.save(opt.state_dict(), os.path.join(out, "model.pdopt"))

    restored = Classifier()
    restored.set_state_dict(paddle.load(os.path.join(out, "model.pdparams")))
    acc = evaluate(restored, test)
    print(f"reloaded from {out}: test accuracy {acc:.3f}")

    restored.eval()
    sample = paddle.to_tensor(Blobs(4, seed=3).points)
    probs = nn.functional.softmax(restored(sample), axis=-1)
    print("inference on 4 new points:", probs.argmax(axis=-1).numpy().tolist())
    return acc


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--out", default=None, help="directory for the checkpoint files")
    args = ap.parse_args()
    main(args.epochs, args.out)

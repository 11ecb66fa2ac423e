"""Make examples/web/lenet_digits.onnx: the quickstart's LeNet, trained on scikit-learn's
digits with a fixed seed, with a softmax on top, exported by paddle.onnx.export.

The page (index.html) feeds it one preprocessed 1x28x28 float32 image (batch 1) and shows the
10 class probabilities it returns.

    pip install scikit-learn onnx
    python examples/web/make_model.py [--epochs 5] [--out examples/web/lenet_digits]
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import sampan as paddle
from sampan.static import InputSpec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))   # examples/: the quickstart's data and model
import quickstart  # noqa: E402


def main(epochs: int = 5, out: str = os.path.join(HERE, "lenet_digits")) -> float:
    """Train, export `out + ".onnx"`, return the test accuracy."""
    paddle.seed(2024)
    train_set, test_set = quickstart.split(*quickstart.load_digits())
    model = quickstart.new_model()
    optimizer = paddle.optimizer.Adam(learning_rate=0.002, parameters=model.parameters())
    model.prepare(optimizer, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    model.fit(train_set, batch_size=64, epochs=epochs, shuffle=True, verbose=0)
    acc = model.evaluate(test_set, batch_size=256, verbose=0)["acc"]
    net = paddle.nn.Sequential(model.network, paddle.nn.Softmax())
    net.eval()
    spec = [InputSpec([None, 1, 28, 28], "float32", "image")]
    paddle.onnx.export(net, out, input_spec=spec, model_name="lenet_digits")
    size = os.path.getsize(out + ".onnx")
    print(f"test accuracy {acc:.4f}; wrote {out}.onnx ({size / 1024:.0f} KiB)")
    return acc


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(HERE, "lenet_digits"),
                    help="output path without .onnx (default examples/web/lenet_digits)")
    args = ap.parse_args()
    main(args.epochs, args.out)

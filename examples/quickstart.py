"""Quickstart: train LeNet on real handwritten digits with paddle.Model, evaluate, save, reload,
predict, export an inference model and run it with paddle.inference.

The data are scikit-learn's 8x8 digits (1,797 scans of handwritten digits that ship inside the
scikit-learn wheel: no download). paddle.vision.transforms scale each to 20x20 and pad it to
28x28, the MNIST layout LeNet expects. The training part is Paddle code: with `import paddle`
in place of `import sampan as paddle` it runs on PaddlePaddle too (whose transforms need
opencv-python for numpy images, and whose VisualDL callback needs visualdl).

    pip install scikit-learn tensorboardX     # the data; TensorBoard logs (optional)
    python examples/quickstart.py [--epochs 5] [--out ./quickstart_output]

Everything goes into --out (default ./quickstart_output in the current directory; a rerun
replaces the checkpoint and the inference model and adds a run to the logs):
  checkpoint/lenet.pdparams, .pdopt    Model.save: parameters and optimizer state
  inference/lenet.pdmodel, .pdiparams  Model.save(training=False) (jit.save), for Predictor
  logs/run-<date-time>/                TensorBoard: `tensorboard --logdir quickstart_output/logs`
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import sampan as paddle
from sampan.static import InputSpec
from sampan.vision import transforms as T
from sampan.vision.models import LeNet

NEEDS_SKLEARN = ("examples/quickstart.py needs scikit-learn for its data (the 8x8 digits ship "
                 "inside the wheel): pip install scikit-learn")


def load_digits() -> tuple:
    """(images uint8 [N, 8, 8] in 0..255, labels int64 [N]) of scikit-learn's digits."""
    try:
        from sklearn.datasets import load_digits as sk_load_digits
    except ImportError:
        raise SystemExit(NEEDS_SKLEARN) from None
    digits = sk_load_digits()
    images = np.round(digits.images * (255.0 / 16.0)).astype("uint8")  # 0..16 ink levels
    return images, digits.target.astype("int64")


class Digits(paddle.io.Dataset):
    """Some of the digits: (1x28x28 float32 image in [-1, 1], [label]) per item."""

    transform = T.Compose([T.Resize(20), T.Pad(4), T.ToTensor(), T.Normalize([0.5], [0.5])])

    def __init__(self, images: np.ndarray, labels: np.ndarray) -> None:
        super().__init__()
        self.images, self.labels = images, labels

    def __getitem__(self, i):
        return self.transform(self.images[i]), self.labels[i:i + 1]

    def __len__(self) -> int:
        return len(self.labels)


def split(images: np.ndarray, labels: np.ndarray, n_test: int = 300) -> tuple:
    order = np.random.RandomState(0).permutation(len(labels))
    test, train = order[:n_test], order[n_test:]
    return Digits(images[train], labels[train]), Digits(images[test], labels[test])


def new_model() -> paddle.Model:
    inputs = [InputSpec([None, 1, 28, 28], "float32", "image")]
    labels = [InputSpec([None, 1], "int64", "label")]
    return paddle.Model(LeNet(num_classes=10), inputs, labels)


def train(train_set, test_set, epochs: int, log_dir: str) -> paddle.Model:
    model = new_model()
    optimizer = paddle.optimizer.Adam(learning_rate=0.002, parameters=model.parameters())
    model.prepare(optimizer, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    model.fit(train_set, test_set, batch_size=64, epochs=epochs, shuffle=True, verbose=1,
              callbacks=[paddle.callbacks.VisualDL(log_dir=log_dir)])
    return model


def run_predictor(prefix: str, images: np.ndarray) -> np.ndarray:
    """Logits of the exported model for a batch, through paddle.inference."""
    # (directory, file prefix): lenet.pdmodel, or lenet.json where Paddle 3.x writes PIR
    config = paddle.inference.Config(os.path.dirname(prefix), os.path.basename(prefix))
    predictor = paddle.inference.create_predictor(config)
    predictor.get_input_handle(predictor.get_input_names()[0]).copy_from_cpu(images)
    predictor.run()
    return predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()


def log_samples(log_dir: str, model: paddle.Model, images: np.ndarray, labels, preds) -> bool:
    """Test digits, their predictions and the network graph for TensorBoard (sampan's
    LogWriter; with Paddle use visualdl.LogWriter). False when tensorboardX is missing."""
    try:
        from sampan.utils import LogWriter
        writer = LogWriter(log_dir)
    except ImportError as err:
        print(f"(no TensorBoard logs: {err})")
        return False
    with writer:
        strip = np.concatenate(list(images[:, 0]), axis=1) * 0.5 + 0.5   # back to [0, 1]
        writer.add_image("test/digits", strip, step=0, dataformats="HW")
        writer.add_text("predictions", f"labels {labels.tolist()}, predicted {preds.tolist()}",
                        step=0)
        writer.add_graph(model.network, [InputSpec([None, 1, 28, 28], "float32", "image")])
    return True


def main(epochs: int = 5, out: str = "quickstart_output") -> dict:
    start = time.time()
    paddle.seed(2024)
    train_set, test_set = split(*load_digits())
    print(f"digits: {len(train_set)} for training, {len(test_set)} for testing, 28x28")
    log_dir = os.path.join(out, "logs", time.strftime("run-%Y%m%d-%H%M%S"))
    ckpt = os.path.join(out, "checkpoint", "lenet")
    model = train(train_set, test_set, epochs, log_dir)

    acc = model.evaluate(test_set, batch_size=256, verbose=0)["acc"]
    print(f"test accuracy {acc:.4f}")
    model.save(ckpt)                                   # lenet.pdparams + lenet.pdopt

    reloaded = new_model()
    reloaded.prepare(metrics=paddle.metric.Accuracy())
    reloaded.load(ckpt)
    logits = reloaded.predict(test_set, batch_size=256, stack_outputs=True, verbose=0)[0]
    reloaded_acc = float((logits.argmax(axis=1) == test_set.labels).mean())
    print(f"reloaded from {ckpt}.pdparams: test accuracy {reloaded_acc:.4f}")

    prefix = os.path.join(out, "inference", "lenet")
    model.save(prefix, training=False)                # jit.save: lenet.pdmodel + .pdiparams
    batch = np.stack([test_set[i][0].numpy() for i in range(8)])
    exported = run_predictor(prefix, batch)
    diff = float(np.abs(exported - logits[:8]).max())
    preds, labels = exported.argmax(axis=1), test_set.labels[:8]
    print(f"Predictor on {prefix}: labels {labels.tolist()}, predicted "
          f"{preds.tolist()} (max |difference| to the reloaded model {diff:.1e})")

    if log_samples(log_dir, model, batch, labels, preds):
        print(f"logs: tensorboard --logdir {os.path.dirname(log_dir)}")
    else:
        print(f"logs: {os.path.join(log_dir, 'scalars.jsonl')} (JSON lines)")
    print(f"done in {time.time() - start:.0f} s")
    return {"acc": acc, "reloaded_acc": reloaded_acc, "predictor_diff": diff,
            "predictions": preds, "labels": labels}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--out", default="quickstart_output",
                    help="output directory (default ./quickstart_output)")
    args = ap.parse_args()
    main(args.epochs, args.out)

"""The examples run and learn: logistic regression, the quickstart (LeNet on real digits),
the CIFAR-10 ResNet (on a synthetic file in the real format)."""
import io
import pickle
import runpy
import sys
import tarfile
from pathlib import Path

import numpy as np
import pytest

import sampan as paddle

ROOT = Path(__file__).resolve().parents[1]


def test_logistic_regression_example_learns(capsys):
    mod = runpy.run_path(str(ROOT / "examples" / "logistic_regression.py"))
    acc = mod["main"](epochs=60)
    out = capsys.readouterr().out
    losses = [float(line.split("loss")[1]) for line in out.splitlines() if "loss" in line]
    assert losses[-1] < losses[0] * 0.7
    assert acc > 0.9


def test_quickstart_trains_lenet_on_digits_exports_and_infers(tmp_path, capsys):
    pytest.importorskip("sklearn", reason="the quickstart's data is scikit-learn's digits "
                        "(pip install scikit-learn)")
    mod = runpy.run_path(str(ROOT / "examples" / "quickstart.py"))
    result = mod["main"](out=str(tmp_path))          # the README run: default epochs
    out = capsys.readouterr().out
    assert "digits: 1497 for training, 300 for testing" in out
    assert "Epoch 5/5" in out and "step 24/24 [" in out          # the progress bar
    assert result["acc"] >= 0.95 and result["reloaded_acc"] == result["acc"]
    assert result["predictor_diff"] < 1e-4
    assert (result["predictions"] == result["labels"]).mean() >= 0.75
    files = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.pd*"))
    assert files == ["checkpoint/lenet.pdopt", "checkpoint/lenet.pdparams",
                     "inference/lenet.pdiparams", "inference/lenet.pdmodel"]
    accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")
    pytest.importorskip("tensorboardX")
    runs = list((tmp_path / "logs").iterdir())
    assert len(runs) == 1 and runs[0].name.startswith("run-")
    logs = accumulator.EventAccumulator(str(runs[0]))
    logs.Reload()
    tags = logs.Tags()
    assert {"train/loss", "train/acc", "eval/loss", "eval/acc"} <= set(tags["scalars"])
    assert [e.step for e in logs.Scalars("eval/acc")] == [0, 1, 2, 3, 4]
    assert logs.Scalars("eval/acc")[-1].value == pytest.approx(result["acc"])
    assert tags["images"] == ["test/digits"] and tags["graph"]


def test_quickstart_without_scikit_learn_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    mod = runpy.run_path(str(ROOT / "examples" / "quickstart.py"))
    with pytest.raises(SystemExit, match="pip install scikit-learn"):
        mod["main"](out=str(tmp_path))
    assert not any(tmp_path.iterdir())


def _fake_cifar10(path, per_batch=16, seed=0):
    """A cifar-10-python.tar.gz in the real layout (5 pickled training batches and
    test_batch) with random images whose brightness follows the label."""
    rng = np.random.default_rng(seed)
    with tarfile.open(path, "w:gz") as tar:
        for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
            labels = rng.integers(0, 10, per_batch)
            data = (rng.integers(0, 128, (per_batch, 3072)) + labels[:, None] * 12)
            blob = pickle.dumps({b"data": data.astype(np.uint8), b"labels": labels.tolist()})
            info = tarfile.TarInfo(f"cifar-10-batches-py/{name}")
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
    return str(path)


def test_cifar10_resnet_example_trains_from_a_local_file(tmp_path, capsys):
    mod = runpy.run_path(str(ROOT / "examples" / "cifar10_resnet.py"))
    result = mod["main"](_fake_cifar10(tmp_path / "c10.tar.gz"), epochs=1, depth=8,
                         batch_size=16, verbose=1)
    out = capsys.readouterr().out
    assert "CIFAR-10: 80 training and 16 test images; ResNet-8" in out
    assert "step 5/5 [" in out and "test accuracy" in out
    assert 0.0 <= result["acc"] <= 1.0 and np.isfinite(result["loss"])
    net = mod["CifarResNet"](14)
    assert len(net.stages) == 6 and net(paddle.rand([2, 3, 32, 32])).shape == [2, 10]
    with pytest.raises(ValueError, match="depth must be 6n\\+2"):
        mod["CifarResNet"](10)


def test_cifar10_resnet_example_without_the_file_says_where_to_get_it(tmp_path):
    mod = runpy.run_path(str(ROOT / "examples" / "cifar10_resnet.py"))
    with pytest.raises(SystemExit) as info:
        mod["main"](str(tmp_path / "missing.tar.gz"))
    msg = str(info.value)
    assert "needs CIFAR-10" in msg and "missing.tar.gz" in msg
    assert "https://dataset.bj.bcebos.com/cifar/cifar-10-python.tar.gz" in msg
    assert "--data-file" in msg

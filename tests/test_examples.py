"""The README's main job runs and learns."""
import runpy
import sys
from pathlib import Path

import pytest

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

"""The README's main job runs and learns."""
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_logistic_regression_example_learns(capsys):
    mod = runpy.run_path(str(ROOT / "examples" / "logistic_regression.py"))
    acc = mod["main"](epochs=60)
    out = capsys.readouterr().out
    losses = [float(line.split("loss")[1]) for line in out.splitlines() if "loss" in line]
    assert losses[-1] < losses[0] * 0.7
    assert acc > 0.9


def test_quickstart_trains_saves_reloads_and_infers(tmp_path, capsys):
    mod = runpy.run_path(str(ROOT / "examples" / "quickstart.py"))
    acc = mod["main"](epochs=2, out=str(tmp_path))
    out = capsys.readouterr().out
    assert acc > 0.9 and "reloaded from" in out and "inference on 4 new points" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pdopt", "model.pdparams"]

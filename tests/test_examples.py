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

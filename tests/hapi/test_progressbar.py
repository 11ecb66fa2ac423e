"""Progress output: `\\r` redraws only on a terminal/notebook, one clean line per update when
redirected; the per-step time unit is chosen after rounding (Paddle 3.3.1 prints
'1000us/step' for 0.9996 ms; '1ms/step' is meant)."""
from __future__ import annotations

import io
import sys

import numpy as np
import pytest

import sampan as paddle
from sampan.hapi import progressbar
from sampan.hapi.progressbar import ProgressBar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("seconds, text", [
    (0.0009996, " - 1ms/step"), (0.000999, " - 999us/step"), (0.0005, " - 500us/step"),
    (0.0015, " - 2ms/step"), (0.9996, " - 1s/step"), (2.5, " - 2s/step"), (0.0, " - 0s/step"),
])
def test_per_step_unit_is_chosen_after_rounding(seconds, text):
    assert progressbar._per_step(seconds, "step") == text


def test_redirected_output_gets_one_clean_line_per_update(monkeypatch):
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    monkeypatch.delenv("PYCHARM_HOSTED", raising=False)
    out = io.StringIO()
    bar = ProgressBar(num=10, verbose=1, file=out)
    for step in (3, 6, 9, 10):
        bar.update(step, [("loss", 0.5)])
    lines = out.getvalue().split("\n")
    assert "\r" not in out.getvalue() and lines[-1] == ""
    assert [ln.split(" [")[0] for ln in lines[:-1]] == ["step  3/10", "step  6/10",
                                                        "step  9/10", "step 10/10"]
    assert all(" - loss: 0.5000" in ln for ln in lines[:-1])
    assert "ETA" in lines[0] and "ETA" not in lines[3]


def test_terminal_output_redraws_one_line():
    out = _Terminal()
    bar = ProgressBar(num=4, verbose=1, file=out)
    for step in range(1, 5):
        bar.update(step, [("loss", 1.25)])
    text = out.getvalue()
    assert text.count("\r") == 4 and text.count("\n") == 1 and text.endswith("\n")


def test_fit_verbose_1_into_a_file_writes_no_carriage_returns(capsys, monkeypatch):
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    monkeypatch.delenv("PYCHARM_HOSTED", raising=False)
    rng = np.random.default_rng(0)
    data = paddle.io.TensorDataset([
        paddle.to_tensor(rng.random((40, 4)).astype("float32")),
        paddle.to_tensor(rng.integers(0, 2, (40, 1)))])
    net = paddle.nn.Linear(4, 2)
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss())
    model.fit(data, batch_size=4, epochs=1, verbose=1, log_freq=3, shuffle=False)
    out = capsys.readouterr().out
    steps = [ln.split(" [")[0] for ln in out.splitlines() if ln.startswith("step")]
    assert "\r" not in out
    assert steps == ["step  3/10", "step  6/10", "step  9/10", "step 10/10"]


def test_start_restarts_the_clock_and_float_steps_print():
    out = io.StringIO()
    bar = ProgressBar(num=5, verbose=1, file=out)
    bar._start -= 100.0  # as if 100 s had passed
    bar.start()
    bar.update(1, [("loss", 1.0)])
    assert "s/step" in out.getvalue() and " 20s/step" not in out.getvalue()
    bar._dynamic_display = True  # Paddle's switch: redraw in place even when redirected
    bar.update(2.0, [("loss", "INF")])
    assert out.getvalue().count("\r") == 1 and "step 2/5" in out.getvalue()
    bar._num = None
    bar.update(1e4, [("loss", np.array([1e-4]))])
    assert "step 10000" in out.getvalue()

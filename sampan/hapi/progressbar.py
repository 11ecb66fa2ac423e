"""The text progress bar behind ProgBarLogger (Paddle's log format, close but not identical).

verbose=1 draws a bar with ETA: redrawn in place (`\r`) on a terminal or in a notebook, one
clean line per update (every `log_freq` steps) when the output is redirected to a file or
pipe; verbose=2 (and 3) prints one line per update. Imports nothing from sampan.
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

_BAR_WIDTH = 30


def format_values(values) -> str:
    """' - name: v' pieces, floats with 4 decimals (4 significant digits when tiny)."""
    info = ""
    for key, val in values:
        info += f" - {key}:"
        for v in (val if isinstance(val, (list, tuple)) else [val]):
            if isinstance(v, np.ndarray) and v.size == 1:
                v = v.item()
            if isinstance(v, (float, np.floating)):
                info += f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"
            else:
                info += f" {v}"
    return info


def _per_step(seconds: float, unit: str) -> str:
    """' - 3ms/step': the time unit is chosen after rounding (0.9996 ms is '1ms', not
    '1000us')."""
    if seconds >= 1 or seconds == 0 or round(seconds * 1e3) >= 1000:
        return f" - {seconds:.0f}s/{unit}"
    if round(seconds * 1e6) >= 1000:
        return f" - {seconds * 1e3:.0f}ms/{unit}"
    return f" - {seconds * 1e6:.0f}us/{unit}"


def is_interactive(stream) -> bool:
    """Whether `stream` shows a redrawn line: a terminal, a notebook or PyCharm's console."""
    isatty = getattr(stream, "isatty", None)
    try:
        if isatty is not None and isatty():
            return True
    except ValueError:  # a closed stream
        return False
    return "ipykernel" in sys.modules or "PYCHARM_HOSTED" in os.environ


def _eta(seconds: int) -> str:
    if seconds > 3600:
        return f"{seconds // 3600}:{(seconds % 3600) // 60:02}:{seconds % 60:02}"
    if seconds > 60:
        return f"{seconds // 60}:{seconds % 60:02}"
    return f"{seconds}s"


class ProgressBar:
    """Prints `step i/num - name: value ... - 3ms/step` lines (num may be None)."""

    def __init__(self, num: int | None = None, verbose: int = 1, file=None,
                 name: str = "step") -> None:
        if isinstance(num, int) and num <= 0:
            raise TypeError("num should be None or integer (> 0)")
        self._num = num
        self._verbose = verbose
        self.file = file
        self.name = name
        self._start = time.time()
        self._last_width = 0
        self._dynamic_display = None  # None: redraw in place when the output is a terminal

    def start(self) -> None:
        """Restart the clock (per-step times and the ETA count from now), as Paddle's."""
        self._start = time.time()
        self._last_width = 0

    def _count(self, current: int) -> str:
        if self._num:
            digits = len(str(self._num))
            return f"{self.name} {int(current):{digits}d}/{self._num}"
        return f"{self.name} {int(current):3d}"

    def update(self, current: int, values=()) -> None:
        """Report progress `current` (1-based) with (name, value) pairs."""
        out = self.file or sys.stdout
        elapsed = time.time() - self._start
        per_step = elapsed / current if current else 0.0
        info = format_values(values)
        if self._verbose == 1:
            line = self._count(current)
            if self._num:
                done = int(_BAR_WIDTH * current / self._num)
                bar = "=" * max(done - 1, 0) + ((">" if current < self._num else "=")
                                                if done > 0 else "")
                line += " [" + bar + "." * (_BAR_WIDTH - done) + "]"
                if current < self._num:
                    info += f" - ETA: {_eta(int(per_step * (self._num - current)))}"
            line += info + _per_step(per_step, self.name)
            dynamic = self._dynamic_display
            if is_interactive(out) if dynamic is None else dynamic:
                pad = " " * max(self._last_width - len(line), 0)
                self._last_width = len(line)
                end = "\n" if self._num is None or current >= self._num else ""
                out.write("\r" + line + pad + end)
            else:
                out.write(line + "\n")
        else:
            out.write(self._count(current) + info + _per_step(per_step, self.name) + "\n")
        out.flush()

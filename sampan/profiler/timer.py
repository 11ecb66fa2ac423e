"""The Profiler's step timer (Paddle's `benchmark`): batch cost, reader cost (the DataLoader
reports through framework/trace.py's READER slot, set while a timing is open) and ips; the
Perf Summary printed when the Profiler stops. Imports only `framework`.
"""
from __future__ import annotations

import timeit

from ..framework import trace as _trace

SKIP_STEPS = 10   # the first steps (warm-up) are left out of the Perf Summary


class _Stat:
    """avg/max/min of a quantity over the steps after the warm-up."""

    def __init__(self) -> None:
        self.total, self.count = 0.0, 0
        self.max, self.min = 0.0, float("inf")

    def add(self, value: float) -> None:
        self.total += value
        self.count += 1
        self.max, self.min = max(self.max, value), min(self.min, value)


class _Event:
    """One open timing (nested timings, e.g. an evaluation inside training, stack)."""

    def __init__(self) -> None:
        self.reader_time = self.batch_time = 0.0   # since the last step_info
        self.reader_n = self.batch_n = self.samples = 0
        self.iters = 0
        self.reader, self.batch, self.speed = _Stat(), _Stat(), _Stat()
        self.summary_samples = 0
        self.per_step = False          # some step() had no num_samples: ips is steps/s
        self.unit = "samples/s"
        self.dataset = None
        self.recording = True

    def record_reader(self, cost: float) -> None:
        self.reader_time += cost
        self.reader_n += 1
        if self.iters >= SKIP_STEPS:
            self.reader.add(cost)

    def record_batch(self, cost: float, num_samples) -> None:
        if num_samples is None:
            self.per_step, self.unit = True, "steps/s"
        self.batch_time += cost
        self.batch_n += 1
        self.samples += num_samples or 0
        self.iters += 1
        if self.iters > SKIP_STEPS and cost > 0:
            self.batch.add(cost)
            if not self.per_step:
                self.summary_samples += num_samples
            self.speed.add(1.0 / cost if self.per_step else num_samples / cost)

    def speed_average(self) -> float:
        if self.batch_time <= 0:
            return 0.0
        return (self.batch_n if self.per_step else self.samples) / self.batch_time


class Benchmark:
    """Paddle's timer behind Profiler.start/step/step_info/stop."""

    def __init__(self) -> None:
        self.events: list = []
        self.start_time = self.start_reader = timeit.default_timer()

    @property
    def current(self) -> _Event | None:
        return self.events[-1] if self.events else None

    def begin(self) -> None:
        self.events.append(_Event())
        _trace.READER[0] = self
        self.start_time = timeit.default_timer()

    def step(self, num_samples=None) -> None:
        ev = self.current
        if ev is None or not ev.recording:
            return
        ev.record_batch(timeit.default_timer() - self.start_time, num_samples)
        self.start_time = timeit.default_timer()

    def before_reader(self, dataset) -> None:
        """Called by the DataLoader before it makes a batch of `dataset`: only the first
        dataset timed is counted (another one, e.g. evaluation, pauses the timing)."""
        ev = self.current
        if ev is not None:
            if ev.dataset is None:
                ev.dataset = dataset
            elif ev.recording != (ev.dataset is dataset):
                ev.recording = not ev.recording
                self.start_time = timeit.default_timer()
        self.start_reader = timeit.default_timer()

    def after_reader(self) -> None:
        cost = timeit.default_timer() - self.start_reader
        ev = self.current
        if ev is not None and ev.recording and cost > 0:
            ev.record_reader(cost)

    def step_info(self, unit: str) -> str:
        """Averages since the last call: ' reader_cost: .. s batch_cost: .. s ips: .. unit'."""
        ev = self.current
        if ev is None:
            return ""
        text = ""
        if ev.reader_n and ev.reader_time:
            text += f" reader_cost: {ev.reader_time / ev.reader_n:.5f} s"
        if ev.batch_n and ev.batch_time:
            ev.unit = "steps/s" if ev.per_step else unit + "/s"
            text += f" batch_cost: {ev.batch_time / ev.batch_n:.5f} s"
        speed = ev.speed_average()
        if speed:
            text += f" ips: {speed:.3f} {ev.unit}"
        ev.reader_time = ev.batch_time = 0.0
        ev.reader_n = ev.batch_n = ev.samples = 0
        return text

    def end(self) -> None:
        """Close the current timing, printing its Perf Summary (after the warm-up steps)."""
        if not self.events:
            return
        print_summary(self.events.pop())
        if not self.events and _trace.READER[0] is self:
            _trace.READER[0] = None
        self.start_time = timeit.default_timer()


def _row(*cells: str) -> None:
    print("|", " | ".join(c.center(15) for c in cells), "|")


def print_summary(ev: _Event) -> None:
    """Paddle's Perf Summary table (nothing when no step followed the warm-up)."""
    n = ev.iters - SKIP_STEPS
    if n <= 0 or ev.batch.total <= 0:
        return
    reader_avg, batch_avg = ev.reader.total / n, ev.batch.total / n
    speed_avg = (n if ev.per_step else ev.summary_samples) / ev.batch.total
    print("Perf Summary".center(100, "="))
    if reader_avg:
        print(f"Reader Ratio: {reader_avg / batch_avg * 100:.3f}%")
    print(f"Time Unit: s, IPS Unit: {ev.unit}")
    _row("", "avg", "max", "min")
    stats = [("reader_cost", reader_avg, ev.reader), ("batch_cost", batch_avg, ev.batch),
             ("ips", speed_avg, ev.speed)]
    for name, avg, stat in stats:
        if name != "reader_cost" or reader_avg:
            _row(name, f"{avg:.5f}", f"{stat.max:.5f}", f"{stat.min:.5f}")


BENCHMARK = Benchmark()

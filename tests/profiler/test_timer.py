"""Profiler step timer (Paddle's benchmark): step_info text, reader_cost from the DataLoader,
the Perf Summary printed at stop. A fake clock makes the costs exact."""
import timeit

import pytest

import sampan as paddle
import sampan.profiler as profiler
from sampan.framework import trace


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


@pytest.fixture
def clock(monkeypatch):
    c = Clock()
    monkeypatch.setattr(timeit, "default_timer", c)
    return c


class Slow(paddle.io.Dataset):
    """Each sample takes 0.5 s of the fake clock to read."""

    def __init__(self, clock, n):
        self.clock, self.n = clock, n

    def __getitem__(self, idx):
        self.clock.t += 0.5
        return paddle.to_tensor([float(idx)])

    def __len__(self):
        return self.n


SUMMARY = [
    "=" * 44 + "Perf Summary" + "=" * 44,
    "Reader Ratio: 25.000%",
    "Time Unit: s, IPS Unit: images/s",
    "|                 |       avg       |       max       |       min       |",
    "|   reader_cost   |     1.00000     |     1.00000     |     1.00000     |",
    "|    batch_cost   |     4.00000     |     4.00000     |     4.00000     |",
    "|       ips       |     0.50000     |     0.50000     |     0.50000     |",
]


def test_reader_batch_ips_and_perf_summary(clock, capsys):
    loader = paddle.io.DataLoader(Slow(clock, 24), batch_size=2)
    p = profiler.Profiler(timer_only=True)
    p.start()
    infos = []
    for i, batch in enumerate(loader):
        clock.t += 3.0          # the training step
        p.step(num_samples=2)
        if i % 10 == 0:
            infos.append(p.step_info(unit="images"))
    p.stop()
    assert infos == [" reader_cost: 1.00000 s batch_cost: 4.00000 s ips: 0.500 images/s"] * 2
    assert capsys.readouterr().out.splitlines() == SUMMARY
    assert trace.READER[0] is None and p.step_info() == ""


def test_steps_without_samples_and_no_summary_for_short_runs(clock, capsys):
    p = profiler.Profiler(timer_only=True)
    p.start()
    for _ in range(3):
        clock.t += 0.25
        p.step()
    assert p.step_info() == " batch_cost: 0.25000 s ips: 4.000 steps/s"
    assert p.step_info() == ""   # averages restart at every call
    p.stop()
    assert capsys.readouterr().out == ""


def test_another_dataset_pauses_the_timing(clock):
    train = paddle.io.DataLoader(Slow(clock, 4), batch_size=2)
    evaluation = paddle.io.DataLoader(Slow(clock, 2), batch_size=2)
    p = profiler.Profiler(timer_only=True)
    p.start()
    for _ in train:
        clock.t += 1.0
        p.step(num_samples=2)
        for _ in evaluation:     # not counted: the timer follows the first dataset only
            clock.t += 100.0
            p.step(num_samples=2)
    # each training batch: 1 s reading + 1 s step; the timing restarts when training reads
    assert p.step_info(unit="images") == (
        " reader_cost: 1.00000 s batch_cost: 2.00000 s ips: 1.000 images/s")
    p.stop()

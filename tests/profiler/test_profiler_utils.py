"""profiler.utils.job_schedule_profiler_range: the window's steps, an empty window, and the
exit after the last profiled step (Paddle 3.3.1 calls sys.exit() there)."""
import pytest

from sampan.profiler.utils import job_schedule_profiler_range


def _flags(start, end, n=6):
    out = []
    for i in range(n):
        with job_schedule_profiler_range(i, start, end, False) as status:
            out.append(status)
    return out


def test_window_and_empty_window():
    assert _flags(2, 4) == [False, False, True, True, False, False]
    assert _flags(3, 3) == [False] * 6


def test_exits_after_the_last_profiled_step():
    with job_schedule_profiler_range(1, 0, 3, True) as status:
        assert status
    with pytest.raises(SystemExit):
        with job_schedule_profiler_range(2, 0, 3, True):
            pass

"""paddle.profiler.utils: job_schedule_profiler_range, the per-step switch that tells a
training loop whether step `iter_id` lies in the profiled window [start, end)."""
from __future__ import annotations

import contextlib
import sys
from typing import Iterator

__all__ = ["job_schedule_profiler_range"]


@contextlib.contextmanager
def job_schedule_profiler_range(iter_id: int, start: int, end: int,
                                exit_after_prof: bool = True) -> Iterator[bool]:
    """Yield whether step `iter_id` is in [start, end) (always False when start >= end);
    after the window's last step (`end - 1`) the process exits when `exit_after_prof`.

    Examples:
        >>> from sampan.profiler.utils import job_schedule_profiler_range
        >>> flags = []
        >>> for i in range(5):
        ...     with job_schedule_profiler_range(i, 1, 3, False) as status:
        ...         flags.append(status)
        >>> flags
        [False, True, True, False, False]
    """
    if start >= end:
        yield False
        return
    try:
        yield start <= iter_id < end
    finally:
        if iter_id == end - 1 and exit_after_prof:
            sys.exit()

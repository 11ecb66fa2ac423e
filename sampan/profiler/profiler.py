"""paddle.profiler.Profiler: the step state machine (make_scheduler), recording through the
dispatch chain while in RECORD states, on_trace_ready, summary and export. Imports only
`framework` (through `.events`)."""
from __future__ import annotations

import enum
import time
from typing import Callable, Iterable, Optional, Union

from . import events as _ev
from .events import Collector, OpRecording, TracerEventType
from .result import ProfilerResult
from .summary import SortedKeys, summarize
from .timer import BENCHMARK


class ProfilerState(enum.Enum):
    """What the profiler does during a step."""
    CLOSED = 0
    READY = 1
    RECORD = 2
    RECORD_AND_RETURN = 3


class ProfilerTarget(enum.Enum):
    """Devices to profile (sampan records the host: CPU)."""
    CPU = 0
    GPU = 1
    MLU = 2
    CUSTOM_DEVICE = 3


_RECORDING = (ProfilerState.RECORD, ProfilerState.RECORD_AND_RETURN)


def make_scheduler(*, closed: int, ready: int, record: int, repeat: int = 0,
                   skip_first: int = 0) -> Callable[[int], ProfilerState]:
    """A scheduler: after `skip_first` steps, cycles of `closed` CLOSED, `ready` READY and
    `record` recording steps (the last one RECORD_AND_RETURN), `repeat` times (0: forever).

    Examples:
        >>> import sampan.profiler as profiler
        >>> s = profiler.make_scheduler(closed=1, ready=1, record=2, repeat=1)
        >>> [s(i).name for i in range(5)]
        ['CLOSED', 'READY', 'RECORD', 'RECORD_AND_RETURN', 'CLOSED']
    """
    for name, value in (("closed", closed), ("ready", ready), ("record", record),
                        ("repeat", repeat), ("skip_first", skip_first)):
        if not isinstance(value, int) or value < 0:
            raise ValueError(f"make_scheduler: {name} must be an int >= 0, got {value!r}")
    if record < 1:
        raise ValueError(f"make_scheduler: record must be >= 1, got {record}")

    def getScheduleState(step: int) -> ProfilerState:  # noqa: N802 (Paddle's name)
        if step < skip_first:
            return ProfilerState.CLOSED
        step -= skip_first
        period = closed + ready + record
        if repeat > 0 and step // period >= repeat:
            return ProfilerState.CLOSED
        mod = step % period
        if mod < closed:
            return ProfilerState.CLOSED
        if mod < closed + ready:
            return ProfilerState.READY
        return ProfilerState.RECORD if mod < period - 1 else ProfilerState.RECORD_AND_RETURN

    return getScheduleState


def _default_state_scheduler(step: int) -> ProfilerState:
    return ProfilerState.RECORD


def _scheduler_of(scheduler) -> Callable[[int], ProfilerState]:
    if scheduler is None:
        return _default_state_scheduler
    if callable(scheduler):
        return scheduler
    if (isinstance(scheduler, (tuple, list)) and len(scheduler) == 2
            and all(isinstance(v, int) for v in scheduler) and 0 <= scheduler[0] < scheduler[1]):
        start, end = scheduler
        return make_scheduler(closed=max(start - 1, 0), ready=1 if start > 0 else 0,
                              record=end - start, repeat=1)
    raise ValueError(f"Profiler: scheduler must be a callable or a (start, end) tuple of ints "
                     f"with 0 <= start < end, got {scheduler!r}")


class Profiler:
    """Records op calls (through the dispatch chain) and RecordEvent spans per step.

    Args:
        targets (list, optional): ProfilerTargets; sampan records the host (CPU) only.
        scheduler (callable|tuple, optional): step -> ProfilerState, or (start, end) steps to
            record. Default: record every step.
        on_trace_ready (callable, optional): called with the profiler when a recording
            ends (e.g. `export_chrome_tracing(dir)`).
        record_shapes (bool, optional): keep input shapes in op events. Default False.
        timer_only (bool, optional): only time steps (step_info), record no event.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.profiler as profiler
        >>> with profiler.Profiler(scheduler=(0, 2)) as p:
        ...     for _ in range(3):
        ...         y = paddle.ones([2]) * 2
        ...         p.step()
        >>> 'multiply' in p.summary_text()
        True
    """

    def __init__(self, *, targets: Optional[Iterable] = None, scheduler=None,
                 on_trace_ready: Optional[Callable] = None, record_shapes: bool = False,
                 profile_memory: bool = False, timer_only: bool = False,
                 emit_nvtx: bool = False, custom_device_types: Optional[list] = None,
                 with_flops: bool = False) -> None:
        self.targets = list(targets) if targets is not None else [ProfilerTarget.CPU]
        for t in self.targets:
            if not isinstance(t, ProfilerTarget):
                raise TypeError(f"Profiler: targets must hold ProfilerTarget values, got {t!r}")
        self.scheduler = _scheduler_of(scheduler)
        self.on_trace_ready = on_trace_ready
        self.record_shapes = record_shapes
        self.timer_only = timer_only
        self.step_num = 0
        self.current_state = ProfilerState.CLOSED
        self.profiler_result: Optional[ProfilerResult] = None
        self._collector = None
        self._ops = None
        self._step_start = None

    def start(self) -> None:
        """Enter the scheduler's state for the current step (recording if it says so)."""
        BENCHMARK.begin()
        self._step_start = time.perf_counter_ns()
        if self.timer_only:
            return
        self.current_state = self.scheduler(self.step_num)
        if self.current_state in _RECORDING:
            self._begin_record()

    def stop(self) -> None:
        """End profiling; a recording in progress is finished and handed to on_trace_ready.
        The step timer prints its Perf Summary when more than 10 steps were timed."""
        BENCHMARK.end()
        if self.timer_only:
            return
        if self.current_state in _RECORDING:
            self._end_step_event()
            self._end_record()
        self.current_state = ProfilerState.CLOSED

    def step(self, num_samples: Optional[int] = None) -> None:
        """Mark the end of a training step and move to the scheduler's next state."""
        BENCHMARK.step(num_samples)
        if not self.timer_only:
            prev = self.current_state
            if prev in _RECORDING:
                self._end_step_event()
            self.step_num += 1
            self.current_state = self.scheduler(self.step_num)
            if prev is ProfilerState.RECORD_AND_RETURN or (
                    prev is ProfilerState.RECORD and self.current_state not in _RECORDING):
                self._end_record()
            if self.current_state in _RECORDING and self._collector is None:
                self._begin_record()
        else:
            self.step_num += 1
        self._step_start = time.perf_counter_ns()

    def _begin_record(self) -> None:
        self._collector = Collector()
        _ev.ACTIVE[0] = self._collector
        self._ops = OpRecording(self._collector, self.record_shapes)

    def _end_step_event(self) -> None:
        if self._collector is not None and self._step_start is not None:
            self._collector.add(f"ProfileStep#{self.step_num}", TracerEventType.ProfileStep,
                                self._step_start, time.perf_counter_ns())

    def _end_record(self) -> None:
        if self._collector is None:
            return
        self._ops.close()
        if _ev.ACTIVE[0] is self._collector:
            _ev.ACTIVE[0] = None
        c = self._collector
        self._collector = self._ops = None
        self.profiler_result = ProfilerResult(c.events, c.pid, c.wall0)
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def __enter__(self) -> "Profiler":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _result(self, api: str) -> ProfilerResult:
        if self.profiler_result is None:
            raise RuntimeError(f"Profiler.{api}: nothing recorded yet (no step was in a RECORD "
                               f"state, or the recording has not ended)")
        return self.profiler_result

    def export(self, path: str = "", format: str = "json") -> None:
        """Write the last recording: chrome trace JSON (`format='json'`) or result file ('pb')."""
        self._result("export").save(path, format)

    def summary_text(self, sorted_by: SortedKeys = SortedKeys.CPUTotal, op_detail: bool = True,
                     thread_sep: bool = False, time_unit: str = "ms", views=None) -> str:
        """The summary tables of the last recording as a string (what `summary` prints)."""
        return summarize(self._result("summary"), sorted_by, op_detail, time_unit, views)

    def summary(self, sorted_by: SortedKeys = SortedKeys.CPUTotal, op_detail: bool = True,
                thread_sep: bool = False, time_unit: str = "ms", views=None) -> None:
        """Print the Overview/Model/Operator/UserDefined tables sorted by `sorted_by`."""
        print(self.summary_text(sorted_by, op_detail, thread_sep, time_unit, views))

    def step_info(self, unit: Optional[str] = None) -> str:
        """Averages since the last step_info call, as Paddle: ' reader_cost: .. s' (batches
        from a DataLoader), ' batch_cost: .. s', ' ips: .. {unit}/s' (steps/s when a step()
        got no num_samples); '' before start or after stop."""
        return BENCHMARK.step_info("samples" if unit is None else unit)

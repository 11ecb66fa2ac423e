"""Event records of paddle.profiler: the collector a recording Profiler fills, the op-recording
dispatch wrapper, the span sink of framework.trace, and RecordEvent. Imports only `framework`
(the dispatch chain and the span sink live there)."""
from __future__ import annotations

import enum
import os
import threading
import time
from dataclasses import dataclass, field

from ..framework import flags as _flags
from ..framework import trace as _trace


class TracerEventType(enum.Enum):
    """Kinds of host events (Paddle's names)."""
    Operator = 0
    Dataloader = 1
    ProfileStep = 2
    CudaRuntime = 3
    Kernel = 4
    Memcpy = 5
    Memset = 6
    UserDefined = 7
    OperatorInner = 8
    Forward = 9
    Backward = 10
    Optimization = 11
    Communication = 12
    PythonOp = 13
    PythonUserDefined = 14


@dataclass
class Event:
    """One host span: `start`/`end` in nanoseconds of `time.perf_counter_ns`."""
    name: str
    type: TracerEventType
    start: int
    end: int
    tid: int
    args: dict = field(default_factory=dict)

    @property
    def duration(self) -> int:
        return self.end - self.start


class Collector:
    """Events recorded while a Profiler is in the RECORD state (all threads append here)."""

    def __init__(self) -> None:
        # raw (name, kind, start, end, tid, args) tuples: cheap to append on the hot path
        self.raw: list = []
        self.pid = os.getpid()
        # wall-clock origin so that trace timestamps are absolute microseconds, as in Paddle
        self.wall0 = time.time_ns() - time.perf_counter_ns()

    def add(self, name: str, kind: TracerEventType, start: int, end: int, **args) -> None:
        self.raw.append((name, kind, start, end, threading.get_ident(), args))

    @property
    def events(self) -> list:
        return [Event(*r) for r in self.raw]


# the collector of the recording profiler, or None (RecordEvent is free while None)
ACTIVE: list = [None]


def make_op_wrapper(collector: Collector, record_shapes: bool):
    """A dispatch wrapper timing every op call into `collector` as an Operator event."""
    clock = time.perf_counter_ns
    append = collector.raw.append
    tid = threading.get_ident()  # the wrapper is installed in (and only sees) this thread
    kind = TracerEventType.Operator
    empty: dict = {}

    def record_op(op, inputs, attrs, nxt):
        start = clock()
        out = nxt(op, inputs, attrs)
        args = empty
        if record_shapes:
            args = {"input_shapes": {name: list(t.shape) for name, t
                                     in zip(op.input_names, inputs) if hasattr(t, "shape")}}
        append((op.name, kind, start, clock(), tid, args))
        return out

    return record_op


def make_span_sink(collector: Collector):
    """The framework.trace SINK for `collector`: spans from rooms below the profiler (an
    optimizer step, its update kernels) with their TracerEventType named by string."""
    append = collector.raw.append
    kinds = TracerEventType.__members__
    empty: dict = {}

    def sink(name: str, kind: str, start: int, end: int) -> None:
        append((name, kinds[kind], start, end, threading.get_ident(), empty))

    return sink


class OpRecording:
    """Installs the op wrapper in this thread until `close()` (no cost when not installed)."""

    def __init__(self, collector: Collector, record_shapes: bool) -> None:
        self._guard = _flags.dispatch_wrapper(make_op_wrapper(collector, record_shapes))
        self._guard.__enter__()
        self._sink = _trace.SINK[0] = make_span_sink(collector)

    def close(self) -> None:
        if self._guard is not None:
            self._guard.__exit__(None, None, None)
            self._guard = None
        if _trace.SINK[0] is self._sink:
            _trace.SINK[0] = None


class RecordEvent:
    """A user-defined span recorded while a Profiler records; a no-op otherwise.

    Args:
        name (str): the name shown in the trace and the UserDefined summary.
        event_type (TracerEventType, optional): default PythonUserDefined.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.profiler as profiler
        >>> with profiler.RecordEvent("data"):
        ...     x = paddle.ones([2])
    """

    def __init__(self, name: str,
                 event_type: TracerEventType = TracerEventType.PythonUserDefined) -> None:
        if not isinstance(name, str):
            raise TypeError(f"RecordEvent: name must be a str, got {type(name).__name__}")
        self.name = name
        self.event_type = event_type
        self._start = None

    def begin(self) -> None:
        """Start the span."""
        self._start = time.perf_counter_ns()

    def end(self) -> None:
        """End the span and record it if a profiler is recording."""
        collector = ACTIVE[0]
        if self._start is not None and collector is not None:
            collector.add(self.name, self.event_type, self._start, time.perf_counter_ns())
        self._start = None

    def __enter__(self) -> "RecordEvent":
        self.begin()
        return self

    def __exit__(self, *exc) -> None:
        self.end()

"""ProfilerResult (the events one recording produced), the chrome trace and the result file
writers/readers. Imports only `framework` via `.events`."""
from __future__ import annotations

import json
import os
import socket
import time

from .events import Event, TracerEventType

# The file export_protobuf writes: Paddle serialises its C++ NodeTrees with protobuf; sampan
# writes this own, versioned UTF-8 JSON document (same extension, `.pb`) holding every event:
# {"format": RESULT_FORMAT, "version": 1, "pid": int, "wall0_ns": int,
#  "events": [[name, type name, start_ns, end_ns, tid, args], ...]}
RESULT_FORMAT = "sampan-profiler-result"


class ProfilerResult:
    """The events of one recording (what `on_trace_ready` handlers and
    `load_profiler_result` see)."""

    def __init__(self, events: list, pid: int, wall0: int) -> None:
        self.events = sorted(events, key=lambda e: (e.start, -e.end))
        self.pid = pid
        self.wall0 = wall0

    def get_data(self) -> list:
        """The recorded events, ordered by start time."""
        return list(self.events)

    def save(self, path: str, format: str = "json") -> None:
        """Write the result as a chrome trace (`format='json'`) or a result file ('pb')."""
        if format == "json":
            _write_json(path, chrome_trace(self))
        elif format in ("pb", "protobuf"):
            _write_json(path, {"format": RESULT_FORMAT, "version": 1, "pid": self.pid,
                               "wall0_ns": self.wall0,
                               "events": [[e.name, e.type.name, e.start, e.end, e.tid, e.args]
                                          for e in self.events]})
        else:
            raise ValueError(f"ProfilerResult.save: format must be 'json' or 'pb', "
                             f"got {format!r}")


def _write_json(path: str, doc: dict) -> None:
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def chrome_trace(result: ProfilerResult) -> dict:
    """The Trace Event Format document (complete 'X' events, microsecond timestamps) that
    chrome://tracing and Perfetto open; thread names come as 'M' metadata events."""
    events = []
    tids = {}
    for e in result.events:
        tid = tids.setdefault(e.tid, len(tids))
        events.append({"name": e.name, "ph": "X", "cat": e.type.name, "pid": result.pid,
                       "tid": e.tid, "ts": (result.wall0 + e.start) / 1000.0,
                       "dur": e.duration / 1000.0, "args": dict(e.args)})
    for tid, index in tids.items():
        events.append({"name": "thread_name", "ph": "M", "pid": result.pid, "tid": tid,
                       "args": {"name": "MainThread" if index == 0 else f"Thread-{index}"}})
    events.append({"name": "process_name", "ph": "M", "pid": result.pid, "tid": 0,
                   "args": {"name": f"sampan (pid {result.pid})"}})
    return {"displayTimeUnit": "ms", "schemaVersion": "1.0.2", "traceEvents": events}


def load_profiler_result(filename: str) -> ProfilerResult:
    """Load a result written by `export_protobuf` (or `Profiler.export(path, 'pb')`).

    Args:
        filename (str): the `.pb` file.

    Returns:
        ProfilerResult: with `get_data()` and `save()`.
    """
    try:
        with open(filename, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"load_profiler_result: cannot read {filename!r} as a sampan "
                         f"profiler result ({err})") from None
    if not isinstance(doc, dict) or doc.get("format") != RESULT_FORMAT:
        raise ValueError(f"load_profiler_result: {filename!r} is not a {RESULT_FORMAT} file")
    events = [Event(n, TracerEventType[k], s, e, t, a) for n, k, s, e, t, a in doc["events"]]
    return ProfilerResult(events, doc["pid"], doc["wall0_ns"])


def _handler(dir_name: str, worker_name, ext: str, fmt: str):
    if not isinstance(dir_name, str):
        raise TypeError(f"export: dir_name must be a str, got {type(dir_name).__name__}")

    def handle(prof) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"host_{socket.gethostname()}pid_{os.getpid()}"
        stamp = time.strftime("%Y_%m_%d_%H_%M_%S", time.localtime())
        prof.export(os.path.join(dir_name, f"{worker}_time_{stamp}_{time.perf_counter_ns()}"
                                 f".paddle_trace.{ext}"), fmt)

    return handle


def export_chrome_tracing(dir_name: str, worker_name: str = None):
    """An `on_trace_ready` handler writing `<dir_name>/<worker>_time_<stamp>.paddle_trace.json`
    (open it in chrome://tracing or https://ui.perfetto.dev).

    Examples:
        >>> import sampan.profiler as profiler
        >>> handler = profiler.export_chrome_tracing('./log')
    """
    return _handler(dir_name, worker_name, "json", "json")


def export_protobuf(dir_name: str, worker_name: str = None):
    """An `on_trace_ready` handler writing `<dir_name>/<worker>_time_<stamp>.paddle_trace.pb`:
    sampan's result file (versioned JSON, see RESULT_FORMAT), read by `load_profiler_result`.

    Examples:
        >>> import sampan.profiler as profiler
        >>> handler = profiler.export_protobuf('./log')
    """
    return _handler(dir_name, worker_name, "pb", "pb")

"""Text summary tables of a ProfilerResult (Overview, Model, Operator, UserDefined), Paddle's
layout, sorted by SortedKeys. Imports only `.events`."""
from __future__ import annotations

import enum

from .events import TracerEventType as T


class SortedKeys(enum.Enum):
    """Sort order of summary rows (device keys sort by CPU time: sampan has no device)."""
    CPUTotal = 0
    CPUAvg = 1
    CPUMax = 2
    CPUMin = 3
    GPUTotal = 4
    GPUAvg = 5
    GPUMax = 6
    GPUMin = 7


class SummaryView(enum.Enum):
    """The tables `Profiler.summary(views=...)` can print."""
    DeviceView = 0
    OverView = 1
    ModelView = 2
    DistributedView = 3
    KernelView = 4
    OperatorView = 5
    MemoryView = 6
    MemoryManipulationView = 7
    UDFView = 8


_UNITS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}
_USER = (T.UserDefined, T.PythonUserDefined)
_MODEL = (T.Forward, T.Backward, T.Optimization, T.Dataloader)


def _stats(events) -> dict:
    """name -> [calls, total, max, min] in ns, first-seen order."""
    rows: dict = {}
    for e in events:
        row = rows.setdefault(e.name, [0, 0, 0, None])
        d = e.duration
        row[0] += 1
        row[1] += d
        row[2] = max(row[2], d)
        row[3] = d if row[3] is None else min(row[3], d)
    return rows


def _sort(rows: dict, key: SortedKeys) -> list:
    pick = {0: lambda r: r[1], 1: lambda r: r[1] / r[0], 2: lambda r: r[2],
            3: lambda r: r[3]}[key.value % 4]
    return sorted(rows.items(), key=lambda kv: -pick(kv[1]))


def _merged(events) -> int:
    """Total ns covered by the spans (overlaps counted once)."""
    total, end = 0, None
    for e in sorted(events, key=lambda e: e.start):
        if end is None or e.start >= end:
            total += e.duration
            end = e.end
        elif e.end > end:
            total += e.end - end
            end = e.end
    return total


def _table(title: str, unit: str, header: list, rows: list) -> str:
    widths = [max(len(str(c)) for c in col) + 2 for col in zip(header, *rows)]
    rule = "  ".join("-" * w for w in widths)
    fmt = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    width = len(rule)
    lines = [title.center(width, "-"), f"Time unit: {unit}", rule, fmt(header), rule]
    lines += [fmt(r) for r in rows] + [rule, ""]
    return "\n".join(lines)


def _cpu_cells(row: list, whole: int, scale: float) -> str:
    calls, total, hi, lo = row
    ratio = 100.0 * total / whole if whole else 0.0
    return (f"{total / scale:.2f} / {total / calls / scale:.2f} / {hi / scale:.2f} / "
            f"{lo / scale:.2f} / {ratio:.2f}")


def summarize(result, sorted_by: SortedKeys = SortedKeys.CPUTotal, op_detail: bool = True,
              time_unit: str = "ms", views=None) -> str:
    """All requested tables of `result` as one string."""
    if time_unit not in _UNITS:
        raise ValueError(f"Profiler.summary: time_unit must be one of {list(_UNITS)}, "
                         f"got {time_unit!r}")
    if not isinstance(sorted_by, SortedKeys):
        raise TypeError(f"Profiler.summary: sorted_by must be a SortedKeys, got {sorted_by!r}")
    if views is None:
        views = [SummaryView.OverView, SummaryView.ModelView, SummaryView.OperatorView,
                 SummaryView.UDFView]
    elif isinstance(views, SummaryView):
        views = [views]
    scale = _UNITS[time_unit]
    events = result.events
    steps = [e for e in events if e.type is T.ProfileStep]
    whole = _merged(steps) or _merged(events)
    head = ["Name", "Calls", "CPU Total / Avg / Max / Min / Ratio(%)"]
    parts = []
    if SummaryView.OverView in views:
        kinds = [k for k in T if k is not T.ProfileStep and any(e.type is k for e in events)]
        rows = [["ProfileStep", len(steps), f"{whole / scale:.2f}", "100.00"]]
        for k in sorted(kinds, key=lambda k: -_merged([e for e in events if e.type is k])):
            mine = [e for e in events if e.type is k]
            t = _merged(mine)
            rows.append([f"  {k.name}", len(mine), f"{t / scale:.2f}",
                         f"{100.0 * t / whole if whole else 0:.2f}"])
        parts.append(_table("Overview Summary", time_unit,
                            ["Event Type", "Calls", "CPU Time", "Ratio (%)"], rows))
    if SummaryView.ModelView in views and steps:
        rows = [["ProfileStep", len(steps),
                 _cpu_cells(_merge_rows(_stats(steps)), whole, scale)]]
        for k in _MODEL:
            mine = [e for e in events if e.type is k]
            if mine:
                rows.append([f"  {k.name}", len(mine),
                             _cpu_cells(_merge_rows(_stats(mine)), whole, scale)])
        parts.append(_table("Model Summary", time_unit, head, rows))
    for view, title, kinds in ((SummaryView.OperatorView, "Operator Summary", (T.Operator,)),
                               (SummaryView.UDFView, "UserDefined Summary", _USER)):
        mine = [e for e in events if e.type in kinds]
        if view not in views or not mine:
            continue
        stats = _stats(mine)
        base = sum(r[1] for r in stats.values()) if view is SummaryView.OperatorView else whole
        rows = [[name, r[0], _cpu_cells(r, base, scale)] for name, r in _sort(stats, sorted_by)]
        parts.append(_table(title, time_unit, head, rows))
    return "\n\n".join(parts)


def _merge_rows(stats: dict) -> list:
    rows = list(stats.values())
    return [sum(r[0] for r in rows), sum(r[1] for r in rows), max(r[2] for r in rows),
            min(r[3] for r in rows)]

"""Host spans recorded by rooms below the profiler (an optimizer step and its update kernels,
which run outside dispatch): the recording paddle.profiler.Profiler installs SINK, everything
else only tests it. Imports nothing from sampan.
"""
from __future__ import annotations

import time

# fn(name: str, kind: str, start_ns: int, end_ns: int) of the recording profiler, or None;
# kind is a TracerEventType name ("Optimization", "Operator", ...)
SINK: list = [None]

clock = time.perf_counter_ns

# the step timer of a started paddle.profiler.Profiler (profiler/timer.py), or None: the
# DataLoader calls its before_reader(dataset) / after_reader() around making each batch
READER: list = [None]

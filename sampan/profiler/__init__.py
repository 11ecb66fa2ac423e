"""paddle.profiler: Profiler (a dispatch wrapper while recording), RecordEvent, summary tables,
chrome trace and result-file export. Sits in the profiler room; imports only `framework`."""
from .events import RecordEvent, TracerEventType
from .profiler import Profiler, ProfilerState, ProfilerTarget, make_scheduler
from .result import (ProfilerResult, export_chrome_tracing, export_protobuf,
                     load_profiler_result)
from .summary import SortedKeys, SummaryView

__all__ = ["Profiler", "ProfilerState", "ProfilerTarget", "RecordEvent", "SortedKeys",
           "SummaryView", "export_chrome_tracing", "export_protobuf", "load_profiler_result",
           "make_scheduler"]

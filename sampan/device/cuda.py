"""paddle.device.cuda: GPU queries, memory statistics, streams and events over CuPy.

Every function works without a GPU: counts are 0 and memory figures 0, and calls that need
a device raise a clear error. CuPy is imported only when a GPU is usable.
"""
from __future__ import annotations

import contextlib
from typing import NamedTuple

from ..framework.place import CUDAPlace, current_place, is_compiled_with_cuda

_peak = {}


def _cupy():
    if not is_compiled_with_cuda():
        raise RuntimeError("paddle.device.cuda: no usable GPU (CuPy and a CUDA device are "
                           "needed; pip install 'sampan[gpu]')")
    import cupy
    return cupy


def _device_id(device, api: str) -> int:
    if device is None:
        place = current_place()
        return place.id if place.is_gpu_place() else 0
    if isinstance(device, CUDAPlace):
        return device.id
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    if isinstance(device, str) and device.startswith("gpu"):
        return int(device.partition(":")[2] or 0)
    raise ValueError(f"paddle.device.cuda.{api}: device must be None, an int, a CUDAPlace or "
                     f"'gpu:N', got {device!r}")


def device_count() -> int:
    """The number of usable GPUs (0 without CuPy or a GPU).

    Examples:
        >>> import sampan as paddle
        >>> paddle.device.cuda.device_count() >= 0
        True
    """
    return _cupy().cuda.runtime.getDeviceCount() if is_compiled_with_cuda() else 0


def synchronize(device=None) -> None:
    """Wait until every kernel queued on `device` has finished."""
    if is_compiled_with_cuda():
        with _cupy().cuda.Device(_device_id(device, "synchronize")):
            _cupy().cuda.Device().synchronize()


def empty_cache() -> None:
    """Return the memory pool's unused blocks to the driver."""
    if is_compiled_with_cuda():
        _cupy().get_default_memory_pool().free_all_blocks()


def memory_allocated(device=None) -> int:
    """Bytes held by live tensors on `device` (CuPy's memory pool, used bytes)."""
    return _stat(device, "used", "memory_allocated")


def memory_reserved(device=None) -> int:
    """Bytes the memory pool holds from the driver on `device`."""
    return _stat(device, "total", "memory_reserved")


def max_memory_allocated(device=None) -> int:
    """The peak of memory_allocated seen by the statistics calls (sampled, not exact)."""
    return _peak.get(("used", _device_id(device, "max_memory_allocated")), 0)


def max_memory_reserved(device=None) -> int:
    """The peak of memory_reserved seen by the statistics calls (sampled, not exact)."""
    return _peak.get(("total", _device_id(device, "max_memory_reserved")), 0)


def _stat(device, kind: str, api: str) -> int:
    idx = _device_id(device, api)
    if not is_compiled_with_cuda():
        return 0
    with _cupy().cuda.Device(idx):
        pool = _cupy().get_default_memory_pool()
        value = int(pool.used_bytes() if kind == "used" else pool.total_bytes())
    _peak[(kind, idx)] = max(_peak.get((kind, idx), 0), value)
    return value


class _Properties(NamedTuple):
    name: str
    major: int
    minor: int
    total_memory: int
    multi_processor_count: int


def get_device_properties(device=None) -> _Properties:
    """Name, compute capability, memory and multiprocessor count of a GPU."""
    idx = _device_id(device, "get_device_properties")
    props = _cupy().cuda.runtime.getDeviceProperties(idx)
    name = props["name"]
    return _Properties(name.decode() if isinstance(name, bytes) else name, props["major"],
                       props["minor"], props["totalGlobalMem"], props["multiProcessorCount"])


def get_device_name(device=None) -> str:
    return get_device_properties(device).name


def get_device_capability(device=None) -> tuple:
    props = get_device_properties(device)
    return props.major, props.minor


class Stream:
    """A CUDA stream on `device` (CuPy's); `priority` as in Paddle (1 high, 2 normal)."""

    def __init__(self, device=None, priority: int = 2) -> None:
        self.device = _device_id(device, "Stream")
        with _cupy().cuda.Device(self.device):
            self._stream = _cupy().cuda.Stream(non_blocking=True,
                                               priority=-1 if priority == 1 else 0)

    def synchronize(self) -> None:
        self._stream.synchronize()

    def query(self) -> bool:
        return self._stream.done

    def wait_event(self, event: "Event") -> None:
        self._stream.wait_event(event._event)

    def wait_stream(self, stream: "Stream") -> None:
        self._stream.wait_event(stream._stream.record())

    def record_event(self, event: "Event | None" = None) -> "Event":
        event = event or Event()
        event.record(self)
        return event


class Event:
    """A CUDA event; `elapsed_time` needs enable_timing=True."""

    def __init__(self, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        self._event = _cupy().cuda.Event(block=blocking, disable_timing=not enable_timing,
                                         interprocess=interprocess)

    def record(self, stream: Stream | None = None) -> None:
        self._event.record(None if stream is None else stream._stream)

    def query(self) -> bool:
        return self._event.done

    def synchronize(self) -> None:
        self._event.synchronize()

    def elapsed_time(self, end_event: "Event") -> float:
        return _cupy().cuda.get_elapsed_time(self._event, end_event._event)


def current_stream(device=None) -> Stream:
    stream = Stream.__new__(Stream)
    stream.device = _device_id(device, "current_stream")
    stream._stream = _cupy().cuda.get_current_stream()
    return stream


@contextlib.contextmanager
def stream_guard(stream: Stream):
    """Run the block's kernels on `stream`."""
    with stream._stream:
        yield

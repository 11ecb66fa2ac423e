"""paddle.device: device selection and queries; `paddle.device.cuda` holds the GPU API."""
from __future__ import annotations

import contextlib

from ..framework.place import (CPUPlace, CUDAPlace, Place, get_device,  # noqa: F401
                               is_compiled_with_cuda, is_compiled_with_rocm,
                               is_compiled_with_xpu, set_device)


class XPUPlace(Place):
    def __init__(self, id: int = 0) -> None:
        self.id = int(id)

    def __repr__(self) -> str:
        return f"Place(xpu:{self.id})"


class IPUPlace(Place):
    def __repr__(self) -> str:
        return "Place(ipu)"


def is_compiled_with_cinn() -> bool:
    return False


def is_compiled_with_ipu() -> bool:
    return False


def is_compiled_with_distribute() -> bool:
    return True


def is_compiled_with_custom_device(device_type: str) -> bool:
    return False


def get_all_device_type() -> list:
    """Device types besides the CPU, as Paddle lists them: ['gpu'] with a GPU, else []."""
    return ["gpu"] if is_compiled_with_cuda() else []


def get_all_custom_device_type() -> list:
    return []


def get_available_device() -> list:
    """Devices besides the CPU, as Paddle lists them: ['gpu:0', ...], [] without a GPU."""
    from .cuda import device_count
    return [f"gpu:{i}" for i in range(device_count())]


def get_available_custom_device() -> list:
    return []


def get_cudnn_version():
    return None


def synchronize(device=None) -> None:
    """Wait for queued work (GPU kernels are asynchronous; CPU ones are synchronous)."""
    from .cuda import synchronize as _sync
    _sync(None if device in (None, "cpu") else device)


class Stream:
    """A stream handle; CPU work is synchronous, so streams only order nothing."""

    def __init__(self, device=None, priority: int = 2) -> None:
        self.device = device

    def synchronize(self) -> None:
        pass

    def query(self) -> bool:
        return True

    def wait_event(self, event) -> None:
        pass

    def wait_stream(self, stream) -> None:
        pass

    def record_event(self, event=None):
        return event or Event()


class Event:
    def __init__(self, device=None, enable_timing: bool = False, blocking: bool = False,
                 interprocess: bool = False) -> None:
        self.device = device

    def record(self, stream=None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        pass


_stream = Stream()


def current_stream(device=None) -> Stream:
    return _stream


def set_stream(stream: Stream) -> Stream:
    return _stream


@contextlib.contextmanager
def stream_guard(stream: Stream):
    yield


def __getattr__(name: str):
    if name == "cuda":  # the GPU API, imported on first use
        import importlib
        return importlib.import_module(".cuda", __name__)
    raise AttributeError(f"module 'paddle.device' has no attribute {name!r}")

"""Paddle 3.x's device-generic memory and property queries in paddle.device.

Paddle picks the implementation by its build: a CUDA build answers from the GPU, the CPU
build refuses the memory queries with a ValueError. sampan does the same by setup: with a
usable GPU (CuPy) the calls go to `paddle.device.cuda`; otherwise they answer as Paddle
3.3.1's CPU build does. Imports `framework` and this room.
"""
from __future__ import annotations

import contextlib

from ..framework.place import Place, current_place, is_compiled_with_cuda
from ..framework.place import set_place, to_place

__all__ = ["memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_max_memory_allocated", "reset_max_memory_reserved",
           "reset_peak_memory_stats", "empty_cache", "get_device_properties",
           "get_device_name", "get_device_capability", "ipc_collect",
           "is_current_stream_capturing", "get_stream_from_external", "device_guard",
           "StreamContext", "XPUPinnedPlace"]


def _gpu(device, api: str):
    """The paddle.device.cuda module on a usable GPU setup unless `device` names the CPU
    (None: the current GPU, as Paddle's CUDA build); otherwise the CPU build's refusal."""
    if is_compiled_with_cuda() and (device is None or _names_gpu(device)):
        from . import cuda
        return cuda
    raise ValueError(f"The API paddle.device.{api} is not supported in CPU PaddlePaddle. "
                     f"Please reinstall PaddlePaddle with GPU or XPU support to call this API.")


def _names_gpu(device) -> bool:
    if isinstance(device, Place):
        return device.is_gpu_place()
    if isinstance(device, int) and not isinstance(device, bool):
        return True
    return isinstance(device, str) and device.split(":")[0] in ("gpu", "cuda")


def _gpu_id(device):
    """A device argument in the form paddle.device.cuda accepts ('cuda:1' -> 'gpu:1')."""
    if isinstance(device, str) and device.startswith("cuda"):
        return "gpu" + device[4:]
    return device


def memory_allocated(device=None) -> int:
    """Bytes held by tensors on a GPU `device` (None: the current device); a ValueError on
    a CPU-only setup, as Paddle's CPU build.

    Examples:
        >>> import sampan as paddle
        >>> if paddle.device.is_compiled_with_cuda():
        ...     n = paddle.device.memory_allocated()
    """
    return _gpu(device, "memory_allocated").memory_allocated(_gpu_id(device))


def max_memory_allocated(device=None) -> int:
    """The peak of memory_allocated on a GPU `device` (ValueError on a CPU-only setup)."""
    return _gpu(device, "max_memory_allocated").max_memory_allocated(_gpu_id(device))


def memory_reserved(device=None) -> int:
    """Bytes the memory pool of a GPU `device` holds (ValueError on a CPU-only setup)."""
    return _gpu(device, "memory_reserved").memory_reserved(_gpu_id(device))


def max_memory_reserved(device=None) -> int:
    """The peak of memory_reserved on a GPU `device` (ValueError on a CPU-only setup)."""
    return _gpu(device, "max_memory_reserved").max_memory_reserved(_gpu_id(device))


def _reset_peak(device, kind: str, api: str) -> None:
    cuda = _gpu(device, api)
    cuda._peak.pop((kind, cuda._device_id(_gpu_id(device), api)), None)


def reset_max_memory_allocated(device=None) -> None:
    """Restart the max_memory_allocated peak of a GPU `device` (ValueError on a CPU-only
    setup)."""
    _reset_peak(device, "used", "reset_max_memory_allocated")


def reset_max_memory_reserved(device=None) -> None:
    """Restart the max_memory_reserved peak of a GPU `device` (ValueError on a CPU-only
    setup)."""
    _reset_peak(device, "total", "reset_max_memory_reserved")


def reset_peak_memory_stats(device=None) -> None:
    """Restart the peak statistics (Paddle 3.3.1 resets max_memory_allocated; on its CPU
    build the error names reset_max_memory_allocated)."""
    _reset_peak(device, "used", "reset_max_memory_allocated")


def empty_cache() -> None:
    """Return the GPU memory pool's unused blocks to the driver; nothing to do on a
    CPU-only setup (NumPy holds no cache).

    Examples:
        >>> import sampan as paddle
        >>> paddle.device.empty_cache()
    """
    if is_compiled_with_cuda():
        from .cuda import empty_cache as _empty
        _empty()


def get_device_properties(device=None):
    """Name, compute capability, memory and multiprocessor count of a GPU `device`; a
    ValueError on a CPU-only setup (Paddle 3.3.1's CPU build fails here too)."""
    return _gpu(device, "get_device_properties").get_device_properties(_gpu_id(device))


def get_device_name(device=None) -> str:
    """The name of a GPU `device` (ValueError on a CPU-only setup)."""
    return _gpu(device, "get_device_name").get_device_name(_gpu_id(device))


def get_device_capability(device=None) -> tuple:
    """(major, minor) compute capability of a GPU `device` (ValueError on a CPU-only
    setup)."""
    return _gpu(device, "get_device_capability").get_device_capability(_gpu_id(device))


def ipc_collect() -> None:
    """Free memory shared between processes: nothing to collect with CuPy; a RuntimeError
    on a CPU-only setup, as Paddle's CPU build."""
    if not is_compiled_with_cuda():
        raise RuntimeError("(Unavailable) Paddle is not compiled with CUDA/XPU, so "
                           "`ipc_collect` cannot be used.")


def is_current_stream_capturing() -> bool:
    """Whether a CUDA graph capture is running on the current stream: never in sampan.

    Examples:
        >>> import sampan as paddle
        >>> paddle.device.is_current_stream_capturing()
        False
    """
    return False


def get_stream_from_external(data_ptr: int, device=None):
    """Wrap an externally created CUDA stream handle (cudaStream_t as an int) as a
    paddle.device.cuda.Stream; a ValueError on a CPU-only setup."""
    cuda = _gpu(device, "get_stream_from_external")
    import cupy
    stream = cuda.Stream.__new__(cuda.Stream)
    stream.device = cuda._device_id(_gpu_id(device), "get_stream_from_external")
    stream._stream = cupy.cuda.ExternalStream(int(data_ptr), stream.device)
    return stream


class device_guard(contextlib.ContextDecorator):
    """Run a block with `device` ('cpu', 'gpu:0', a Place) as the current device,
    restoring the previous one afterwards.

    Examples:
        >>> import sampan as paddle
        >>> with paddle.device.device_guard("cpu"):
        ...     print(paddle.device.get_device())
        cpu
    """

    def __init__(self, device) -> None:
        if not isinstance(device, (str, Place)):
            raise ValueError(f"paddle.device.device_guard: 'device' must be a string or a "
                             f"Place, but got {type(device)}")
        try:
            self._target = to_place(device)
        except ValueError:
            raise ValueError(f"paddle.device.device_guard: the device must be like 'cpu', "
                             f"'gpu' or 'gpu:x', got {device!r}") from None

    def __enter__(self) -> None:
        self._original = current_place()
        set_place(self._target)

    def __exit__(self, *exc) -> None:
        set_place(self._original)


class StreamContext(contextlib.ContextDecorator):
    """Run a block's GPU kernels on `stream` (a paddle.device.cuda.Stream); None, or a
    CPU-only setup where work is synchronous, changes nothing."""

    def __init__(self, stream=None) -> None:
        self.stream = stream
        self._guard = None

    def __enter__(self):
        if self.stream is not None and hasattr(self.stream, "_stream"):
            from .cuda import stream_guard
            self._guard = stream_guard(self.stream)
            self._guard.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        if self._guard is not None:
            self._guard.__exit__(*exc)
            self._guard = None


class XPUPinnedPlace(Place):
    """Page-locked host memory for XPU devices: sampan has no XPU backend, so creating one
    raises, as in Paddle's CPU build."""

    def __init__(self) -> None:
        raise RuntimeError("(PermissionDenied) Cannot use XPUPinnedPlace in CPU only version, "
                           "Please recompile or reinstall Paddle with XPU support.")

    def __repr__(self) -> str:
        return "Place(xpu_pinned)"

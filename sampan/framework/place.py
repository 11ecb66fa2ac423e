"""Places and devices: CPUPlace, CUDAPlace, set_device/get_device, and which backend an
array belongs to (the registry `dispatch` reads to pick `xp` off the NumPy fast path).

Imports nothing from sampan at import time; a device backend module (`backend.cupy_`, the
test-only `backend.fake`) is imported only when a place of its kind is first used.
"""
from __future__ import annotations

import importlib
import importlib.util
import warnings

import numpy as np


class Place:
    """Base of all places; prints as Paddle does (`Place(cpu)`)."""

    #: module path of the backend (xp namespace) serving this kind of place; None: NumPy
    backend_module: str | None = None

    def __eq__(self, other) -> bool:
        return isinstance(other, Place) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def is_cpu_place(self) -> bool:
        return isinstance(self, CPUPlace)

    def is_gpu_place(self) -> bool:
        return isinstance(self, CUDAPlace)

    def is_cuda_pinned_place(self) -> bool:
        return isinstance(self, CUDAPinnedPlace)

    def backend(self):
        """The backend module computing on this place (imported on first use)."""
        if self.backend_module is None:
            return _NUMPY_BACKEND
        return importlib.import_module(self.backend_module)


class CPUPlace(Place):
    def __repr__(self) -> str:
        return "Place(cpu)"


class CUDAPlace(Place):
    """GPU `id`; its arrays are CuPy arrays (the optional `gpu` extra)."""

    backend_module = "sampan.backend.cupy_"

    def __init__(self, id: int = 0) -> None:
        if isinstance(id, bool) or not isinstance(id, (int, np.integer)) or id < 0:
            raise ValueError(f"CUDAPlace: id must be a non-negative int, got {id!r}")
        self.id = int(id)

    def get_device_id(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"Place(gpu:{self.id})"

    def backend(self):
        module = super().backend()
        if module._cp is None:
            raise ImportError(f"{self}: {module.MISSING}")
        return module


class CUDAPinnedPlace(Place):
    """Page-locked host memory; arrays here are host (NumPy) arrays."""

    def __repr__(self) -> str:
        return "Place(gpu_pinned)"


class _NumpyBackend:
    """The place protocol for host arrays (the xp namespace itself is backend.numpy_)."""

    @staticmethod
    def place_of(arr) -> CPUPlace:
        return _CPU

    @staticmethod
    def to_host(arr) -> np.ndarray:
        return arr

    @staticmethod
    def from_host(arr: np.ndarray, place: Place) -> np.ndarray:
        return arr


_NUMPY_BACKEND = _NumpyBackend()
_CPU = CPUPlace()
_ND = np.ndarray
# device array class -> backend module; filled by each backend module when it is imported
_ARRAY_BACKENDS: dict = {}
_current = [_CPU]


def register_array_type(array_type: type, backend) -> None:
    """Called by a device backend at import: arrays of `array_type` belong to `backend`."""
    _ARRAY_BACKENDS[array_type] = backend


def backend_of(arr):
    """The backend module an array belongs to (the NumPy protocol for host arrays)."""
    backend = _ARRAY_BACKENDS.get(arr.__class__) if arr.__class__ is not _ND else None
    return _NUMPY_BACKEND if backend is None else backend


def place_of(arr) -> Place:
    """The place holding `arr`."""
    return backend_of(arr).place_of(arr)


def is_device_array(arr) -> bool:
    return arr.__class__ in _ARRAY_BACKENDS


def move(arr, place: Place):
    """`arr` copied to `place` (itself when already there)."""
    src = backend_of(arr)
    if src.place_of(arr) == place:
        return arr
    host = src.to_host(arr)
    return place.backend().from_host(host, place)


def _cupy_usable() -> bool:
    if importlib.util.find_spec("cupy") is None:
        return False
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no driver, no device, broken install: not usable
        return False


_CUDA_OK: list = []


def is_compiled_with_cuda() -> bool:
    """True when CuPy is installed and at least one GPU is usable (checked once)."""
    if not _CUDA_OK:
        _CUDA_OK.append(_cupy_usable())
    return _CUDA_OK[0]


def is_compiled_with_rocm() -> bool:
    return False


def is_compiled_with_xpu() -> bool:
    return False


def _parse_device(device: str) -> Place | None:
    """'cpu' -> CPUPlace, 'gpu'/'gpu:N' -> CUDAPlace(N); other known kinds -> None."""
    name = device.lower().strip()
    if name == "cpu":
        return _CPU
    kind, _, idx = name.partition(":")
    if kind not in ("gpu", "xpu", "npu", "ipu", "mlu", "custom_cpu") or (idx and not
                                                                        idx.isdigit()):
        raise ValueError(f"set_device: unknown device {device!r}; expected 'cpu' or "
                         f"'gpu', 'gpu:N'")
    return CUDAPlace(int(idx or 0)) if kind == "gpu" else None


def set_device(device: str) -> Place:
    """Select the device new tensors are created on: 'cpu', 'gpu' or 'gpu:N'.

    'gpu' needs CuPy and a GPU (`is_compiled_with_cuda()`); without them it warns and stays on
    the CPU, as do the other accelerator kinds.
    """
    if not isinstance(device, str):
        raise TypeError(f"set_device: device must be a str such as 'cpu' or 'gpu:0', "
                        f"got {type(device).__name__}")
    place = _parse_device(device)
    if place is None or (place.is_gpu_place() and not is_compiled_with_cuda()):
        warnings.warn(f"set_device({device!r}): no usable CUDA device (CuPy and a GPU are "
                      f"needed for 'gpu'; other accelerators are not supported); computing "
                      f"on the CPU", stacklevel=2)
        place = _CPU
    if place.is_gpu_place():
        from ..backend import cupy_
        cupy_.check_device(place)
    set_place(place)
    return place


def set_place(place: Place) -> None:
    """Make `place` the default place of new tensors (the fake test backend uses this)."""
    _current[0] = place
    for hook in _PLACE_HOOKS:
        hook(place)


# called with the new default place (ops.dispatch installs the creation-op placement)
_PLACE_HOOKS: list = []


def get_device(input=None) -> str | int:
    """The current device as a string ('cpu', 'gpu:0'); given a Tensor (Paddle 3.x `input`),
    the GPU id holding it, -1 on the CPU (any other `input` is ignored, as Paddle does)."""
    held = getattr(input, "place", None)
    if isinstance(held, Place):
        return held.id if held.is_gpu_place() else -1
    place = _current[0]
    if place.is_cpu_place():
        return "cpu"
    if place.is_gpu_place():
        return f"gpu:{place.id}"
    return repr(place)[6:-1]


def current_place() -> Place:
    return _current[0]


def to_place(place) -> Place:
    """A Place from Paddle's place arguments (a Place, 'cpu', 'gpu:N', or None: current)."""
    if place is None:
        return _current[0]
    if isinstance(place, Place):
        return place
    if isinstance(place, str):
        parsed = _parse_device(place)
        if parsed is not None:
            return parsed
    raise ValueError(f"place must be a Place, 'cpu' or 'gpu:N', got {place!r}")

"""Places and devices: CPUPlace, CUDAPlace, set_device/get_device. This build runs on the CPU.

Imports nothing from sampan.
"""
from __future__ import annotations

import warnings


class Place:
    """Base of all places; prints as Paddle does (`Place(cpu)`)."""

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def is_cpu_place(self) -> bool:
        return isinstance(self, CPUPlace)

    def is_gpu_place(self) -> bool:
        return isinstance(self, CUDAPlace)


class CPUPlace(Place):
    def __repr__(self) -> str:
        return "Place(cpu)"


class CUDAPlace(Place):
    """A GPU place. sampan's CPU build accepts it and computes on the CPU."""

    def __init__(self, id: int = 0) -> None:
        self.id = int(id)

    def get_device_id(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"Place(gpu:{self.id})"


class CUDAPinnedPlace(Place):
    def __repr__(self) -> str:
        return "Place(gpu_pinned)"


_CPU = CPUPlace()
_current = ["cpu"]


def is_compiled_with_cuda() -> bool:
    return False


def is_compiled_with_rocm() -> bool:
    return False


def is_compiled_with_xpu() -> bool:
    return False


def set_device(device: str) -> CPUPlace:
    """Select the device. Only 'cpu' exists here; 'gpu'/'gpu:N' warn and stay on the CPU."""
    if not isinstance(device, str):
        raise TypeError(f"set_device: device must be a str such as 'cpu' or 'gpu:0', "
                        f"got {type(device).__name__}")
    name = device.lower()
    if name != "cpu":
        kind = name.split(":")[0]
        if kind not in ("gpu", "xpu", "npu", "ipu", "mlu", "custom_cpu"):
            raise ValueError(f"set_device: unknown device {device!r}; expected 'cpu' or "
                             f"'gpu', 'gpu:N'")
        warnings.warn(f"set_device({device!r}): sampan is compiled without CUDA; "
                      f"computing on the CPU", stacklevel=2)
    _current[0] = "cpu"
    return _CPU


def get_device() -> str:
    return _current[0]


def current_place() -> CPUPlace:
    return _CPU

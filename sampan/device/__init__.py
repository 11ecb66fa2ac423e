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


# --- Paddle 3.x device-generic queries (paddle.device.device_count, ...) -------------------
def device_count() -> int:
    """How many accelerator devices there are (GPUs through CuPy); 0 on a CPU-only setup, as
    Paddle's CPU build answers.

    Examples:
        >>> import sampan as paddle
        >>> paddle.device.device_count() >= 0
        True
    """
    from .cuda import device_count as _gpus
    return _gpus()


def is_available() -> bool:
    """Whether any accelerator device is available (`device_count() > 0`)."""
    return device_count() > 0


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether bfloat16 computes here: True (NumPy kernels through ml_dtypes), as Paddle's
    CPU build answers."""
    return True


def manual_seed(seed: int) -> None:
    """Seed the random generator of the current device (sampan has one generator)."""
    from ..framework.random import seed as _seed
    _seed(seed)


def get_rng_state(device=None):
    """The state of the current device's random generator (one state, not a list: Paddle
    3.x's `paddle.device.get_rng_state`; `paddle.get_rng_state` returns a list)."""
    from ..framework.random import get_rng_state as _states
    return _states()[0]


def set_rng_state(new_state, device=None) -> None:
    """Restore a state from `get_rng_state()`."""
    from ..framework.random import set_rng_state as _restore
    _restore([new_state])


class device(contextlib.ContextDecorator):
    """Run a block on `device` ('cpu', 'gpu:0', a Place or a GPU id), restoring the current
    device afterwards (Paddle 3.x's `paddle.device.device`).

    Examples:
        >>> import sampan as paddle
        >>> with paddle.device.device("cpu"):
        ...     print(paddle.device.get_device())
        cpu
    """

    def __init__(self, device=None) -> None:
        if isinstance(device, Place):
            device = "cpu" if device.is_cpu_place() else f"gpu:{device.id}"
        elif isinstance(device, int) and not isinstance(device, bool):
            device = f"gpu:{device}"
        if device is not None and not isinstance(device, str):
            raise TypeError(f"paddle.device.device: device must be a str, a Place, an int or "
                            f"None, got {type(device).__name__}")
        self._device = device

    def __enter__(self):
        self._prev = get_device()
        if self._device is not None:
            set_device(self._device)
        return self

    def __exit__(self, *exc) -> None:
        set_device(self._prev)


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


from .generic3 import *  # noqa: F401,F403,E402  (Paddle 3.x memory/property queries)
from ..tensor.typed3 import *  # noqa: F401,F403,E402  (paddle.device.FloatTensor, ...)


def __getattr__(name: str):
    if name == "cuda":  # the GPU API, imported on first use
        import importlib
        return importlib.import_module(".cuda", __name__)
    raise AttributeError(f"module 'paddle.device' has no attribute {name!r}")

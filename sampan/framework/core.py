"""`paddle.base.core` / `paddle.framework.core`: the part of Paddle's C++ core module that
Python programs read — build queries, places, and the legacy dtype enums — as aliases.

`core.VarDesc.VarType.FP32` and `core.DataType.FLOAT32` are `paddle.float32` itself (as in
Paddle 2.x, where the two spellings were one object). `set_num_threads` caps the kernel
threads (backend/threads.py). Imports only `framework` and `backend.threads`.
"""
from __future__ import annotations

from ..backend import threads as _threads
from . import dtype as _dt
from .flags import _FLAGS
from .place import (CPUPlace, CUDAPinnedPlace, CUDAPlace, Place,  # noqa: F401
                    is_compiled_with_cuda, is_compiled_with_rocm, is_compiled_with_xpu)


class _VarKind(str):
    """A variable kind of `VarDesc.VarType` (`Tensor.type`): equal to its lower-case name,
    printed as Paddle prints the enum (`VarType.DENSE_TENSOR`), int() its enum value."""

    def __new__(cls, name: str, value: int) -> "_VarKind":
        self = super().__new__(cls, name.lower())
        self._value = value
        return self

    def __str__(self) -> str:
        return f"VarType.{self.upper()}"

    def __repr__(self) -> str:
        return f"<VarType.{self.upper()}: {self._value}>"

    def __int__(self) -> int:
        return self._value

    __hash__ = str.__hash__


class VarDesc:
    """Legacy variable descriptor; only its `VarType` enum of dtypes and kinds is used."""

    class VarType:
        BOOL = _dt.bool_
        INT8 = _dt.int8
        INT16 = _dt.int16
        INT32 = _dt.int32
        INT64 = _dt.int64
        UINT8 = _dt.uint8
        FP16 = _dt.float16
        BF16 = _dt.bfloat16
        FP32 = _dt.float32
        FP64 = _dt.float64
        COMPLEX64 = _dt.complex64
        COMPLEX128 = _dt.complex128
        # variable kinds (Variable.type); sampan has dense tensors only
        LOD_TENSOR = DENSE_TENSOR = _VarKind("DENSE_TENSOR", 7)
        LOD_TENSOR_ARRAY = DENSE_TENSOR_ARRAY = _VarKind("DENSE_TENSOR_ARRAY", 13)
        SELECTED_ROWS = _VarKind("SELECTED_ROWS", 8)
        FEED_MINIBATCH = _VarKind("FEED_MINIBATCH", 9)
        FETCH_LIST = _VarKind("FETCH_LIST", 10)


class DataType:
    """Paddle 3.x's dtype enum (`core.DataType.FLOAT32`): the same objects as `paddle.*`."""

    BOOL = _dt.bool_
    INT8 = _dt.int8
    INT16 = _dt.int16
    INT32 = _dt.int32
    INT64 = _dt.int64
    UINT8 = _dt.uint8
    FLOAT16 = _dt.float16
    BFLOAT16 = _dt.bfloat16
    FLOAT32 = _dt.float32
    FLOAT64 = _dt.float64
    COMPLEX64 = _dt.complex64
    COMPLEX128 = _dt.complex128


def is_compiled_with_distribute() -> bool:
    """True: collectives exist (over MPI)."""
    return True


def is_compiled_with_custom_device(device_type: str) -> bool:
    return False


def is_compiled_with_cinn() -> bool:
    return False


def is_float16_supported(place: Place) -> bool:
    """float16 compute counts as supported on GPUs only (Paddle's answer for the CPU)."""
    return False


def is_bfloat16_supported(place: Place) -> bool:
    return True


def supports_bfloat16() -> bool:
    return True


def op_support_gpu(op_type: str) -> bool:
    """No op has a GPU kernel in this build."""
    return False


def grad_var_suffix() -> str:
    """The suffix of gradient variables in a Program (`x@GRAD`)."""
    return "@GRAD"


def get_cuda_device_count() -> int:
    return 0


def globals() -> dict:  # noqa: A001  (Paddle's name)
    """The FLAGS_* registry as a mutable mapping (`core.globals()['FLAGS_x']`)."""
    return _FLAGS


def set_num_threads(num_threads: int) -> None:
    """Cap the threads of one CPU kernel -- OpenBLAS and sampan's kernel pool -- at
    `num_threads` (Paddle's `paddle.base.core.set_num_threads`; Paddle 3.3.1 has no public
    `paddle.set_num_threads`). The default is min(CPU count, OpenBLAS's count at import),
    or SAMPAN_NUM_THREADS when set. Under the cap sampan still runs small GEMMs and every
    kernel of a process that is not getting its cores on one thread (docs/performance.md).

    Args:
        num_threads (int): at least 1; 1 makes every kernel single-threaded.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> paddle.base.core.set_num_threads(1)
            >>> paddle.base.core.set_num_threads(2)
    """
    _threads.set_num_threads(num_threads)

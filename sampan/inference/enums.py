"""paddle.inference enumerations: PrecisionType, PlaceType, DataType (Paddle's member names
and integer values), the DataType <-> NumPy dtype table and get_num_bytes_of_data_type.

Imports `framework` only.
"""
from __future__ import annotations

import enum

import numpy as np

from ..framework import dtype as _dt

__all__ = ["PrecisionType", "PlaceType", "DataType", "get_num_bytes_of_data_type"]


class _Enum(enum.IntEnum):
    # NOTE: printed by name ("DataType.FLOAT32"), as Paddle's enums print, not as an int
    __str__ = enum.Enum.__str__


class PrecisionType(_Enum):
    """Compute precision of a predictor (`paddle.inference.PrecisionType`)."""
    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


class PlaceType(_Enum):
    """Device kind of a predictor (`paddle.inference.PlaceType`)."""
    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 4


class DataType(_Enum):
    """Element type of a predictor's input/output tensor (`paddle.inference.DataType`)."""
    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3
    INT8 = 4
    FLOAT16 = 5
    BOOL = 6
    FLOAT64 = 7
    BFLOAT16 = 8


# DataType -> sampan dtype name
_NAMES = {DataType.FLOAT32: "float32", DataType.INT64: "int64", DataType.INT32: "int32",
          DataType.UINT8: "uint8", DataType.INT8: "int8", DataType.FLOAT16: "float16",
          DataType.BOOL: "bool", DataType.FLOAT64: "float64", DataType.BFLOAT16: "bfloat16"}
_BY_NAME = {name: t for t, name in _NAMES.items()}


def data_type_of(dtype) -> DataType:
    """The DataType of a sampan dtype (or its name)."""
    name = dtype if isinstance(dtype, str) else dtype.name
    try:
        return _BY_NAME[name]
    except KeyError:
        raise TypeError(f"paddle.inference: dtype {name} has no paddle.inference.DataType "
                        f"(supported: {sorted(_BY_NAME)})") from None


def numpy_dtype(data_type: DataType) -> np.dtype:
    """The NumPy dtype of a DataType."""
    return _dt.convert_dtype(_NAMES[DataType(data_type)]).np


def get_num_bytes_of_data_type(dtype: DataType) -> int:
    """Bytes per element of a DataType.

    Args:
        dtype (DataType): the element type.

    Returns:
        int.

    Examples:
        >>> import sampan.inference as paddle_infer
        >>> paddle_infer.get_num_bytes_of_data_type(paddle_infer.DataType.FLOAT32)
        4
    """
    if not isinstance(dtype, DataType):
        raise TypeError(f"paddle.inference.get_num_bytes_of_data_type: dtype must be a "
                        f"paddle.inference.DataType, got {dtype!r}")
    return int(np.dtype(numpy_dtype(dtype)).itemsize)

"""paddle.inference: Config, create_predictor, Predictor over a saved inference model
(`paddle.jit.save`, `Model.save(training=False)`, `static.save_inference_model` output, and
Paddle's own files when a reader for them is installed), with the inference passes applied
once at load and the static Executor running the program.

Imports `framework`, `static`, `jit` (its file readers); sits above `nn` (ARCHITECTURE.md).
"""
from __future__ import annotations

import sys

from .config import Config, PassBuilder
from .convert import (convert_to_mixed_precision, get_trt_compile_version,  # noqa: F401
                      get_trt_runtime_version)
from .enums import DataType, PlaceType, PrecisionType, get_num_bytes_of_data_type
from .loader import load_program, register_format
from .phi_names import _get_phi_kernel_name  # noqa: F401
from .predictor import Predictor, PredictorPool, Tensor, create_predictor
from .xpu import XpuConfig

__all__ = ["Config", "DataType", "PlaceType", "PrecisionType", "Predictor", "PredictorPool",
           "Tensor", "create_predictor", "get_version", "get_num_bytes_of_data_type",
           "load_program", "register_format", "PassBuilder", "XpuConfig",
           "convert_to_mixed_precision", "get_trt_compile_version", "get_trt_runtime_version"]


def get_version() -> str:
    """The inference library's version text (`paddle.inference.get_version`).

    Returns:
        str: "version: <sampan version>" and build lines, as Paddle prints them.

    Examples:
        >>> import sampan.inference as paddle_infer
        >>> paddle_infer.get_version().splitlines()[0].startswith("version: ")
        True
    """
    version = getattr(sys.modules.get("sampan"), "__version__", "unknown")
    return f"version: {version}\ncommit: sampan\nbranch: main\n"

"""paddle.static: Programs, the static builder, Executor, append_backward, inference models.

Imports `framework`, `ops`, `autograd`, `tensor` (the IR itself in program.py imports only
`framework`).
"""
from __future__ import annotations

from ..framework.place import CPUPlace, CUDAPlace  # noqa: F401
from .program import (Block, Operator, Parameter, Program, Variable,  # noqa: F401
                      default_main_program, default_startup_program, name_scope)
from .builder import disable_static, enable_static, program_guard  # noqa: F401
from .input import create_global_var, create_parameter, data  # noqa: F401
from .input_spec import InputSpec  # noqa: F401
from .executor import Executor, Scope, global_scope, scope_guard  # noqa: F401
from .backward import append_backward, gradients  # noqa: F401
from .io import (deserialize_persistables, deserialize_program,  # noqa: F401
                 load_inference_model, normalize_program, save_inference_model,
                 serialize_persistables, serialize_program)
from . import nn, passes, verify  # noqa: F401  (verify binds Program.verify)
from .control_flow import Print, case, cond, switch_case, while_loop  # noqa: F401
from .compiled import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: F401
from .checkpoint import load, load_program_state, save, set_program_state  # noqa: F401
from .py_func import py_func  # noqa: F401
from .metrics import accuracy, auc  # noqa: F401
from .ctr_metric import ctr_metric_bundle  # noqa: F401
from .misc import (ExponentialMovingAverage, device_guard, load_from_file,  # noqa: F401
                   save_to_file, xpu_places)
from ..framework.param_attr import WeightNormParamAttr  # noqa: F401
from .ipu import IpuCompiledProgram, IpuStrategy, ipu_shard_guard, set_ipu_shard  # noqa: F401


def cpu_places(device_count=None) -> list:
    """[CPUPlace()] * device_count (default 1)."""
    return [CPUPlace()] * (device_count or 1)


def cuda_places(device_ids=None) -> list:
    """CUDAPlace for each id in `device_ids` (an int or a list; None: every visible GPU);
    an empty list when no GPU is usable (CuPy and a CUDA device are needed)."""
    from ..framework.place import is_compiled_with_cuda
    if not is_compiled_with_cuda():
        return []
    if device_ids is None:
        from ..backend import cupy_
        device_ids = range(cupy_.cuda.runtime.getDeviceCount())
    elif isinstance(device_ids, int):
        device_ids = [device_ids]
    return [CUDAPlace(i) for i in device_ids]


def setitem(x, index, value):
    """`x[index] = value` out of place: a new Tensor (a Variable while building a Program)
    equal to x with the indexed elements set to value; x is unchanged. The form of
    `__setitem__` that static graphs record.

    Args:
        x (Tensor): the input.
        index (int|slice|Ellipsis|None|list|Tensor|tuple): where to set, as in `x[index]`
            (a tuple indexes several axes: `x[1, :, 2]` is `(1, slice(None), 2)`).
        value (Tensor|number|list): the value, broadcast to the indexed shape and cast to
            x's dtype.

    Returns:
        Tensor: x's shape and dtype, with the indexed elements replaced.

    Examples:
        >>> import sampan as paddle
        >>> a = paddle.zeros([2, 3])
        >>> paddle.static.setitem(a, (1, slice(0, 2)), 5.0).tolist()
        [[0.0, 0.0, 0.0], [5.0, 5.0, 0.0]]
    """
    from ..tensor.indexing import setitem as _setitem
    return _setitem(x, index, value)


__all__ = ["InputSpec", "Program", "Variable", "Parameter", "Block", "Operator",
           "default_main_program", "default_startup_program", "program_guard",
           "name_scope", "data", "create_parameter", "create_global_var", "Executor",
           "Scope", "global_scope", "scope_guard", "append_backward", "gradients",
           "cpu_places", "cuda_places", "CPUPlace", "CUDAPlace", "save_inference_model",
           "load_inference_model", "serialize_program", "deserialize_program",
           "serialize_persistables", "deserialize_persistables", "normalize_program",
           "Print", "BuildStrategy", "CompiledProgram", "ExecutionStrategy", "save",
           "load", "load_program_state", "set_program_state", "py_func",
           "accuracy", "auc", "ctr_metric_bundle", "ExponentialMovingAverage", "device_guard",
           "save_to_file", "load_from_file", "xpu_places", "WeightNormParamAttr", "setitem",
           "IpuCompiledProgram", "IpuStrategy", "ipu_shard_guard", "set_ipu_shard"]

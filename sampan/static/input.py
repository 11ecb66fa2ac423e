"""Variables a user declares: static.data, create_parameter, create_global_var.

Imports `framework`, `ops`, `static.program` and `static.builder`.
"""
from __future__ import annotations

import math

import numpy as np

from ..framework import dtype as _dt
from ..framework.flags import dispatch_bypass
from ..framework.random import next_seed
from ..framework.tensor import Tensor
from ..ops.opdef import REGISTRY
from ..utils import unique_name
from .builder import append_op, building_active, build_into
from .program import default_main_program, default_startup_program


class StaticModeError(AssertionError, RuntimeError):
    """A static-graph-only API was called in dynamic mode (Paddle raises AssertionError;
    also a RuntimeError, what sampan raised before)."""


def static_mode_error(api: str) -> StaticModeError:
    short = api.rsplit(".", 1)[-1]
    return StaticModeError(
        f"{api}: only supported in static graph mode (in PaddlePaddle 2.x dynamic graph mode "
        f"is on by default, and '{short}()' is only supported in static graph mode); call "
        f"paddle.enable_static() first")


def _require_static(api: str) -> None:
    if not building_active():
        raise static_mode_error(api)


def data(name: str, shape, dtype=None, lod_level: int = 0):
    """Declare an input Variable of the main program, fed by Executor.run.

    Args:
        name (str): the feed name.
        shape (list|tuple): dims; None or -1 for a size known only at run time.
        dtype (str|dtype, optional): default the default float dtype.
        lod_level (int): accepted for compatibility (LoD is not supported).

    Returns:
        Variable (stop_gradient=True).

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main):
        ...     x = paddle.static.data("x", [None, 2], "float32")
        ...     y = paddle.exp(x) * 2.0
        >>> x.shape
        [-1, 2]
        >>> exe = paddle.static.Executor(paddle.CPUPlace())
        >>> exe.run(main, feed={"x": np.zeros((1, 2), "float32")}, fetch_list=[y])
        [array([[2., 2.]], dtype=float32)]
        >>> paddle.disable_static()
    """
    _require_static("paddle.static.data")
    if not isinstance(name, str) or not name:
        raise TypeError(f"paddle.static.data: name must be a non-empty str, got {name!r}")
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"paddle.static.data: shape must be a list or tuple, got "
                        f"{type(shape).__name__}")
    dims = []
    for d in shape:
        if d is None:
            dims.append(-1)
        elif isinstance(d, int) and not isinstance(d, bool) and d >= -1:
            dims.append(int(d))
        else:
            raise ValueError(f"paddle.static.data: dims of shape must be ints >= -1 or None, "
                             f"got {list(shape)}")
    dtype = _dt.default_float() if dtype is None else _dt.convert_dtype(dtype)
    block = default_main_program().global_block()
    if name in block.vars:
        raise ValueError(f"paddle.static.data: a variable named {name!r} already exists in "
                         f"the main program")
    var = block.create_var(name, dims, dtype, stop_gradient=True)
    var.is_data = True
    var.lod_level = lod_level
    return var


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A trainable Parameter of the main program, initialised by the startup program.

    Initialiser: `attr.initializer`, else `default_initializer`, else zeros for biases and
    Xavier-uniform for weights. An initialiser is called as `init(var, block)` on the startup
    program's copy of the variable and may return the Variable holding the initial value.
    """
    if not building_active():  # Paddle returns an eager Parameter in dynamic mode
        from ..tensor.creation import create_parameter as eager_create_parameter
        return eager_create_parameter(shape, dtype, name=name, attr=attr, is_bias=is_bias,
                                       default_initializer=default_initializer)
    dims = [int(d) for d in shape]
    if any(d < 0 for d in dims):
        raise ValueError(f"create_parameter: every dim of shape must be non-negative, got "
                         f"{dims}")
    dtype = _dt.convert_dtype(dtype)
    name = (getattr(attr, "name", None) or name or
            unique_name.generate("create_parameter") + (".b_0" if is_bias else ".w_0"))
    trainable = getattr(attr, "trainable", True)
    main = default_main_program().global_block()
    param = main.create_parameter(name, dims, dtype, trainable=trainable)
    lr = getattr(attr, "learning_rate", None)
    if lr is not None:
        param.optimize_attr = {"learning_rate": lr}
    param.regularizer = getattr(attr, "regularizer", None)
    param.need_clip = getattr(attr, "need_clip", True)
    init = getattr(attr, "initializer", None) or default_initializer
    _initialize(name, dims, dtype, init, is_bias)
    return param


def _initialize(name, dims, dtype, init, is_bias) -> None:
    from ..nn.initializer import Initializer
    if isinstance(init, Initializer):
        init = StaticInit(init)
    startup = default_startup_program().global_block()
    with build_into(startup):
        if init is not None:
            target = startup.create_var(name, dims, dtype, persistable=True)
            value = init(target, startup)
            if value is not None and value is not target:
                write_to(startup, value, name)
            return
        if is_bias or dtype.kind != "f" or not dims:
            op, attrs = "full", {"shape": dims, "fill_value": 0.0, "dtype": dtype.name}
        else:
            receptive = math.prod(dims[2:]) if len(dims) > 2 else 1
            fan_in = dims[0] * receptive if len(dims) > 1 else dims[0]
            fan_out = dims[1] * receptive if len(dims) > 1 else dims[0]
            limit = math.sqrt(6.0 / max(fan_in + fan_out, 1))
            op, attrs = "uniform", {"shape": dims, "dtype": dtype.name, "min": -limit,
                                    "max": limit, "seed": next_seed()}
        append_op(REGISTRY[op], (), attrs, out_names=[name]).persistable = True


class StaticInit:
    """A paddle.nn.initializer in a startup program: init(var, startup_block) appends the
    ops that compute the initial value (Constant/Normal/Uniform as ops; any other initializer
    runs eagerly once at build time and its values are assigned) and returns their output."""

    def __init__(self, init) -> None:
        self.init = init

    def __call__(self, var, block):
        from ..nn import initializer as I
        init, dims, dtype = self.init, var.shape, var.dtype
        kind = type(init)
        if kind in (I.Constant, I.ConstantInitializer):
            return append_op(REGISTRY["full"], (), {"shape": dims, "fill_value":
                                                    float(init._value), "dtype": dtype.name})
        if kind in (I.Normal, I.NormalInitializer):
            return append_op(REGISTRY["normal"], (), {
                "shape": dims, "mean": float(init._mean), "std": float(init._std),
                "dtype": dtype.name, "seed": init._seed or next_seed()})
        if kind in (I.Uniform, I.UniformInitializer) and not init._diag[0]:
            return append_op(REGISTRY["uniform"], (), {
                "shape": dims, "min": float(init._low), "max": float(init._high),
                "dtype": dtype.name, "seed": init._seed or next_seed()})
        tensor = Tensor(np.zeros(dims, dtype.np))
        with dispatch_bypass():  # the initializer runs eagerly
            init(tensor)
        return append_op(REGISTRY["assign"], (tensor._data,), {})


def write_to(block, value, name: str) -> None:
    """Make the op that defines `value` (appended last) write `name` instead."""
    op = block.ops[-1]
    out = op.outputs
    for key, names in out.items():
        if value.name in names:
            names[names.index(value.name)] = name
            del block.vars[value.name]
            return
    raise ValueError(f"write_to: {value.name!r} is not an output of the last op")


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A global Variable filled with `value` by the startup program."""
    if not building_active():  # Paddle returns a filled eager Tensor in dynamic mode
        from ..ops.dispatch import call
        out = call("full", shape=[int(d) for d in shape], fill_value=value,
                   dtype=_dt.convert_dtype(dtype).name)
        out.persistable = bool(persistable)
        if name is not None:
            out.name = name
        return out
    dims = [int(d) for d in shape]
    dtype = _dt.convert_dtype(dtype)
    name = name or unique_name.generate("global_var")
    var = default_main_program().global_block().create_var(
        name, dims, dtype, persistable=True, stop_gradient=True)  # kept in the scope
    startup = default_startup_program().global_block()
    with build_into(startup):
        append_op(REGISTRY["full"], (), {"shape": dims, "fill_value": value,
                                         "dtype": dtype.name}, out_names=[name]).persistable = True
    return var

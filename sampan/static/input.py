"""Variables a user declares: static.data, create_parameter, create_global_var.

Imports `framework`, `ops`, `initializer`, `static.program` and `static.builder`.
"""
from __future__ import annotations

import collections
import contextlib
import inspect
import weakref

from ..framework import dtype as _dt
from ..framework.param_attr import ParamAttr
from ..initializer import Initializer, create_parameter as eager_create_parameter
from ..initializer.parameter import check_shape, choose_initializer
from ..ops.opdef import REGISTRY
from ..utils import unique_name
from .builder import append_op, building_active, build_into
from .lod import lod_level_of, lod_names
from .program import default_main_program, default_startup_program
from ..framework.tensor import is_variable


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
        lod_level (int): LoD levels (0: a plain tensor). Each level gets an int64 offsets
            companion variable (`name@LOD` for the finest, see static/lod.py), fed from a
            LoDTensor (`paddle.base.create_lod_tensor`) and read by the sequence_* layers.

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
        paddle.Size([-1, 2])
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
    old = block.vars.get(name)
    if old is not None:
        if not old.is_data:
            raise ValueError(f"paddle.static.data: a variable named {name!r} already exists "
                             f"in the main program and is not a data variable")
        # NOTE: Paddle adds a second data op of the same name (both read the fed value);
        # here the new declaration replaces the old one, which keeps the name's feed
        del block.vars[name]
    var = block.create_var(name, dims, dtype, stop_gradient=True)
    var.is_data = True
    var.lod_level = lod_level
    _declare_lod(block, name, lod_level)
    return var


def _declare_lod(block, name: str, lod_level) -> None:
    """The int64 offsets data variables of `name`'s LoD levels (old ones dropped first)."""
    if not isinstance(lod_level, int) or isinstance(lod_level, bool) or lod_level < 0:
        raise ValueError(f"paddle.static.data: lod_level must be an int >= 0, got "
                         f"{lod_level!r}")
    for old in lod_names(name, lod_level_of(block, name)):
        del block.vars[old]
    for lname in lod_names(name, lod_level):
        block.create_var(lname, [-1], "int64", stop_gradient=True).is_data = True


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A trainable Parameter of the main program, initialised by the startup program.

    The initializer is chosen as for eager parameters (`attr.initializer`, the global one,
    `default_initializer`, else XavierUniform for weights and Constant(0.0) for biases) and
    called as `init(var, startup_block)` while the startup program is built: its ops are
    appended there and the value it returns is written to the parameter's name.

    Examples:
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main, startup = paddle.static.Program(), paddle.static.Program()
        >>> with paddle.static.program_guard(main, startup):
        ...     w = paddle.static.create_parameter([2, 3], "float32", name="w_doc_cp")
        >>> [op.type for op in startup.global_block().ops]
        ['uniform']
        >>> paddle.disable_static()
    """
    if not building_active():  # Paddle returns an eager Parameter in dynamic mode
        return eager_create_parameter(shape, dtype, name=name, attr=attr, is_bias=is_bias,
                                      default_initializer=default_initializer)
    api = "paddle.static.create_parameter"
    dims = check_shape(api, shape)
    dtype = _dt.convert_dtype(dtype)
    if attr is not None and not hasattr(attr, "name"):   # str, Initializer; else TypeError
        attr = ParamAttr._to_attr(attr)
    if default_initializer is not None and not callable(default_initializer):
        raise TypeError(f"{api}: default_initializer must be an Initializer, got "
                        f"{type(default_initializer).__name__}")
    init = choose_initializer(api, dtype, getattr(attr, "initializer", None), is_bias,
                              default_initializer)
    name = (getattr(attr, "name", None) or name or
            unique_name.generate("create_parameter") + (".b_0" if is_bias else ".w_0"))
    trainable = getattr(attr, "trainable", True)
    main = default_main_program().global_block()
    if name in main.vars:      # a ParamAttr name used again shares the parameter (Paddle)
        return _shared_parameter(main.vars[name], dims, dtype)
    param = main.create_parameter(name, dims, dtype, trainable=trainable)
    lr = getattr(attr, "learning_rate", None)
    if lr is not None:
        param.optimize_attr = {"learning_rate": lr}
    param.regularizer = getattr(attr, "regularizer", None)
    param.need_clip = getattr(attr, "need_clip", True)
    _initialize(name, dims, dtype, init)
    return param


def _shared_parameter(existing, dims: list, dtype):
    """The parameter already named so, when its shape and dtype match (weight sharing)."""
    if not existing.is_parameter or list(existing._shape) != list(dims) or \
            existing.dtype != dtype:
        raise ValueError(f"paddle.static.create_parameter: the main program already has a "
                         f"{'parameter' if existing.is_parameter else 'variable'} named "
                         f"{existing.name!r} of shape {list(existing._shape)} and dtype "
                         f"{existing.dtype.name}; a shared parameter needs shape {list(dims)} "
                         f"and dtype {dtype.name}")
    return existing


def _initialize(name: str, dims: list, dtype, init) -> None:
    """Run `init` into the startup program so that it defines the variable `name`."""
    startup = default_startup_program().global_block()
    with build_into(startup), _startup_names(startup.program):
        target = startup.create_var(name, dims, dtype, persistable=True)
        value = _call_initializer(init, target, startup)
        if value is not None and value is not target:
            write_to(startup, value, name)


def _call_initializer(init, var, block):
    """`init(var, block)` as Paddle calls initializers; a plain callable that takes only the
    parameter (as eager code may pass) is called as `init(var)`."""
    if not isinstance(init, Initializer):
        try:
            inspect.signature(init).bind(var, block)
        except TypeError:
            return init(var)
        except ValueError:  # no signature to inspect (a builtin): Paddle's protocol
            pass
    return init(var, block)


# startup Program -> the name counters its initializer ops use (temporaries there do not
# shift the numbering of the main program's variables)
_STARTUP_NAMES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def _startup_names(program):
    counters = _STARTUP_NAMES.setdefault(program, collections.defaultdict(int))
    old = unique_name.switch(counters)
    try:
        yield
    finally:
        unique_name.switch(old)


def write_to(block, value, name: str) -> None:
    """Make `value` define the variable `name` of `block` (being built): the op that
    produced it last is redirected to `name`; any other Variable, or an eager Tensor (a
    value computed at build time, e.g. Assign's array), is copied there by an assign op
    (a cast when its dtype differs)."""
    target = block.vars[name]
    if list(value.shape) != list(target.shape):
        raise ValueError(f"paddle.static.create_parameter: the initializer of {name!r} gave "
                         f"a value of shape {list(value.shape)}, expected "
                         f"{list(target.shape)}")
    if value.dtype != target.dtype:
        value = append_op(REGISTRY["cast"], (value,), {"dtype": target.dtype.name},
                          block=block)
    elif not is_variable(value) or not _defined_last(block, value):
        value = append_op(REGISTRY["assign"], (value,), {}, block=block)
    for names in block.ops[-1].outputs.values():
        if value.name in names:
            names[names.index(value.name)] = name
            del block.vars[value.name]
            return


def _defined_last(block, var) -> bool:
    return bool(block.ops) and any(var.name in names
                                   for names in block.ops[-1].outputs.values())


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A global Variable filled with `value` by the startup program."""
    if not building_active():  # Paddle returns a filled eager Tensor in dynamic mode
        from ..ops.dispatch import call
        out = call("full", shape=check_shape("create_global_var", shape), fill_value=value,
                   dtype=_dt.convert_dtype(dtype).name)
        out.persistable = bool(persistable)
        if name is not None:
            out.name = name
        return out
    dims = check_shape("create_global_var", shape)
    dtype = _dt.convert_dtype(dtype)
    name = name or unique_name.generate("global_var")
    var = default_main_program().global_block().create_var(
        name, dims, dtype, persistable=True, stop_gradient=True)  # kept in the scope
    startup = default_startup_program().global_block()
    with build_into(startup):
        append_op(REGISTRY["full"], (), {"shape": dims, "fill_value": value,
                                         "dtype": dtype.name}, out_names=[name]).persistable = True
    return var

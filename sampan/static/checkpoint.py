"""Training checkpoints of static Programs: static.save / static.load / load_program_state /
set_program_state.

Files as Paddle writes them: `<path>.pdparams` (parameters) and `<path>.pdopt` (the other
persistable variables: optimizer state, running statistics of layers that keep them outside
parameters) are paddle.save pickles of {name: ndarray} (PaddlePaddle reads them, and
paddle.load's restricted unpickler loads them safely); `<path>.pdmodel` is sampan's JSON
program (Paddle's is a protobuf). Values come from the scope, or from the Layer Parameter a
variable is bound to. Imports `framework` and `static`.
"""
from __future__ import annotations

import json
import os
import warnings

import numpy as np

from ..framework.io import load as _load, save as _save
from .executor import global_scope
from .io import program_to_dict
from .program import Program

__all__ = ["save", "load", "load_program_state", "set_program_state"]

_SUFFIXES = (".pdparams", ".pdopt", ".pdmodel")


def _program(api: str, program) -> Program:
    program = getattr(program, "_program", program)  # CompiledProgram
    if not isinstance(program, Program):
        raise TypeError(f"{api}: program must be a Program, got {type(program).__name__}")
    return program


def _check_path(api: str, model_path) -> str:
    model_path = os.fspath(model_path) if isinstance(model_path, os.PathLike) else model_path
    if not isinstance(model_path, str):
        raise TypeError(f"{api}: model_path must be a str, got {type(model_path).__name__}")
    if not os.path.basename(model_path):
        raise ValueError(f"{api}: model_path must be of the form dirname/filename, got "
                         f"{model_path!r} (empty file name)")
    for suffix in _SUFFIXES:
        if model_path.endswith(suffix):
            return model_path[:-len(suffix)]
    return model_path


def _is_state(program: Program, v) -> bool:
    """A persistable variable holding trained values (not a constant, not data, not the
    learning rate the optimizer feeds)."""
    if not v.persistable or v.is_data or v.name in program._consts:
        return False
    bound = program._bound.get(v.name)
    return bound is None or hasattr(bound, "set_value")


def _value(program: Program, v, scope, api: str) -> np.ndarray:
    bound = program._bound.get(v.name)
    arr = bound._data if bound is not None else scope.get(v.name)
    if arr is None:
        raise RuntimeError(f"{api}: variable {v.name!r} has no value in the scope; run the "
                           f"startup program first")
    return np.asarray(arr)


def save(program, model_path, protocol: int = 4, **configs) -> None:
    """Save the parameters (`model_path`.pdparams), the other persistable variables such as
    optimizer state (`.pdopt`) and the program (`.pdmodel`).

    Args:
        program (Program): the program whose persistable variables are saved.
        model_path (str): "dirname/filename"; folders are created.
        protocol (int): pickle protocol, 2 to 4. Default 4.
    """
    api = "paddle.static.save"
    program = _program(api, program)
    base = _check_path(api, model_path)
    if isinstance(protocol, bool) or not isinstance(protocol, int) or not 2 <= protocol <= 4:
        raise ValueError(f"{api}: protocol must be an int in [2, 4], got {protocol!r}")
    scope = configs.get("scope") or global_scope()
    params, others = {}, {}
    for v in program.list_vars():
        if _is_state(program, v):
            (params if v.is_parameter else others)[v.name] = _value(program, v, scope, api)
    folder = os.path.dirname(os.path.abspath(base))
    os.makedirs(folder, exist_ok=True)
    with warnings.catch_warnings():  # an empty dict is normal here (no optimizer yet)
        warnings.simplefilter("ignore", UserWarning)
        _save(params, base + ".pdparams", protocol=protocol)
        _save(others, base + ".pdopt", protocol=protocol)
    with open(base + ".pdmodel", "w", encoding="utf-8") as f:
        json.dump(program_to_dict(program), f, indent=1)  # slot order matters


def load_program_state(model_path, var_list=None) -> dict:
    """The saved values {name: ndarray} of `model_path`.pdparams and .pdopt (when present).

    Args:
        model_path (str): the path given to static.save (a suffix is allowed).
        var_list (list, optional): Variables (or names) to return; default all.
    """
    api = "paddle.static.load_program_state"
    base = _check_path(api, model_path)
    if not os.path.exists(base + ".pdparams"):
        raise ValueError(f"{api}: no parameter file {base + '.pdparams'!r} (saved by "
                         f"paddle.static.save) exists")
    state = dict(_load(base + ".pdparams", return_numpy=True))
    if os.path.exists(base + ".pdopt"):
        state.update(_load(base + ".pdopt", return_numpy=True))
    if var_list is not None:
        names = [v if isinstance(v, str) else v.name for v in var_list]
        missing = [n for n in names if n not in state]
        if missing:
            raise ValueError(f"{api}: variables {missing} are not in the checkpoint "
                             f"{base!r}")
        state = {n: state[n] for n in names}
    return state


def set_program_state(program, state_dict: dict) -> None:
    """Write `state_dict` ({name: array}) into the program's persistable variables (the
    scope, or the bound Layer Parameters). Keys the program lacks are reported in a
    warning; a shape mismatch is an error."""
    api = "paddle.static.set_program_state"
    program = _program(api, program)
    if not isinstance(state_dict, dict):
        raise TypeError(f"{api}: state_dict must be a dict, got {type(state_dict).__name__}")
    used = _assign(api, program, state_dict, global_scope(), None)
    unused = sorted(set(state_dict) - used)
    if unused:
        warnings.warn(f"{api}: these entries are not variables of the program and were not "
                      f"set: {unused}")


def _assign(api, program, state, scope, names) -> set:
    used = set()
    for v in program.list_vars():
        if not _is_state(program, v) or v.name not in state:
            continue
        if names is not None and v.name not in names:
            continue
        arr = np.asarray(getattr(state[v.name], "_data", state[v.name]))
        if list(arr.shape) != v.shape and arr.size != max(v.size, 0):
            raise ValueError(f"{api}: variable {v.name!r} needs shape {list(v.shape)}, but the "
                             f"loaded value has shape {list(arr.shape)}")
        arr = arr.reshape(v.shape).astype(v.dtype.np, copy=True)
        bound = program._bound.get(v.name)
        if bound is not None:
            bound.set_value(arr)
        else:
            scope.set(v.name, arr)
        used.add(v.name)
    return used


def load(program, model_path, executor=None, var_list=None) -> None:
    """Load what static.save wrote into the program's variables.

    Args:
        program (Program): the program to restore.
        model_path (str): the path given to static.save (a suffix is allowed).
        executor (Executor, optional): accepted for compatibility.
        var_list (list, optional): restore only these Variables (or names).

    Raises:
        ValueError: a parameter of the program is missing from the checkpoint, or a shape
            differs.
    """
    api = "paddle.static.load"
    program = _program(api, program)
    base = _check_path(api, model_path)
    state = load_program_state(base)
    names = None
    if var_list is not None:
        names = {v if isinstance(v, str) else v.name for v in var_list}
    wanted = [v for v in program.list_vars() if _is_state(program, v)
              and (names is None or v.name in names)]
    has_opt = os.path.exists(base + ".pdopt")
    missing = [v.name for v in wanted if v.name not in state
               and (v.is_parameter or has_opt)]
    if missing:
        raise ValueError(f"{api}: the checkpoint {base!r} has no value for {missing}")
    _assign(api, program, state, global_scope(), names)

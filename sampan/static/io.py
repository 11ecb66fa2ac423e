"""Program serialization (versioned JSON) and persistables (.npz without pickle);
save/load_inference_model, serialize/deserialize_program/persistables, normalize_program.

Imports `framework`, `static.program`, `static.executor`, `static.passes`.
"""
from __future__ import annotations

import base64
import io as _io
import json
import os
import warnings

import numpy as np

from ..framework import dtype as _dt
from .executor import Scope, global_scope
from .passes.dce import dead_code_elimination
from ..framework.io import register_program_format, write_atomic
from ..framework.tensor import wrap, is_variable
from ..ops.custom_op import ensure_custom_ops
from .program import Block, Operator, Parameter, Program, Variable, default_main_program

FORMAT = "sampan.program"
VERSION = 1


def _json_attr(value):
    """Attr values as plain JSON (tuples -> lists, NumPy scalars -> Python, dtypes -> names)."""
    if isinstance(value, (list, tuple)):
        return [_json_attr(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_attr(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, _dt.DType):
        return value.name
    if isinstance(value, np.dtype):
        return _dt.from_numpy(value).name
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"serialize_program: attr value {value!r} of type {type(value).__name__} "
                    f"is not JSON-serializable")


def _array_to_json(arr: np.ndarray) -> dict:
    arr = np.asarray(arr, order="C")
    return {"dtype": _dt.from_numpy(arr.dtype).name, "shape": list(arr.shape),
            "data": base64.b64encode(arr.tobytes()).decode("ascii")}


def _array_from_json(d: dict) -> np.ndarray:
    npd = _dt.convert_dtype(d["dtype"]).np
    return np.frombuffer(base64.b64decode(d["data"]), dtype=npd).reshape(d["shape"]).copy()


def _py_func_ops(program: Program) -> list:
    return [op for block in program.blocks for op in block.ops if op.type == "py_func"]


def refuse_py_func(program: Program, api: str) -> None:
    """A program that runs Python functions (py_func ops) cannot be written to a file."""
    ops = _py_func_ops(program)
    if ops:
        from ..ops.py_func import _PyFuncs
        func = _PyFuncs.funcs.get(ops[0].attrs.get("forward_callable_id"))
        what = getattr(func, "__qualname__", None) or "a Python function"
        raise ValueError(f"{api}: the program contains {len(ops)} py_func op(s) (the first "
                         f"runs {what}); Python functions cannot be serialized, so such a "
                         f"program cannot be saved. Save a program built without "
                         f"static.py_func")


def program_to_dict(program: Program) -> dict:
    """The program as a JSON-able dict. py_func ops keep their callable ids, valid only in
    this process (the dict carries this process's registry token; program_from_dict refuses
    a dict from another process, and the file writers refuse py_func programs)."""
    blocks = []
    for block in program.blocks:
        vars_ = []
        for v in block.vars.values():
            kind = ("param" if v.is_parameter else "data" if v.is_data else
                    "const" if v.name in program._consts else "var")
            entry = {"name": v.name, "kind": kind, "shape": v.shape, "dtype": v.dtype.name,
                     "persistable": v.persistable, "stop_gradient": v.stop_gradient}
            if kind == "const":
                entry["value"] = _array_to_json(program._consts[v.name])
            if kind == "param":
                entry["trainable"] = bool(v.trainable)
            vars_.append(entry)
        ops = [{"type": op.type, "inputs": op.inputs, "outputs": op.outputs,
                "attrs": {k: _json_attr(a) for k, a in op.attrs.items()},
                **({"namescope": op.namescope} if op.namescope != "/" else {}),
                **({"op_device": op.op_device} if op.op_device else {}),
                **({"loc": list(op.loc)} if op.loc else {})}
               for op in block.ops]
        blocks.append({"idx": block.idx, "parent": block.parent_idx, "vars": vars_,
                       "ops": ops})
    d = {"format": FORMAT, "version": VERSION, "random_seed": program.random_seed,
         "blocks": blocks}
    if _py_func_ops(program):
        from ..ops.py_func import py_func_token
        d["py_func_token"] = py_func_token()
    return d


def program_from_dict(d: dict) -> Program:
    if d.get("format") != FORMAT:
        raise ValueError(f"deserialize_program: not a sampan program (format "
                         f"{d.get('format')!r})")
    if d.get("version", 0) > VERSION:
        raise ValueError(f"deserialize_program: format version {d['version']} is newer than "
                         f"this sampan understands ({VERSION})")
    if any(od["type"] == "py_func" for bd in d["blocks"] for od in bd["ops"]):
        from ..ops.py_func import py_func_token
        if d.get("py_func_token") != py_func_token():
            raise ValueError("deserialize_program: the program contains py_func ops whose "
                             "Python functions were registered in another process; "
                             "programs with py_func cannot be saved and loaded")
    program = Program()
    program.random_seed = d.get("random_seed", 0)
    program.blocks = []
    for bd in d["blocks"]:
        block = Block(program, bd["idx"], bd["parent"])
        for vd in bd["vars"]:
            if vd["kind"] == "param":
                v = Parameter(block, vd["name"], vd["shape"], vd["dtype"],
                              trainable=vd.get("trainable", True))
            else:
                v = Variable(block, vd["name"], vd["shape"], vd["dtype"], vd["persistable"],
                             vd["stop_gradient"])
            v._stop_gradient = vd["stop_gradient"]
            v.is_data = vd["kind"] == "data"
            if vd["kind"] == "const":
                program._consts[v.name] = _array_from_json(vd["value"])
            block.vars[v.name] = v
        for od in bd["ops"]:
            block.ops.append(Operator(block, od["type"], od["inputs"], od["outputs"],
                                      od["attrs"], od.get("namescope", "/"),
                                      tuple(od["loc"]) if od.get("loc") else None,
                                      od.get("op_device", "")))
        program.blocks.append(block)
    return program


def _names(vars_, api: str = "normalize_program") -> list:
    if vars_ is None:
        return []
    vars_ = vars_ if isinstance(vars_, (list, tuple)) else [vars_]
    for v in vars_:
        if not isinstance(v, str) and not is_variable(v):
            from .builder import building_active
            from .input import static_mode_error
            if not building_active():
                raise static_mode_error(f"paddle.static.{api}")
            raise TypeError(f"{api}: feed_vars/fetch_vars must be static Variables (or names), "
                            f"got {type(v).__name__}")
    return [v if isinstance(v, str) else v.name for v in vars_]


def normalize_program(program: Program, feed_vars, fetch_vars, **kwargs) -> Program:
    """An inference copy of `program`: only the ops the fetches need, test-mode attrs."""
    if not isinstance(program, Program):
        raise TypeError(f"normalize_program: program must be a Program, got "
                        f"{type(program).__name__}")
    fetch = _names(fetch_vars, kwargs.get("_api", "normalize_program"))
    from .lod import lod_level_of, lod_names, with_lods   # LoD vars keep their offsets
    pruned = dead_code_elimination(program, keep=with_lods(program.global_block(), fetch),
                                   side_effects=False, prune_vars=True)
    pruned = pruned.clone(for_test=True)
    block = pruned.global_block()
    feeds = _names(feed_vars, kwargs.get("_api", "normalize_program"))
    for name in feeds + fetch:
        if not block.has_var(name):
            raise ValueError(f"normalize_program: {name!r} is not a variable of the program")
    fed = set(feeds).union(*[lod_names(f, lod_level_of(block, f)) for f in feeds])
    for v in block.vars.values():
        if v.is_data and v.name not in fed:
            used = any(v.name in op.input_arg_names for op in block.ops)
            if used:
                raise ValueError(f"normalize_program: the fetches need data variable "
                                 f"{v.name!r}, which is not in feed_vars")
    pruned._feed_names = feeds
    pruned._fetch_names = fetch
    return pruned


def serialize_program(feed_vars, fetch_vars, **kwargs) -> bytes:
    """The pruned inference program of `kwargs['program']` (default main) as JSON bytes."""
    program = kwargs.get("program") or default_main_program()
    program = normalize_program(program, feed_vars, fetch_vars,
                                _api=kwargs.get("_api", "serialize_program"))
    refuse_py_func(program, "serialize_program")
    d = program_to_dict(program)
    d["feed"], d["fetch"] = program._feed_names, program._fetch_names
    # NOTE: no sort_keys: an op's output slots are positional in dict order (Executor)
    return json.dumps(d, indent=1).encode("utf-8")


def deserialize_program(data: bytes, model_dir: str = "") -> Program:
    d = json.loads(data.decode("utf-8") if isinstance(data, bytes) else data)
    # jit.save'd custom ops: reload their libraries (recorded path, else next to the model)
    ensure_custom_ops((d.get("jit") or {}).get("custom_ops", {}), model_dir)
    program = program_from_dict(d)
    program._feed_names = d.get("feed", [])
    program._fetch_names = d.get("fetch", [])
    return program


def _persistable_values(program: Program, scope) -> dict:
    out = {}
    for v in program.list_vars():
        if not v.persistable or v.name in program._consts:
            continue
        if v.name in program._bound:
            out[v.name] = program._bound[v.name]._data
        else:
            arr = scope.get(v.name)
            if arr is None:
                raise RuntimeError(f"serialize_persistables: {v.name!r} has no value in the "
                                   f"scope; run the startup program first")
            out[v.name] = arr
    return out


def _npz_bytes(values: dict) -> bytes:
    # NOTE: .npy has no bfloat16: such arrays are stored as their uint16 bits and listed in
    # __bfloat16__, so that they load back as bfloat16
    arrays = {f"v{i}": np.asarray(a, order="C") for i, a in enumerate(values.values())}
    bf16 = [k for k, a in arrays.items() if a.dtype == _dt.bfloat16.np]
    for k in bf16:
        arrays[k] = arrays[k].view(np.uint16)
    extra = {"__bfloat16__": np.array(bf16, dtype=np.str_)} if bf16 else {}
    buf = _io.BytesIO()
    np.savez(buf, **arrays, __names__=np.array(list(values), dtype=np.str_), **extra)
    return buf.getvalue()


def _npz_load(data: bytes) -> dict:
    with np.load(_io.BytesIO(data), allow_pickle=False) as z:
        names = [str(n) for n in z["__names__"]]
        bf16 = {str(k) for k in z["__bfloat16__"]} if "__bfloat16__" in z.files else set()
        return {n: z[f"v{i}"].view(_dt.bfloat16.np) if f"v{i}" in bf16 else z[f"v{i}"]
                for i, n in enumerate(names)}


def serialize_persistables(feed_vars, fetch_vars, executor=None, **kwargs) -> bytes:
    """Values of the pruned program's persistables (parameters) as .npz bytes (no pickle)."""
    program = kwargs.get("program") or default_main_program()
    program = normalize_program(program, feed_vars, fetch_vars)
    return _npz_bytes(_persistable_values(program, kwargs.get("scope") or global_scope()))


def deserialize_persistables(program: Program, data: bytes, executor=None, scope=None):
    """Load values saved by serialize_persistables into the scope."""
    scope = scope or global_scope()
    values = _npz_load(data)
    for v in program.list_vars():
        if v.persistable and v.name not in program._consts and v.name not in values:
            raise ValueError(f"deserialize_persistables: no value for {v.name!r}")
    for name, arr in values.items():
        scope.set(name, arr)


def save_inference_model(path_prefix: str, feed_vars, fetch_vars, executor, **kwargs) -> None:
    """Write `path_prefix`.pdmodel (JSON program pruned to the fetches) and
    `path_prefix`.pdiparams (parameters, .npz format without pickle)."""
    if not isinstance(path_prefix, str) or not path_prefix or path_prefix.endswith("/"):
        raise ValueError(f"save_inference_model: path_prefix must be a file prefix like "
                         f"'dir/model', got {path_prefix!r}")
    os.makedirs(os.path.dirname(os.path.abspath(path_prefix)), exist_ok=True)
    if kwargs.get("program") is None:  # the fetches' own program, not only the default one
        fetches = fetch_vars if isinstance(fetch_vars, (list, tuple)) else [fetch_vars]
        if fetches and is_variable(fetches[0]):
            kwargs["program"] = fetches[0].block.program
    model = serialize_program(feed_vars, fetch_vars, _api="save_inference_model", **kwargs)
    params = serialize_persistables(feed_vars, fetch_vars, executor, **kwargs)
    write_atomic(path_prefix + ".pdmodel", lambda f: f.write(model))
    write_atomic(path_prefix + ".pdiparams", lambda f: f.write(params))


def load_inference_model(path_prefix: str, executor, **kwargs) -> list:
    """Returns [program, feed_target_names, fetch_targets] and loads the parameters into the
    global scope."""
    model_path = kwargs.get("model_filename") or path_prefix + ".pdmodel"
    params_path = kwargs.get("params_filename") or path_prefix + ".pdiparams"
    if not os.path.exists(model_path) and os.path.exists(path_prefix + ".json"):
        model_path = path_prefix + ".json"  # PaddlePaddle 3.x's PIR program file
    if not os.path.exists(model_path):
        raise FileNotFoundError(f"load_inference_model: {model_path!r} does not exist")
    with open(model_path, "rb") as f:
        data = f.read()
    if not _is_sampan_program(data):
        reader = _foreign_reader(model_path)
        if reader is not None:
            return reader(path_prefix, executor, **kwargs)
    if not os.path.exists(params_path):
        raise FileNotFoundError(f"load_inference_model: {params_path!r} does not exist")
    program = deserialize_program(data, os.path.dirname(os.path.abspath(model_path)))
    with open(params_path, "rb") as f:
        deserialize_persistables(program, f.read(), executor, kwargs.get("scope"))
    block = program.global_block()
    return [program, list(program._feed_names), [block.var(n) for n in program._fetch_names]]


# Readers of other program formats (PaddlePaddle's own .pdmodel / PIR .json files), found by
# module name so that `static` stays below the rooms that provide them; each module defines
# `load_inference_model(path_prefix, executor, **kwargs)`.
FOREIGN_READERS = ("sampan.inference.paddle_format",)


def _is_sampan_program(data: bytes) -> bool:
    head = data[:4096].lstrip()
    return head.startswith(b"{") and b'"sampan.program"' in data[:4096]


def _foreign_reader(model_path: str):
    import importlib
    for name in FOREIGN_READERS:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        return module.load_inference_model
    return None


# --- Program methods that need the Executor's scope or the serializer ------------------------

def parse_from_string(binary_str) -> Program:
    """A Program from sampan's serialized form (JSON text or bytes, as written by
    static.serialize_program or the .pdmodel files)."""
    if isinstance(binary_str, (bytes, bytearray)):
        binary_str = bytes(binary_str).decode("utf-8")
    if not isinstance(binary_str, str):
        raise TypeError(f"Program.parse_from_string: expected str or bytes, got "
                        f"{type(binary_str).__name__}")
    try:
        d = json.loads(binary_str)
    except ValueError as e:
        raise ValueError(f"Program.parse_from_string: not a serialized sampan program "
                         f"({e})") from None
    if not isinstance(d, dict):
        raise ValueError("Program.parse_from_string: not a serialized sampan program")
    program = program_from_dict(d)
    program._feed_names = d.get("feed", [])
    program._fetch_names = d.get("fetch", [])
    return program


def _state_vars(self: Program, mode: str) -> list:
    if not isinstance(mode, str):
        raise TypeError(f"Type of `mode` should be string, but received "
                        f"{type(mode).__name__}")
    if mode not in ("all", "param", "opt"):
        raise ValueError(f"`mode` string should be 'param', 'opt' or 'all', but received "
                         f"{mode}")
    out = []
    for v in self.list_vars():
        if not v.persistable or v.name in self._consts or v.is_data:
            continue
        if mode == "all" or (mode == "param") == v.is_parameter:
            out.append(v)
    return out


def _state_dict(self: Program, mode: str = "all", scope=None) -> dict:
    """{name: Tensor} of the parameters ('param'), the other persistable variables such
    as optimizer state ('opt'), or both ('all'), read from `scope` (default global)."""
    if scope is not None and not isinstance(scope, Scope):
        raise TypeError(f"`scope` should be None or `paddle.static.Scope` type, but "
                        f"received {type(scope).__name__}")
    scope = scope or global_scope()
    out = {}
    for v in self._state_vars(mode):
        arr = self._bound[v.name]._data if v.name in self._bound else scope.get(v.name)
        if arr is None:
            raise ValueError(f"Can not find Variable '{v.name}' in the scope. Make sure "
                             f"it is initialized")
        out[v.name] = wrap(arr)
    return out


def _set_state_dict(self: Program, state_dict: dict, scope=None) -> None:
    """Set persistable variables from {name: array or Tensor} (run the startup program
    first); names not in the program, or of the wrong shape, are skipped with a
    warning."""
    if not isinstance(state_dict, dict):
        raise TypeError(f"Type of `state_dict` should be dict, but received "
                        f"{type(state_dict).__name__}")
    if scope is not None and not isinstance(scope, Scope):
        raise TypeError(f"`scope` should be None or `paddle.static.Scope` type, but "
                        f"received {type(scope).__name__}")
    scope = scope or global_scope()
    known = {v.name: v for v in self.list_vars()}
    for name, value in state_dict.items():
        var = known.get(name)
        if var is None:
            warnings.warn(f"Skip loading for '{name}'. Because '{name}' not in the "
                          f"program.")
            continue
        if not (isinstance(value, np.ndarray) or hasattr(value, "__array__")):
            warnings.warn(f"Skip loading for '{name}'. `value` should be `numpy.ndarray` "
                          f"or Tensor, but received {type(value).__name__}.")
            continue
        arr = np.asarray(getattr(value, "_data", value))
        bound = self._bound.get(name)
        cur = bound._data if bound is not None else scope.get(name)
        if cur is None:
            warnings.warn(f"Skip loading for '{name}'. Can not find Variable '{name}' in "
                          f"the Scope.")
            continue
        if list(cur.shape) != list(arr.shape):
            warnings.warn(f"Skip loading for '{name}'. {name} expected a shape "
                          f"{list(cur.shape)}, but the received shape is "
                          f"{list(arr.shape)}.")
            continue
        arr = arr.astype(cur.dtype)
        if bound is not None:
            bound._data = arr.copy()
            bound._version += 1
        else:
            scope.set(name, arr)


def _program_bytes(program: Program) -> bytes:
    """paddle.save(program): the whole program (not pruned) as sampan's JSON text."""
    refuse_py_func(program, "paddle.save")
    return json.dumps(program_to_dict(program), indent=1).encode("utf-8")


register_program_format(Program, _program_bytes, _is_sampan_program, parse_from_string)
Program.parse_from_string = staticmethod(parse_from_string)
Program._state_vars = _state_vars
Program.state_dict = _state_dict
Program.set_state_dict = _set_state_dict

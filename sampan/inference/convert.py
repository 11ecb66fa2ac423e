"""paddle.inference.convert_to_mixed_precision: rewrite a saved inference model (sampan's or
Paddle's format) so that it computes in float16/bfloat16, and the TensorRT version queries.

The program is replayed op by op into a new Program under the AMP dispatch wrapper (the one
auto_cast installs): ops whose OpDef is black-listed (OpDef.amp "float32"/"float32_always"),
the normalizations and the caller's black_list keep float32, every other op computes in the
low precision,
and the wrapper inserts the casts between them. A float32 parameter read only by
low-precision ops is stored in the low precision; others stay float32. The result is
written in sampan's format (JSON program + .npz parameters), which a Predictor loads.
Imports `framework`, `ops`, `static`, `amp` and `inference.loader`.
"""
from __future__ import annotations

import collections
import os
import re

import numpy as np

from ..amp.auto_cast import AmpState, _black, _ops_with, make_wrapper
from ..framework import dtype as _dt
from ..framework import flags as _flags
from ..framework.io import write_atomic
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY
from ..static.builder import building, program_guard
from ..static.io import _npz_bytes, serialize_program
from ..static.program import Program
from ..utils import unique_name
from .enums import PlaceType, PrecisionType
from .loader import load_program

__all__ = ["convert_to_mixed_precision", "get_trt_compile_version", "get_trt_runtime_version"]

_API = "convert_to_mixed_precision"
_LOW = {PrecisionType.Half: "float16", PrecisionType.Bfloat16: "bfloat16"}
_CAST = REGISTRY["cast"]
# normalization statistics lose too much in 16 bits (Paddle's pass keeps their params float32)
_NORMS = frozenset({"batch_norm", "layer_norm", "group_norm", "instance_norm"})


def get_trt_compile_version() -> tuple:
    """The TensorRT version sampan was compiled with: (0, 0, 0), none (as Paddle without
    TensorRT)."""
    return (0, 0, 0)


def get_trt_runtime_version() -> tuple:
    """The TensorRT version found at run time: (0, 0, 0), none (as Paddle without TensorRT)."""
    return (0, 0, 0)


def convert_to_mixed_precision(model_file: str, params_file: str, mixed_model_file: str,
                               mixed_params_file: str, mixed_precision, backend,
                               keep_io_types: bool = True, black_list=set(),
                               **kwargs) -> None:
    """Convert a float32 inference model into a mixed-precision one.

    Args:
        model_file (str): the model (sampan's .pdmodel JSON, or Paddle's .pdmodel / .json).
        params_file (str): its parameters.
        mixed_model_file, mixed_params_file (str): where to write the converted model (in
            sampan's format; directories are created).
        mixed_precision (PrecisionType): PrecisionType.Half (float16) or Bfloat16.
        backend (PlaceType): the device the model is meant for (recorded only: sampan's
            kernels run it on any place).
        keep_io_types (bool, optional): keep float32 inputs and outputs (casts at the edges);
            False makes float inputs and outputs low precision too. Default True.
        black_list (set[str], optional): op types kept in float32. Default empty.
        white_list (set[str], optional, keyword): op types forced into low precision even
            if the default list keeps them in float32.

    Examples:
        >>> import os, tempfile
        >>> import sampan as paddle
        >>> from sampan.inference import (Config, PlaceType, PrecisionType,
        ...                               convert_to_mixed_precision, create_predictor)
        >>> d = tempfile.mkdtemp()
        >>> net = paddle.nn.Linear(4, 2)
        >>> paddle.jit.save(net, os.path.join(d, 'm'),
        ...                 input_spec=[paddle.static.InputSpec([None, 4], 'float32', 'x')])
        >>> convert_to_mixed_precision(os.path.join(d, 'm.pdmodel'),
        ...     os.path.join(d, 'm.pdiparams'), os.path.join(d, 'h.pdmodel'),
        ...     os.path.join(d, 'h.pdiparams'), PrecisionType.Half, PlaceType.GPU)
        >>> p = create_predictor(Config(os.path.join(d, 'h.pdmodel'),
        ...                             os.path.join(d, 'h.pdiparams')))
        >>> p.get_input_names()
        ['x']
    """
    low, black = _check(mixed_precision, backend, black_list, kwargs)
    for arg, path in (("mixed_model_file", mixed_model_file),
                      ("mixed_params_file", mixed_params_file)):
        if not isinstance(path, str) or not path:
            raise ValueError(f"{_API}: {arg} must be a file path, got {path!r}")
    program, feeds, fetch_vars, params = load_program(model_file, params_file)
    if program.num_blocks > 1:
        raise NotImplementedError(f"{_API}: {model_file!r} has control-flow sub-blocks; only "
                                  f"single-block programs are converted")
    state = AmpState("O2", low, _ops_with(("low",)) - black, black, use_promote=False)
    new, values, fetch_names = _replay(program, feeds, fetch_vars, params, state,
                                       bool(keep_io_types))
    model = serialize_program([new.global_block().var(f) for f in feeds],
                              [new.global_block().var(f) for f in fetch_names],
                              program=new, _api=_API)
    for path in (mixed_model_file, mixed_params_file):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_atomic(mixed_model_file, lambda f: f.write(model))
    write_atomic(mixed_params_file, lambda f: f.write(_npz_bytes(values)))


def _check(mixed_precision, backend, black_list, kwargs) -> tuple:
    if mixed_precision not in _LOW:
        raise ValueError(f"{_API}: mixed_precision must be PrecisionType.Half or "
                         f"PrecisionType.Bfloat16 (fp16 and bf16 only), got {mixed_precision!r}")
    if not isinstance(backend, PlaceType):
        raise TypeError(f"{_API}: backend must be a paddle.inference.PlaceType, got "
                        f"{backend!r}")
    unknown = set(kwargs) - {"white_list"}
    if unknown:
        raise TypeError(f"{_API}: unexpected keyword arguments {sorted(unknown)}")
    lists = {}
    for arg, value in (("black_list", black_list), ("white_list", kwargs.get("white_list"))):
        if value is not None and (isinstance(value, str) or
                                  not all(isinstance(v, str) for v in value)):
            raise TypeError(f"{_API}: {arg} must be a set of op type names, got {value!r}")
        lists[arg] = set(value or ())
    both = lists["black_list"] & lists["white_list"]
    if both:
        raise ValueError(f"{_API}: black_list and white_list both contain {sorted(both)}")
    black = (_black("O1") | _NORMS | lists["black_list"]) - lists["white_list"]
    return _dt.convert_dtype(_LOW[mixed_precision]), black


def _target(state: AmpState, op_type: str):
    """The precision an op of `op_type` computes in after conversion (None: as its inputs)."""
    op = REGISTRY[op_type]
    return state.target(op, ())


def _param_dtypes(program: Program, params: dict, state: AmpState) -> dict:
    """{float32 parameter: dtype to store}: low where every reader computes in low."""
    readers = collections.defaultdict(set)
    for op in program.global_block().ops:
        for name in op.input_arg_names:
            readers[name].add(_target(state, op.type))
    out = {}
    for name, value in params.items():
        if np.asarray(value).dtype == np.float32 and readers[name] == {state.low}:
            out[name] = state.low
    return out


def _fresh_counters(program: Program) -> dict:
    """Name counters that start above every generated name of `program` (no clashes when the
    outputs get their old names back)."""
    counters = collections.defaultdict(int)
    for name in program.global_block().vars:
        m = re.fullmatch(r"(tmp|const)_(\d+)", name)
        if m:
            counters[m.group(1)] = max(counters[m.group(1)], int(m.group(2)) + 1)
    return counters


def _replay(program, feeds, fetch_vars, params, state, keep_io) -> tuple:
    block = program.global_block()
    low_params = _param_dtypes(program, params, state)
    new = Program()
    nb = new.global_block()
    env, values = {}, {}
    for name in feeds:
        v = block.var(name)
        dtype = v.dtype if keep_io or v.dtype is not _dt.float32 else state.low
        env[name] = nb.create_var(name, v.shape, dtype, stop_gradient=True)
        env[name].is_data = True
    for name, value in params.items():
        v = block.var(name)
        dtype = low_params.get(name, _dt.convert_dtype(np.asarray(value).dtype))
        env[name] = nb.create_var(name, v.shape, dtype, persistable=True, stop_gradient=True)
        values[name] = np.asarray(value).astype(dtype.np)
    for name, arr in program._consts.items():
        env[name] = nb.create_var(name, arr.shape, _dt.convert_dtype(arr.dtype),
                                  persistable=True, stop_gradient=True)
        new._consts[name] = arr
    old_counters = unique_name.switch(_fresh_counters(program))
    try:
        with program_guard(new), building():
            with _flags.dispatch_wrapper(make_wrapper(state)):
                for op in block.ops:
                    _replay_op(op, env)
            fetch_names = [_edge_output(env[f.name], f.name, nb, keep_io, state)
                           for f in fetch_vars]
    finally:
        unique_name.switch(old_counters)
    return new, values, fetch_names


def _replay_op(op, env: dict) -> None:
    opdef = REGISTRY[op.type]
    args = []
    for slot, variadic in zip(opdef.input_names, opdef.variadic):
        names = op.inputs.get(slot) or []
        args.append([env[n] for n in names] if variadic else (env[names[0]] if names else None))
    result = dispatch(opdef, tuple(args), dict(op.attrs))
    outs = list(result) if opdef.multi_out else [result]
    old = [n for names in op.outputs.values() for n in names]
    if len(old) != len(outs):
        raise ValueError(f"{_API}: op {op.type} gave {len(outs)} outputs on replay, the model "
                         f"has {len(old)}")
    env.update(zip(old, outs))


def _edge_output(var, old_name: str, block, keep_io: bool, state) -> str:
    """The fetch variable under its old name (cast back to float32 when keep_io)."""
    if keep_io and var.dtype is state.low:
        var = dispatch(_CAST, (var,), {"dtype": "float32"})
    if var.name != old_name and not block.has_var(old_name):
        block.rename_var(var.name, old_name)
        return old_name
    return var.name

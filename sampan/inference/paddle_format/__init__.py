"""Running PaddlePaddle's own inference model files: the protobuf ProgramDesc (`.pdmodel`)
and PIR JSON (`.json`) program formats and the `.pdiparams` tensor stream, translated onto
sampan OpDefs as a static Program. Registers itself with `sampan.inference.loader`.

Imports `static`, `tensor`, `nn.functional` and `inference.loader`.
"""
from __future__ import annotations

import os

import numpy as np

from ...static.executor import global_scope
from .build import Unsupported, build_program
from .params import read_params
from .pir_json import read_pir_json
from .program_desc import read_program_desc
from .table import TABLE

__all__ = ["load_paddle_model", "load_inference_model", "read_paddle_program", "detect",
           "Unsupported", "TABLE"]


def _read(path: str) -> bytes:
    if not os.path.isfile(path):
        raise FileNotFoundError(f"paddle.inference: model file {path!r} does not exist")
    with open(path, "rb") as f:
        data = f.read()
    if not data:
        raise ValueError(f"paddle.inference: model file {path!r} is empty (truncated?)")
    return data


def _is_pir(head: bytes) -> bool:
    return head.lstrip()[:1] == b"{" and b'"sampan.program"' not in head


def read_paddle_program(model_file: str):
    """The reader-neutral model (ops, vars, feeds, fetches) of a `.pdmodel` or PIR `.json`."""
    data = _read(model_file)
    if _is_pir(data[:64]):
        return read_pir_json(data, model_file)
    return read_program_desc(data, model_file)


def _params_path(model_file: str, params_file: str | None) -> str | None:
    if params_file is not None:
        return params_file
    guess = os.path.splitext(model_file)[0] + ".pdiparams"
    return guess if os.path.exists(guess) else None


def load_paddle_model(model_file: str, params_file: str | None = None) -> tuple:
    """Read a PaddlePaddle inference model into a sampan static Program.

    Args:
        model_file (str): Paddle's `.pdmodel` (ProgramDesc protobuf) or PIR `.json`.
        params_file (str, optional): its `.pdiparams`; default the model file's stem +
            `.pdiparams`.

    Returns:
        (program, feed_names, fetch_names, params): a test-mode Program, its input and
        output variable names, and {parameter name: ndarray}.

    Raises:
        FileNotFoundError / ValueError naming the file (missing, truncated, corrupt, or a
        params file of another model); `Unsupported` (a ValueError) listing every Paddle
        op type that has no mapping.
    """
    model = read_paddle_program(model_file)
    missing = sorted({op.type for op in model.ops if op.type not in TABLE})
    if missing:
        counts = {t: sum(op.type == t for op in model.ops) for t in missing}
        listed = ", ".join(f"{t} (x{n})" for t, n in counts.items())
        raise Unsupported(f"paddle.inference: {model_file!r} uses {len(missing)} Paddle op "
                          f"type(s) that sampan cannot map: {listed}")
    params = {}
    if model.params:
        path = _params_path(model_file, params_file)
        if path is None or not os.path.isfile(path):
            raise FileNotFoundError(f"paddle.inference: the model {model_file!r} has "
                                    f"{len(model.params)} parameters but its params file "
                                    f"{path or '(stem + .pdiparams)'!r} does not exist")
        with open(path, "rb") as f:
            data = f.read()
        shapes = {n: model.vars[n].shape for n in model.params if n in model.vars}
        params = read_params(data, model.params, path, shapes)
    program, feeds, fetches = build_program(model, params, model_file, TABLE)
    used = set(program.global_block().vars)
    return program, feeds, fetches, {k: np.asarray(v) for k, v in params.items() if k in used}


def detect(model_file: str, head: bytes) -> bool:
    """True for Paddle's program files: a PIR JSON object with "magic": "pir" near the top,
    or a protobuf ProgramDesc (starts with field 1, length-delimited: byte 0x0a)."""
    if _is_pir(head):
        return b'"pir"' in head or model_file.endswith(".json")
    return head[:1] == b"\x0a"


def load_inference_model(path_prefix: str, executor=None, **kwargs) -> list:
    """`paddle.static.load_inference_model` for Paddle's own files: reads
    `path_prefix`.pdmodel or `path_prefix`.json (or `model_filename`) and
    `params_filename` / `path_prefix`.pdiparams, puts the parameters into `scope`
    (default the global scope) and returns [program, feed_target_names, fetch_targets]."""
    model = kwargs.get("model_filename")
    if model is None:
        model = next((path_prefix + e for e in (".pdmodel", ".json")
                      if os.path.exists(path_prefix + e)), path_prefix + ".pdmodel")
    params = kwargs.get("params_filename") or path_prefix + ".pdiparams"
    program, feeds, fetches, values = load_paddle_model(model, params)
    scope = kwargs.get("scope") or global_scope()
    for name, arr in values.items():
        scope.set(name, arr)
    block = program.global_block()
    return [program, feeds, [block.var(n) for n in fetches]]


def _register() -> None:
    try:
        from ..loader import register_format
    except ImportError:  # NOTE: the Predictor's loader is optional for this reader
        return
    register_format("paddle", detect, load_paddle_model)


_register()

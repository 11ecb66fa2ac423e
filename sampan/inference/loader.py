"""Model loading for paddle.inference: one entry point, `load_program`, dispatching on the
model file's format (sampan's own JSON program, or a registered reader such as Paddle's
protobuf/PIR files from `sampan.inference.paddle_format`), and the resolution of a model
directory or path prefix into (model file, params file).

sampan's format is read by jit.save_load's readers (no second reader here). Imports `static`
and `jit` (its file readers). Interface for other readers: /work/briefs/inference_interface.md.
"""
from __future__ import annotations

import glob
import importlib
import os
from typing import Callable

from ..jit.save_load import _program, read_model, read_params

__all__ = ["load_program", "register_format", "resolve_model_path"]

# name -> (detect(model_file, head) -> bool, load(model_file, params_file) -> tuple)
_FORMATS: dict = {}
# modules imported on the first file that is not sampan's own format; each registers a format
PLUGINS = ("sampan.inference.paddle_format",)
_HEAD = 64
_plugins_loaded = False


def register_format(name: str, detect: Callable, load: Callable) -> None:
    """Register a model reader: `detect(model_file, head_bytes) -> bool` and
    `load(model_file, params_file) -> (program, feed_names, fetch_vars_or_names, params)`."""
    if not callable(detect) or not callable(load):
        raise TypeError(f"register_format({name!r}): detect and load must be callables")
    _FORMATS[name] = (detect, load)


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for mod in PLUGINS:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name is None or not mod.startswith(e.name):
                raise


def _is_sampan(head: bytes) -> bool:
    return b'"sampan.program"' in head


def _load_sampan(model_file: str, params_file: str | None) -> tuple:
    d = read_model(model_file)
    program = _program(d, model_file)
    if params_file is None:
        params_file = os.path.splitext(model_file)[0] + ".pdiparams"
        if not os.path.exists(params_file) and not _needs_params(program):
            return program, program._feed_names, program._fetch_names, {}
    return program, program._feed_names, program._fetch_names, read_params(params_file,
                                                                          program)


def _needs_params(program) -> bool:
    return any(v.persistable and v.name not in program._consts and not v.is_data
               for v in program.list_vars())


def load_program(model_file: str, params_file: str | None = None) -> tuple:
    """Read a saved inference model.

    Args:
        model_file (str): the program file (sampan's `.pdmodel` JSON, or a format a
            registered reader detects).
        params_file (str|None): the parameters file; None: the model file's stem +
            `.pdiparams` when it exists.

    Returns:
        (program, feed_names, fetch_vars, params): a test-mode static Program, its input
        names, its output Variables, and {persistable name: numpy array}.
    """
    if not isinstance(model_file, str) or not model_file:
        raise ValueError(f"paddle.inference: model_file must be a file path, got "
                         f"{model_file!r}")
    if not os.path.isfile(model_file):
        raise FileNotFoundError(f"paddle.inference: model file {model_file!r} does not exist")
    with open(model_file, "rb") as f:
        head = f.read(_HEAD)
    if not head:
        raise ValueError(f"paddle.inference: model file {model_file!r} is empty (truncated?)")
    if _is_sampan(head):
        loaded = _load_sampan(model_file, params_file)
    else:
        loaded = _load_other(model_file, params_file, head)
    program, feeds, fetches, params = loaded
    block = program.global_block()
    fetch_vars = [block.var(f) if isinstance(f, str) else f for f in fetches]
    return program, list(feeds), fetch_vars, dict(params)


def _load_other(model_file: str, params_file: str | None, head: bytes) -> tuple:
    _load_plugins()
    for name, (detect, load) in _FORMATS.items():
        if detect(model_file, head):
            return load(model_file, params_file)
    readers = ", ".join(sorted(_FORMATS)) or "none installed"
    raise ValueError(f"paddle.inference: {model_file!r} is not a model file this sampan can "
                     f"read: it is not a sampan program (JSON with \"format\": "
                     f"\"sampan.program\") and no other reader recognises it (readers: "
                     f"{readers}); the file may be truncated or corrupt")


_MODEL_EXTS = (".pdmodel", ".json")
_DIR_NAMES = ("inference.pdmodel", "inference.json", "model.pdmodel", "__model__")


def resolve_model_path(path: str, prefix: str | None = None) -> tuple:
    """(model_file, params_file or None) of a model directory (optionally with a file
    prefix inside it), a path prefix ("dir/inference"), or a model file path."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"paddle.inference.Config: the model path must be a non-empty "
                         f"string, got {path!r}")
    if os.path.isdir(path):
        if prefix:
            return _from_prefix(os.path.join(path, prefix), f"{path!r} with prefix {prefix!r}")
        return _from_dir(path)
    if os.path.isfile(path) and path.endswith(_MODEL_EXTS):
        return path, _params_beside(path)
    return _from_prefix(path, repr(path))


def _from_prefix(prefix: str, what: str) -> tuple:
    for ext in _MODEL_EXTS:
        if os.path.isfile(prefix + ext):
            return prefix + ext, _params_beside(prefix + ext)
    raise FileNotFoundError(f"paddle.inference.Config: no model file for {what}: neither "
                            f"{prefix + '.pdmodel'!r} nor {prefix + '.json'!r} exists")


def _from_dir(folder: str) -> tuple:
    for name in _DIR_NAMES:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return path, _params_beside(path)
    found = sorted(p for ext in _MODEL_EXTS for p in glob.glob(os.path.join(folder, "*" + ext)))
    if len(found) == 1:
        return found[0], _params_beside(found[0])
    if not found:
        raise FileNotFoundError(f"paddle.inference.Config: directory {folder!r} holds no model "
                                f"file (*.pdmodel, *.json or __model__)")
    raise ValueError(f"paddle.inference.Config: directory {folder!r} holds several model files "
                     f"({[os.path.basename(p) for p in found]}); pass Config(model_file, "
                     f"params_file) or Config(model_dir, prefix)")


def _params_beside(model_file: str) -> str | None:
    params = os.path.splitext(model_file)[0] + ".pdiparams"
    return params if os.path.isfile(params) else None

"""Compiling custom-op sources into a shared library (the system C++ compiler, cached by a
hash of sources, headers and flags) and turning a loaded library into a Python module of
op functions. Imports `ops`.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import types

from ...ops.custom_op import load_op_library
from ...ops.dispatch import dispatch

INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")
BRIDGE = os.path.join(INCLUDE_DIR, "paddle", "sampan_bridge.cc")
_BASE_FLAGS = ["-std=c++17", "-O3", "-shared", "-fPIC", "-fvisibility=default"]


def get_build_directory(verbose: bool = False) -> str:
    """The root folder of extension builds: $PADDLE_EXTENSION_DIR, else
    ~/.cache/paddle_extensions (created if missing)."""
    root = os.environ.get("PADDLE_EXTENSION_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "paddle_extensions")
    os.makedirs(root, exist_ok=True)
    if verbose:
        print(f"Compiling user custom op, it will cost a few seconds.....\n  build dir: {root}")
    return root


def find_compiler(api: str) -> str:
    """$CXX, else the first of c++, g++, clang++ on PATH; a clear error when there is none."""
    names = [os.environ["CXX"]] if os.environ.get("CXX") else ["c++", "g++", "clang++"]
    for name in names:
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError(f"{api}: no C++ compiler found (looked for {', '.join(names)} on "
                       f"PATH); install one (e.g. `apt-get install g++`) or set $CXX")


def _check_sources(api: str, sources) -> list:
    if isinstance(sources, str):
        sources = [sources]
    if not sources:
        raise ValueError(f"{api}: sources must name at least one .cc/.cpp file")
    out = []
    for src in sources:
        if not isinstance(src, str) or not os.path.isfile(src):
            raise FileNotFoundError(f"{api}: source file {src!r} does not exist")
        if src.endswith(".cu"):
            raise RuntimeError(f"{api}: {src!r} is a CUDA source; sampan runs on CPU and "
                               f"compiles C++ sources only")
        out.append(os.path.abspath(src))
    return out


def build_library(api: str, name: str, sources, build_dir: str, cflags=(), ldflags=(),
                  include_dirs=(), verbose: bool = False) -> str:
    """Compile `sources` (+ the bridge) into `build_dir/<name>_<hash>.so`; an unchanged build
    (same sources, headers, flags, compiler) is reused. Returns the library path."""
    sources = _check_sources(api, sources)
    compiler = find_compiler(api)
    includes = [INCLUDE_DIR] + [os.path.abspath(p) for p in include_dirs]
    cmd_flags = _BASE_FLAGS + list(cflags) + [f"-I{p}" for p in includes]
    digest = hashlib.sha256()
    for path in sources + [BRIDGE, os.path.join(INCLUDE_DIR, "paddle", "extension.h")]:
        with open(path, "rb") as f:
            digest.update(path.encode() + b"\0" + f.read())
    digest.update("\0".join([compiler] + cmd_flags + list(ldflags)).encode())
    os.makedirs(build_dir, exist_ok=True)
    out = os.path.join(build_dir, f"{name}_{digest.hexdigest()[:16]}.so")
    if os.path.exists(out):
        return out
    tmp = f"{out}.{os.getpid()}.tmp"
    cmd = [compiler] + cmd_flags + sources + [BRIDGE, "-o", tmp] + list(ldflags)
    if verbose:
        print(" ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{api}: compiling custom op {name!r} failed (exit "
                           f"{proc.returncode}):\n{proc.stderr.strip() or proc.stdout.strip()}")
    os.replace(tmp, out)
    return out


def op_module(name: str, library: str) -> types.ModuleType:
    """Load `library`, register its ops and return a module with one function per op."""
    module = types.ModuleType(name, f"custom operators of {library}")
    module.__file__ = library
    for op in load_op_library(library):
        setattr(module, op.name, _api(op))
    return module


def _api(op):
    """The Python function of a custom op: inputs, then attrs, positional or by name."""
    names = list(op.input_names) + list(op.attrs)

    def fn(*args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"{op.name}() takes {len(names)} arguments {names}, got "
                            f"{len(args)}")
        values = dict(zip(names, args))
        lower = {n.lower(): n for n in names}
        for key, value in kwargs.items():
            key = lower.get(key.lower(), key)
            if key not in names or key in values:
                raise TypeError(f"{op.name}() got an unexpected or repeated argument {key!r}")
            values[key] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"{op.name}() missing arguments {missing}")
        inputs = tuple(values[n] for n in op.input_names)
        out = dispatch(op, inputs, {a: values[a] for a in op.attrs})
        return list(out) if op.multi_out else out

    fn.__name__ = op.name
    fn.__doc__ = (f"Custom operator {op.name}({', '.join(names)}): inputs {list(op.inputs)}, "
                  f"outputs {list(op.outputs)}, attrs {[f'{n}: {t}' for n, t in op.attr_types]}.")
    return fn

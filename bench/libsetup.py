"""The one library setup the comparison benchmarks share (sampan vs PaddlePaddle vs PyTorch).

Every driver that runs libraries in subprocesses builds their environment with `child_env`
and, inside the child, imports the library with `import_lib`, so each library gets the same
thread count and the same math-library settings:

- OMP/OPENBLAS/MKL/SAMPAN_NUM_THREADS in the environment before the library is imported, AND
  each library's own setter: `torch.set_num_threads`, sampan's `paddle.set_num_threads`, and
  PaddlePaddle's `paddle.base.core.set_num_threads` (it has no public setter; its math library
  ignores the environment variables for eager ops).
- MKL_DEBUG_CPU_TYPE=5: Paddle's wheel computes with Intel MKL (mklml), which on this machine's
  AMD EPYC takes its slow generic code path: one 128x784x512 float32 GEMM takes 2.3 ms in
  Paddle vs 0.9 ms in NumPy's OpenBLAS; with the variable (honoured by that MKL build; AVX2
  kernels) 0.94 ms.
- GLOG_minloglevel=2 silences Paddle's C++ info logging.

PyTorch may live in another venv than Paddle: `torch_python` picks `--torch-python`, else
`--ref-python` when that venv has torch, else (only when a reference run was asked for)
/work/torchenv/bin/python when present.
"""
from __future__ import annotations

import os
import subprocess
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_TORCH_PYTHON = "/work/torchenv/bin/python"


def child_env(threads: int, base: dict | None = None) -> dict:
    """The environment of one benchmark subprocess with `threads` math threads."""
    n = str(threads)
    return dict(os.environ if base is None else base, OMP_NUM_THREADS=n,
                OPENBLAS_NUM_THREADS=n, MKL_NUM_THREADS=n, SAMPAN_NUM_THREADS=n,
                MKL_DEBUG_CPU_TYPE="5", GLOG_minloglevel="2")


def set_threads(lib: str, module, threads: int) -> None:
    """Each library's own thread setter (see the module docstring)."""
    if lib == "torch":
        module.set_num_threads(threads)
    elif lib == "paddle":
        module.base.core.set_num_threads(threads)
    elif hasattr(module, "set_num_threads"):
        module.set_num_threads(threads)


def import_lib(lib: str, threads: int):
    """Import "sampan", "paddle" or "torch" for a benchmark child: CPU, `threads` threads."""
    if lib == "sampan":  # the checkout this driver belongs to, not an installed copy
        sys.path.insert(0, REPO_ROOT)
    module = __import__(lib)
    if lib != "torch":
        module.set_device("cpu")
    set_threads(lib, module, threads)
    return module


def has_module(python: str, name: str) -> bool:
    """Whether the interpreter `python` can import `name` (without importing it)."""
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({name!r}) is None)"
    return subprocess.run([python, "-c", code]).returncode == 0


def torch_python(torch_arg: str | None, ref_arg: str | None) -> str | None:
    """The interpreter that runs the PyTorch column, or None when none has torch."""
    for python in (torch_arg, ref_arg, DEFAULT_TORCH_PYTHON if ref_arg else None):
        if python and os.path.exists(python) and has_module(python, "torch"):
            return python
    return None

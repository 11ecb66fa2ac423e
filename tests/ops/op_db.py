"""The op database: one or more entries per registered OpDef, read by the generic op tests.

Entries live in tests/ops/db/<family>.py (one file per op family, list ENTRIES); this module
gathers them. See OpEntry for the fields.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np


@dataclasses.dataclass
class Sample:
    """One call: positional args (NumPy arrays become Tensors; lists of arrays become lists of
    Tensors; anything else is passed as is) and keyword args passed as is."""
    args: tuple
    kwargs: dict = dataclasses.field(default_factory=dict)
    name: str = ""


@dataclasses.dataclass
class OpEntry:
    """How to test one operator.

    op        OpDef name (must be registered); the coverage test requires one entry per op.
    fn        public function called as fn(*tensors, **kwargs).
    ref       NumPy reference: ref(*arrays, **kwargs) -> array or tuple of arrays.
    samples   samples(rng, dtype) -> list[Sample]; include 0-D, empty, broadcast and
              non-contiguous cases where the op allows them.
    dtypes    dtypes for the forward test (the first float64 one is used for gradients).
    grad      check vjp against central differences (float64).
    double_grad  check second-order gradients (create_graph) against differences of the
              first-order gradient.
    grad_args indices of positional args to differentiate (default: every float array arg).
    tol       multiplier on the per-dtype tolerance table.
    inplace   name of the Tensor in-place method to compare with fn (e.g. "exp_").
    onnx      export the samples to ONNX and compare with onnxruntime, where the op has an
              `onnx` rule: True (every output), a tuple of the output indices an inference
              graph computes (not masks or saved statistics), or False (the samples use what
              ONNX cannot express; say why in a comment).
    """
    op: str
    fn: Callable
    ref: Callable
    samples: Callable
    dtypes: tuple = ("float64", "float32")
    grad: bool = True
    double_grad: bool = True
    grad_args: tuple | None = None
    tol: float = 1.0
    inplace: str | None = None
    onnx: bool | tuple = True
    name: str = ""

    def __post_init__(self):
        if not self.name:
            self.name = self.op


TOL = {"float64": (1e-10, 1e-7), "float32": (1e-5, 1e-5), "float16": (1e-2, 1e-2),
       "bfloat16": (5e-2, 5e-2), "complex64": (1e-5, 1e-5), "complex128": (1e-10, 1e-7)}


def tolerance(dtype: str, mult: float = 1.0) -> tuple:
    atol, rtol = TOL.get(dtype, (0, 0))
    return atol * mult, rtol * mult


def _gather() -> list:
    import importlib
    import pkgutil
    from . import db
    entries = []
    for info in sorted(pkgutil.iter_modules(db.__path__), key=lambda m: m.name):
        mod = importlib.import_module(f"{db.__name__}.{info.name}")
        entries.extend(mod.ENTRIES)
    return entries


ENTRIES = _gather()

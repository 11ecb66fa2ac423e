"""The dy2static conversion corpus: plain records of (name, fn, make_inputs).

`CASES` is a list of `Case(name, fn, make_inputs, dynamic)`:
  - `fn` is ordinary eager Python (what a user decorates with paddle.jit.to_static);
  - `make_inputs()` returns the positional arguments: every numpy array is a *tensor input*
    (a Tensor in eager mode, a `static.data` Variable of the same shape and dtype when
    traced), every other value is passed as it is;
  - `dynamic`: trace with the first dim of every tensor input unknown (-1).
Cases cover each construct of issue #9 alone and combined (modules cases_*.py, one topic
each). A case's fn returns Tensors, numbers, or lists/tuples/dicts of them.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np


class Case(NamedTuple):
    name: str
    fn: Callable
    make_inputs: Callable
    dynamic: bool = False


CASES: list = []


def case(*makers, dynamic: bool = False):
    """Register the decorated function once per input maker (names fn, fn__1, fn__2...)."""
    def deco(fn):
        for k, make in enumerate(makers):
            name = fn.__name__ if k == 0 else f"{fn.__name__}__{k}"
            CASES.append(Case(name, fn, make, dynamic))
        return fn
    return deco


def rand(*shape, seed: int = 0, dtype: str = "float32") -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def pos(*shape):
    return lambda: (np.abs(rand(*shape)) + 0.1,)


def neg(*shape):
    return lambda: (-np.abs(rand(*shape, seed=1)) - 0.1,)


from . import cases_if, cases_loops, cases_calls, cases_data, cases_edge  # noqa: E402,F401

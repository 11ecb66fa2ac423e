"""Nested Python structures (list, tuple, dict) of tensors: flatten to leaves and rebuild,
and the hashable key of a call's arguments for the program cache. Imports only `framework`.
"""
from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, is_variable


def is_tensor(x) -> bool:
    """An eager Tensor or a static Variable (a leaf that becomes a Program input/output)."""
    return isinstance(x, Tensor) or is_variable(x)


def flatten(value, leaf=is_tensor) -> tuple:
    """(leaves, treedef): the `leaf` objects of `value` in order, and a structure with
    Leaf in their places (other values kept) that `unflatten` fills again."""
    leaves: list = []
    return leaves, _walk(value, leaf, leaves)


def _walk(v, leaf, leaves: list):
    # NOTE: module-level recursion, not a recursive closure: a closure that refers to itself
    # is a reference cycle, and it would keep the leaves (a step's tensors and everything
    # their tape saved) alive until the cyclic garbage collector runs.
    if leaf(v):
        leaves.append(v)
        return Leaf
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return type(v)(_walk(x, leaf, leaves) for x in v)
    if isinstance(v, dict):
        return {k: _walk(x, leaf, leaves) for k, x in v.items()}
    return v


def unflatten(treedef, leaves) -> object:
    """The structure of `treedef` with its leaf places filled from `leaves` in order."""
    return _build(treedef, iter(leaves))


def _build(t, it):
    if t is Leaf:
        return next(it)
    if isinstance(t, (list, tuple)) and not hasattr(t, "_fields"):
        return type(t)(_build(x, it) for x in t)
    if isinstance(t, dict):
        return {k: _build(x, it) for k, x in t.items()}
    return t


class Leaf:
    """Marks a leaf's place in a treedef."""


def freeze(value):
    """A hashable stand-in for a non-tensor argument value (lists/dicts by content; other
    unhashable objects by identity), part of the program cache key."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple((k, freeze(v)) for k, v in sorted(value.items(),
                                                                  key=lambda kv: repr(kv[0])))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    return (type(value).__name__, value)

"""Inference fusion: matmul + add (+ activation), and linear + activation, into one
`fused_linear` op (written as patterns: see pattern.py).

Matches need an untransposed matmul with a 2-D weight and a bias whose shape is [N] or
[1, N] (N = the weight's columns); the activation is relu, gelu (exact or tanh), tanh,
sigmoid or silu.
"""
from __future__ import annotations

from functools import lru_cache

from ... import tensor as _t
from ...ops.dispatch import call
from ...ops.fused import fused_linear as _fused_linear
from ..program import Program
from . import register_pass
from .pattern import Pattern, rewrite

_ACTS = {"relu": ("relu", {}), "gelu": ("gelu", {"approximate": False}),
         "gelu_tanh": ("gelu", {"approximate": True}), "tanh": ("tanh", {}),
         "sigmoid": ("sigmoid", {}), "silu": ("silu", {})}
_SPECS = [([2, 3], "float32"), ([3, 4], "float32"), ([4], "float32")]


def _bias_ok(block, vs) -> bool:
    x, w, b = vs
    if w.ndim != 2 or x.ndim < 1 or not (x.dtype is w.dtype is b.dtype):
        return False
    n = w.shape[1]
    return b.shape in ([n], [1, n]) and n != -1 and x.dtype.kind == "f"


def _mm_add(bias_first: bool, act=None):
    def pattern(x, w, b):
        y = _t.matmul(x, w)
        y = b + y if bias_first else y + b
        return y if act is None else call(_ACTS[act][0], y, **_ACTS[act][1])
    return pattern


def _linear_act(act):
    def pattern(x, w, b):
        return call(_ACTS[act][0], call("linear", x, w, b), **_ACTS[act][1])
    return pattern


def _replace(act):
    def replace(x, w, b):
        return _fused_linear(x, w, b, activation=act or "none")
    return replace


@lru_cache(maxsize=None)
def patterns() -> tuple:
    """The fuse_linear patterns, longest first (traced once)."""
    pats = []
    for act in _ACTS:
        pats.append(Pattern(f"linear+{act}", _linear_act(act), _replace(act), _SPECS,
                            _bias_ok))
        for first in (False, True):
            pats.append(Pattern(f"matmul+add+{act}", _mm_add(first, act), _replace(act),
                                _SPECS, _bias_ok))
    for first in (False, True):
        pats.append(Pattern("matmul+add", _mm_add(first), _replace(None), _SPECS, _bias_ok))
    return tuple(pats)


@register_pass("fuse_linear")
def fuse_linear(program: Program, keep=()) -> Program:
    """Return a copy of `program` with matmul + add (+ activation) and linear + activation
    chains of its global block replaced by `fused_linear`.

    Args:
        keep: variable names (or Variables) that must stay defined (fetch targets).
    """
    return rewrite(program, list(patterns()), keep)

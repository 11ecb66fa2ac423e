"""Unique names for variables and layers (`linear_0.w_0`, `tmp_3`), with guard()."""
from __future__ import annotations

import collections
import contextlib

_counters: collections.defaultdict = collections.defaultdict(int)


def generate(key: str) -> str:
    """Return `key_N` with N counting up per key."""
    n = _counters[key]
    _counters[key] += 1
    return f"{key}_{n}"


@contextlib.contextmanager
def guard(new_generator=None):
    """Use a fresh set of counters inside the block."""
    global _counters
    saved = _counters
    _counters = collections.defaultdict(int)
    try:
        yield
    finally:
        _counters = saved


def switch(new_generator=None):
    global _counters
    old = _counters
    _counters = collections.defaultdict(int) if new_generator is None else new_generator
    return old

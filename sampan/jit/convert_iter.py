"""Iteration converters for the index-driven loops the for transformer emits
(`for_has_next(it, i[, brk])`, `for_item(it, i)`, `for_guard(it, brk)`), and range /
enumerate / zip over tensors. A *static* iterator has a tensor length (range over a
Variable, a Variable with an unknown first dim, a tensor array), so its loop condition is a
Variable and the loop becomes a `while_loop` op; every other iterable runs in Python.
Imports `framework`, `tensor` and its jit siblings.
"""
from __future__ import annotations

from ..framework.tensor import Tensor
from .. import tensor as T
from .convert_static import TensorArray, is_var
from .errors import Unsupported


class _Seq:
    """A sized Python sequence, an eager Tensor or a Variable with a known first dim."""
    static = False

    def __init__(self, seq) -> None:
        self.seq = seq

    def has(self, i):
        return i < len(self.seq)

    def item(self, i):
        return self.seq[i]


class _Lazy:
    """Any other Python iterable, pulled one item at a time (generators stay lazy)."""
    static = False

    def __init__(self, iterable) -> None:
        self.it, self.pos, self.cur = iter(iterable), 0, None

    def has(self, i):
        if self.pos > i:
            return True
        try:
            self.cur = next(self.it)
        except StopIteration:
            return False
        self.pos += 1
        return True

    def item(self, i):
        return self.cur


class _Indexed:
    """Rows of a tensor whose length is a Variable."""
    static = True

    def __init__(self, seq, n) -> None:
        self.seq, self.n = seq, n

    def has(self, i):
        return T.less_than(_as_index(i), self.n)

    def item(self, i):
        return self.seq[i]


class StaticRange:
    """range(start, stop, step) with a Variable bound."""
    static = True

    def __init__(self, start, stop, step) -> None:
        if is_var(step):
            raise Unsupported("range() with a tensor step cannot be converted; use a Python "
                              "int step")
        if step == 0:
            raise ValueError("range() arg 3 must not be zero")
        self.start, self.stop, self.step = start, stop, step

    def has(self, i):
        v = self.item(i)
        return v < self.stop if self.step > 0 else v > self.stop

    def item(self, i):
        return self.start + i * self.step if self.step != 1 else self.start + i


class _Enumerate:
    static = True

    def __init__(self, inner, start) -> None:
        self.inner, self.start = inner, start

    def has(self, i):
        return self.inner.has(i)

    def item(self, i):
        return (self.start + i, self.inner.item(i))


class _Zip:
    static = True

    def __init__(self, inners) -> None:
        self.inners = inners

    def has(self, i):
        c = self.inners[0].has(i)
        for inner in self.inners[1:]:
            c = T.logical_and(c, inner.has(i))
        return c

    def item(self, i):
        return tuple(inner.item(i) for inner in self.inners)


def _as_index(i):
    return i if is_var(i) else T.full([], i, "int64")


def convert_iter(x):
    """The iterator object a converted `for` loop walks by index."""
    if isinstance(x, (_Seq, _Lazy, _Indexed, StaticRange, _Enumerate, _Zip)):
        return x
    if isinstance(x, TensorArray):
        return _Indexed(x.data, x.length())
    if is_var(x):
        if not x.shape:
            raise TypeError("iteration over a 0-D tensor")
        if x.shape[0] < 0:
            return _Indexed(x, T.shape(x)[0])
        return _Seq(x)
    if isinstance(x, Tensor):
        if not x.shape:
            raise TypeError("iteration over a 0-D tensor")
        return _Seq(x)
    if isinstance(x, (list, tuple, range, str)):
        return _Seq(x)
    return _Lazy(x)


def for_has_next(it, i, brk=None):
    """Whether loop index i has an item (and the loop was not broken out of)."""
    if brk is not None and not is_var(brk) and bool(brk):
        return False
    c = it.has(i)
    if it.static and is_var(brk):
        c = T.logical_and(T.logical_not(brk), c)
    return c


def for_item(it, i):
    return it.item(i)


def for_guard(it, brk):
    """Whether a loop with a break runs this iteration's body: a static loop's condition
    already checks the flag; a Python loop keeps iterating under a tensor flag."""
    if it.static:
        return True
    return T.logical_not(brk) if is_var(brk) else not brk


def convert_range(*args):
    if any(is_var(a) for a in args):
        start, stop, step = (0, args[0], 1) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) > 2 else 1)
        return StaticRange(start, stop, step)
    return range(*[int(a) if isinstance(a, Tensor) else a for a in args])


def convert_enumerate(x, start=0):
    it = convert_iter(x)
    return _Enumerate(it, start) if it.static else enumerate(x, start)


def convert_zip(*xs):
    its = [convert_iter(x) for x in xs]
    if not any(it.static for it in its):
        return zip(*xs)
    if not all(it.static for it in its):
        raise Unsupported("zip() of a tensor-length iterable with a Python iterable cannot "
                          "be converted")
    return _Zip(its)

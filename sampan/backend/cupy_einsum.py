"""einsum for the GPU backend: plain per-axis sums ("acb->c") and sums of products
("acb,acb->c", the statistics of the normalization kernels) run as `sum` (of a product)
instead of CuPy's general einsum, whose planning costs ~100 us per call.

Kept apart from backend/cupy_.py, whose globals are CuPy's namespace (there `any`, `all`,
`max`... are CuPy's array functions, not Python's). Imports nothing from sampan.
"""
from __future__ import annotations

import functools


@functools.lru_cache(maxsize=64)
def reduction_axes(subscripts: str):
    """(operand count, summed axes) when `subscripts` is a plain reduction: one operand, or
    two with the same letters (a product), no repeated letter, and the output letters in
    input order ("acb->c", "ij,ij->i"); None for anything else."""
    if "->" not in subscripts or "." in subscripts:
        return None
    ins, out = subscripts.replace(" ", "").split("->")
    ops = ins.split(",")
    first = ops[0]
    if len(ops) > 2 or any(o != first for o in ops) or len(set(first)) != len(first):
        return None
    kept = [first.index(c) for c in out if c in first]
    if len(kept) != len(out) or kept != sorted(kept):
        return None
    return len(ops), tuple(i for i in range(len(first)) if i not in kept)


def make_einsum(cp):
    """`einsum` over array module `cp` (CuPy) with the reduction fast path."""
    def einsum(subscripts, *operands, **kwargs):
        plan = None if kwargs or not isinstance(subscripts, str) else \
            reduction_axes(subscripts)
        if plan is None or plan[0] != len(operands):
            return cp.einsum(subscripts, *operands, **kwargs)
        a = operands[0]
        if a.dtype.char not in "fd" or any(o.dtype != a.dtype or o.shape != a.shape
                                           for o in operands[1:]):
            return cp.einsum(subscripts, *operands)   # integer sums would widen to int64
        return (a if len(operands) == 1 else a * operands[1]).sum(axis=plan[1])
    einsum.__doc__ = cp.einsum.__doc__
    return einsum

"""Op database entries for sampan/ops/extra.py (top_p_sampling) and, through the primitive
each one dispatches, the composites of sampan/tensor/extra.py (as_strided, combinations,
fill_diagonal_tensor, trapezoid, cumulative_trapezoid, renorm), so that they get the
generic forward, gradient, double-gradient and static-graph checks.

top_p_sampling samples are chosen so the draw is determined (a top-p mass below the largest
score keeps one token; a threshold above every other kept score); its sampling distribution
is checked statistically in tests/tensor/test_extra.py.
"""
import itertools

import numpy as np

import sampan as paddle
from sampan.tensor import extra as E
from tests.ops.op_db import OpEntry, Sample


def _topp_samples(rng, dtype):
    x = rng.dirichlet(np.ones(6), size=3).astype(dtype)
    seeds = np.asarray([5, 6, 7], np.int64)
    return [Sample((x, np.full(3, 1e-3, dtype)), name="top-1"),
            Sample((x, np.full(3, 1e-3, dtype)), {"k": 3, "return_top": True}, name="top-k"),
            Sample((x, np.full(3, 0.99, dtype), np.full(3, 0.9, dtype)), name="threshold"),
            Sample((x, np.zeros(3, dtype), None, seeds), {"mode": "non-truncated"},
                   name="row-seeds")]


def _topp_ref(x, ps, threshold=None, topp_seed=None, k=0, mode="truncated",
              return_top=False):
    order = np.argsort(-x, axis=1, kind="stable")
    ids = order[:, :1].astype(np.int64)
    out = np.take_along_axis(x, ids, 1)
    if not return_top:
        return out, ids
    return out, ids, np.take_along_axis(x, order[:, :k], 1), order[:, :k].astype(np.int64)


def _strided_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(3, 4), [2, 3], [4, 1], 1), name="window"),
            Sample((r(6), [3, 3], [1, 1]), name="overlapping"),
            Sample((r(4, 3).T, [2, 2], [2, 3], 2), name="non-contiguous"),
            Sample((r(2, 2), [], [], 3), name="0-d"),
            Sample((r(3), [0, 2], [1, 1]), name="empty")]


def _strided_ref(x, shape, stride, offset=0):
    flat = np.ascontiguousarray(x).reshape(-1)
    return np.lib.stride_tricks.as_strided(flat[offset:], shape,
                                           [s * flat.itemsize for s in stride]).copy()


def _comb_samples(rng, dtype):
    x = rng.uniform(-1, 1, 4).astype(dtype)
    return [Sample((x,), name="pairs"), Sample((x, 3), name="triples"),
            Sample((x[:3], 2, True), name="with-replacement"),
            Sample((x, 5), name="none"), Sample((x[::2],), name="non-contiguous")]


def _comb_ref(x, r=2, with_replacement=False):
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = list(pick(x.tolist(), r))
    return np.asarray(rows, x.dtype).reshape(len(rows), r)


def _fdt_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(4, 3), r(3)), name="tall"),
            Sample((r(3, 4), r(3)), {"offset": 1}, name="offset"),
            Sample((r(2, 3, 4), r(3, 2)), {"dim1": 0, "dim2": 2}, name="3-d"),
            Sample((r(3, 4), r(3)), {"offset": -1, "dim1": 1, "dim2": 0}, name="swapped"),
            Sample((r(3, 2).T, r(2)), name="non-contiguous")]


def _fdt_ref(x, y, offset=0, dim1=0, dim2=1):
    out = x.copy()
    view = np.moveaxis(out, (dim1 % x.ndim, dim2 % x.ndim), (-2, -1))
    n = y.shape[-1]
    view[..., np.arange(n) + max(-offset, 0), np.arange(n) + max(offset, 0)] = y
    return out


def _trap_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype)
    return [Sample((r(2, 4),), name="default"),
            Sample((r(3, 2),), {"dx": 0.5, "axis": 0}, name="dx"),
            Sample((r(2, 4), np.sort(r(4))), name="x-1d"),
            Sample((r(2, 3), np.sort(r(2, 3), axis=1)), name="x-full"),
            Sample((r(4, 2).T,), name="non-contiguous")]


def _trap_ref(y, x=None, dx=None, axis=-1):
    if x is None:
        return np.asarray(np.trapezoid(y, dx=1.0 if dx is None else dx, axis=axis), y.dtype)
    return np.asarray(np.trapezoid(y, x=x, axis=axis), y.dtype)


def _cumtrap_ref(y, x=None, dx=None, axis=-1):
    from scipy.integrate import cumulative_trapezoid
    if x is None:
        return cumulative_trapezoid(y, dx=1.0 if dx is None else dx, axis=axis).astype(y.dtype)
    return cumulative_trapezoid(y, x=x, axis=axis).astype(y.dtype)


def _renorm_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-1, 1, shape).astype(dtype) + np.sign(rng.uniform(-1, 1, shape))
    return [Sample((r(3, 4), 2.0, 0, 2.0), name="p2"),
            Sample((r(2, 3, 2), 1.0, 1, 3.0), name="p1"),
            Sample((r(3, 4), 3.0, -1, 1.5), name="p3-last"),
            Sample((r(4, 3).T, 2.0, 1, 2.0), name="non-contiguous"),
            Sample((r(4), 2.0, 0, 1.2), name="1-d")]


def _renorm_ref(x, p, axis, max_norm):
    others = tuple(i for i in range(x.ndim) if i != axis % x.ndim)
    norm = (np.abs(x) ** p).sum(axis=others, keepdims=True) ** (1.0 / p)
    factor = np.where(norm > max_norm, max_norm / norm, 1.0)
    return (x * factor).astype(x.dtype)



def _method(name):
    """The in-place method once tensor/__init__.py binds this family (until then: None)."""
    return name if hasattr(paddle.Tensor, name) else None


ENTRIES = [
    OpEntry("top_p_sampling", E.top_p_sampling, _topp_ref, _topp_samples, grad=False),
    OpEntry("take", E.as_strided, _strided_ref, _strided_samples, name="as_strided"),
    OpEntry("take", E.combinations, _comb_ref, _comb_samples, name="combinations"),
    OpEntry("diagonal_scatter", E.fill_diagonal_tensor, _fdt_ref, _fdt_samples,
            name="fill_diagonal_tensor", inplace=_method("fill_diagonal_tensor_")),
    OpEntry("sum", E.trapezoid, _trap_ref, _trap_samples, name="trapezoid"),
    OpEntry("cumsum", E.cumulative_trapezoid, _cumtrap_ref, _trap_samples,
            name="cumulative_trapezoid"),
    OpEntry("where", E.renorm, _renorm_ref, _renorm_samples, name="renorm", inplace=_method("renorm_")),
]

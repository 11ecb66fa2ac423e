"""Op database entries for sampan/ops/math.py."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _binary_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(3, 4), r(3, 4)), name="same"),
            Sample((r(3, 4), r(4)), name="broadcast"),
            Sample((r(2, 1, 3), r(4, 1)), name="both-broadcast"),
            Sample((r(), r()), name="0-d"),
            Sample((r(4, 3).T, r(3, 4)), name="non-contiguous"),
            Sample((r(0, 3), r(3)), name="empty")]


def _positive(rng, dtype):
    return [Sample((rng.uniform(0.5, 2, s).astype(dtype), rng.uniform(0.5, 2, s2).astype(dtype)))
            for s, s2 in (((3, 4), (3, 4)), ((2, 3), (3,)), ((), ()))]


def _unary_samples(rng, dtype, lo=-2.0, hi=2.0):
    def r(*shape):
        return rng.uniform(lo, hi, shape).astype(dtype)
    return [Sample((r(3, 4),)), Sample((r(),), name="0-d"), Sample((r(0, 2),), name="empty"),
            Sample((r(4, 3).T,), name="non-contiguous")]


ENTRIES = [
    OpEntry("add", paddle.add, np.add, _binary_samples, inplace="add_"),
    OpEntry("subtract", paddle.subtract, np.subtract, _binary_samples, inplace="subtract_"),
    OpEntry("multiply", paddle.multiply, np.multiply, _binary_samples, inplace="multiply_"),
    OpEntry("divide", paddle.divide, np.divide, _positive),
    OpEntry("neg", paddle.neg, np.negative, _unary_samples, inplace="neg_"),
    OpEntry("exp", paddle.exp, np.exp, _unary_samples, inplace="exp_"),
    OpEntry("cast", paddle.cast, lambda x, dtype: x.astype(dtype),
            lambda rng, dt: [Sample((rng.standard_normal((2, 3)).astype(dt),), {"dtype": dt}),
                             Sample((np.asarray(1.5, dt),), {"dtype": "float64"})]),
    OpEntry("cast", paddle.cast, lambda x, dtype: x.astype(dtype),
            lambda rng, dt: [Sample((rng.standard_normal((2, 3)).astype(dt),), {"dtype": t})
                             for t in ("float32", "int32", "bool", "float16")],
            grad=False, name="cast-narrowing"),
]

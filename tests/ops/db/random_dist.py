"""Op database entries for sampan/ops/random_dist.py (standard_gamma, binomial).

As in db/random.py: the public call runs right after paddle.seed(K) and the reference redraws
the same NumPy stream; the distributions themselves are checked statistically in
tests/distribution/.
"""
import numpy as np

from sampan.distribution._random import binomial, standard_gamma
from tests.ops.db.random import _gen, _seeded
from tests.ops.op_db import OpEntry, Sample

_F = ("float64", "float32")


def _gamma_samples(rng_, dtype):
    return [Sample((rng_.uniform(0.2, 5, (4, 5)).astype(dtype),)),
            Sample((np.asarray(2.5, dtype),), name="0-d"),
            Sample((np.ones((2, 0), dtype),), name="empty")]


def _ref_gamma(x):
    return np.asarray(_gen().standard_gamma(x.astype(np.float64))).astype(x.dtype)


def _binomial_samples(rng_, dtype):
    return [Sample((rng_.integers(0, 20, (3, 4)), rng_.uniform(0, 1, (3, 4)).astype(dtype))),
            Sample((np.asarray([5, 10, 0]), np.asarray(0.3, dtype)), name="broadcast"),
            Sample((np.zeros((0,), np.int64), np.zeros((0,), dtype)), name="empty")]


def _ref_binomial(count, prob):
    count, prob = np.broadcast_arrays(count.astype(np.int64), prob.astype(np.float64))
    return np.asarray(_gen().binomial(count, prob)).astype(np.int64)


ENTRIES = [
    OpEntry("standard_gamma", _seeded(standard_gamma), _ref_gamma, _gamma_samples, dtypes=_F,
            grad=False),
    OpEntry("binomial", _seeded(binomial), _ref_binomial, _binomial_samples, dtypes=_F,
            grad=False),
]

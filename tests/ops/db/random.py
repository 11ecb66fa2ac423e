"""Op database entries for sampan/ops/random.py.

Random numbers cannot match an independent reference, so each entry calls the public
function right after paddle.seed(K) and the reference redraws with the same stream: the op
seed is the first `next_seed()` of a generator seeded with K, and the kernel's draw is
re-implemented with NumPy's Generator on that seed. This pins down determinism, shapes,
dtypes and the parameter plumbing (min/max, mean/std, low/high, lam); distributions are
checked statistically in tests/tensor/test_random.py.
"""
import numpy as np

import sampan as paddle
from sampan.framework.random import Generator, rng
from tests.ops.op_db import OpEntry, Sample

_K = 2024


def _seeded(fn):
    def call(*args, **kwargs):
        paddle.seed(_K)
        return fn(*args, **kwargs)
    return call


def _gen():
    """The NumPy generator the first random op after paddle.seed(_K) uses."""
    return rng(Generator(_K).next_seed())


def _shape_samples(rng_, dtype):
    return [Sample(([3, 4],), {"dtype": dtype}), Sample(([],), {"dtype": dtype}, name="0-d"),
            Sample(([0, 2],), {"dtype": dtype}, name="empty")]


def _uniform_samples(rng_, dtype):
    return [Sample(([3, 4],), {"dtype": dtype, "min": -2.0, "max": 5.0}),
            Sample(([2],), {"dtype": dtype}, name="default-range"),
            Sample(([0],), {"dtype": dtype}, name="empty")]


def _ref_uniform(shape, dtype, min=-1.0, max=1.0):
    return _gen().uniform(min, max, shape).astype(dtype)


def _uniform_seed_samples(rng_, dtype):
    return [Sample(([5],), {"dtype": dtype, "seed": 77}, name="explicit-seed")]


def _ref_uniform_seed(shape, dtype, seed):
    return rng(seed).uniform(-1.0, 1.0, shape).astype(dtype)


def _normal_samples(rng_, dtype):
    return [Sample((), {"mean": 1.5, "std": 0.5, "shape": [3, 2]}),
            Sample((), {"mean": -1.0, "std": 2.0, "shape": []}, name="0-d")]


def _ref_normal(mean, std, shape):
    return _gen().normal(mean, std, shape).astype(np.float32)


def _normal_tensor_samples(rng_, dtype):
    def r(*shape):
        return rng_.uniform(0.5, 2, shape).astype(dtype)
    return [Sample((r(2, 3), r(3)), name="broadcast"), Sample((r(4), r(4)), name="same")]


def _ref_normal_tensor(mean, std):
    shape = np.broadcast_shapes(mean.shape, std.shape)
    noise = _gen().normal(0.0, 1.0, shape).astype(mean.dtype)
    return noise * std + mean


def _randint_samples(rng_, dtype):
    return [Sample((-3, 7, [4, 5]), {"dtype": dtype}),
            Sample((0, 2, []), {"dtype": dtype}, name="0-d"),
            Sample((5, 6, [3]), {"dtype": dtype}, name="single-value"),
            Sample((0, 10, [0]), {"dtype": dtype}, name="empty")]


def _ref_randint(low, high, shape, dtype):
    return _gen().integers(low, high, shape, dtype=np.int64).astype(dtype)


def _randperm_samples(rng_, dtype):
    return [Sample((6,), {"dtype": dtype}), Sample((1,), {"dtype": dtype}, name="one"),
            Sample((0,), {"dtype": dtype}, name="empty")]


def _ref_randperm(n, dtype):
    return _gen().permutation(n).astype(dtype)


def _prob_samples(rng_, dtype):
    return [Sample((rng_.uniform(0, 1, (4, 5)).astype(dtype),)),
            Sample((np.asarray(0.5, dtype),), name="0-d"),
            Sample((np.zeros((0, 3), dtype),), name="empty"),
            Sample((rng_.uniform(0, 1, (3, 2)).astype(dtype).T,), name="non-contiguous")]


def _ref_bernoulli(x):
    return (_gen().random(x.shape) < x).astype(x.dtype)


def _rate_samples(rng_, dtype):
    return [Sample((rng_.uniform(0, 6, (4, 5)).astype(dtype),)),
            Sample((np.asarray(3.0, dtype),), name="0-d"),
            Sample((np.zeros((2, 0), dtype),), name="empty")]


def _ref_poisson(x):
    return np.asarray(_gen().poisson(x.astype(np.float64))).astype(x.dtype)


def _exponential(x, lam=1.0):
    return x.clone().exponential_(lam)


def _exp_samples(rng_, dtype):
    return [Sample((np.zeros((3, 4), dtype),), {"lam": 2.5}),
            Sample((np.zeros((), dtype),), name="0-d")]


def _ref_exponential(x, lam=1.0):
    return _gen().exponential(1.0 / lam, x.shape).astype(x.dtype)


def _cauchy(x, loc=0.0, scale=1.0):
    return x.clone().cauchy_(loc, scale)


def _ref_cauchy(x, loc=0.0, scale=1.0):
    u = _gen().random(x.shape)
    return np.asarray(loc + scale * np.tan(np.pi * (u - 0.5))).astype(x.dtype)


def _cauchy_samples(rng_, dtype):
    return [Sample((np.zeros((3, 4), dtype),), {"loc": 1.0, "scale": 0.5}),
            Sample((np.zeros((), dtype),), name="0-d")]


def _geometric(x, probs=0.5):
    return x.clone().geometric_(probs)


def _ref_geometric(x, probs=0.5):
    u = 1.0 - _gen().random(x.shape)
    return np.asarray(np.log(u) / np.log1p(-probs)).astype(x.dtype)


def _geometric_samples(rng_, dtype):
    return [Sample((np.zeros((3, 4), dtype),), {"probs": 0.3}),
            Sample((np.zeros((0,), dtype),), {"probs": 0.9}, name="empty")]


def _multinomial_samples(rng_, dtype):
    w1 = np.array([0.1, 0.0, 0.6, 0.3], dtype)
    w2 = rng_.uniform(0.1, 1, (3, 5)).astype(dtype)
    return [Sample((w1,), {"num_samples": 3}, name="1-d"),
            Sample((w2,), {"num_samples": 4, "replacement": True}, name="2-d-replacement"),
            Sample((w2,), {"num_samples": 5}, name="2-d-all")]


def _ref_multinomial(x, num_samples=1, replacement=False):
    gen = _gen()
    rows = x.reshape(-1, x.shape[-1]).astype(np.float64)
    out = [gen.choice(w.size, num_samples, replace=replacement, p=w / w.sum()) for w in rows]
    return np.asarray(out, dtype=np.int64).reshape(x.shape[:-1] + (num_samples,))


_F = ("float64", "float32")
ENTRIES = [
    OpEntry("uniform", _seeded(paddle.uniform), _ref_uniform, _uniform_samples, dtypes=_F,
            grad=False),
    OpEntry("uniform", paddle.uniform, _ref_uniform_seed, _uniform_seed_samples, dtypes=_F,
            grad=False, name="uniform-seed-arg"),
    OpEntry("uniform", _seeded(paddle.rand), lambda shape, dtype: _gen().uniform(0.0, 1.0, shape).astype(dtype),
            _shape_samples, dtypes=_F, grad=False, name="rand"),
    OpEntry("normal", _seeded(paddle.normal), _ref_normal, _normal_samples, dtypes=("float32",),
            grad=False),
    OpEntry("normal", _seeded(paddle.randn),
            lambda shape, dtype: _gen().normal(0.0, 1.0, shape).astype(dtype), _shape_samples,
            dtypes=_F, grad=False, name="randn"),
    OpEntry("normal", _seeded(paddle.standard_normal),
            lambda shape, dtype: _gen().normal(0.0, 1.0, shape).astype(dtype), _shape_samples,
            dtypes=_F, grad=False, name="standard_normal"),
    # mean + std * noise: differentiable in mean and std (the noise is a constant).
    OpEntry("normal", _seeded(paddle.normal), _ref_normal_tensor, _normal_tensor_samples,
            dtypes=_F, name="normal-tensor-args"),
    OpEntry("randint", _seeded(paddle.randint), _ref_randint, _randint_samples,
            dtypes=("int64", "int32"), grad=False),
    OpEntry("randint", _seeded(lambda x: paddle.randint_like(x, 2, 9)),
            lambda x: _gen().integers(2, 9, x.shape, dtype=np.int64).astype(x.dtype),
            _rate_samples, dtypes=_F, grad=False, name="randint_like"),
    OpEntry("randperm", _seeded(paddle.randperm), _ref_randperm, _randperm_samples,
            dtypes=("int64", "int32", "float32"), grad=False),
    OpEntry("bernoulli", _seeded(paddle.bernoulli), _ref_bernoulli, _prob_samples, dtypes=_F,
            grad=False),
    OpEntry("poisson", _seeded(paddle.poisson), _ref_poisson, _rate_samples, dtypes=_F,
            grad=False),
    OpEntry("exponential", _seeded(_exponential), _ref_exponential, _exp_samples, dtypes=_F,
            grad=False),
    OpEntry("cauchy", _seeded(_cauchy), _ref_cauchy, _cauchy_samples, dtypes=_F, grad=False),
    OpEntry("geometric", _seeded(_geometric), _ref_geometric, _geometric_samples, dtypes=_F,
            grad=False),
    OpEntry("multinomial", _seeded(paddle.multinomial), _ref_multinomial, _multinomial_samples,
            dtypes=_F, grad=False),
]

"""Op database entries for sampan/ops/logic.py (all ops here are non-differentiable)."""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _values(rng, dtype, *shape):
    """Small integers (so that comparisons see ties), in `dtype`."""
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    return rng.integers(-2, 3, shape).astype(dtype)


def _binary(rng, dtype):
    def r(*shape):
        return _values(rng, dtype, *shape)
    return [Sample((r(3, 4), r(3, 4)), name="same"),
            Sample((r(3, 4), r(4)), name="broadcast"),
            Sample((r(2, 1, 3), r(4, 1)), name="both-broadcast"),
            Sample((r(), r()), name="0-d"),
            Sample((r(4, 3).T, r(3, 4)), name="non-contiguous"),
            Sample((r(0, 3), r(3)), name="empty")]


def _mixed(rng, dtype):
    """x in `dtype`, y in another dtype: promotion (or logical truthiness) applies."""
    return [Sample((_values(rng, dtype, 3, 4), _values(rng, "int32", 4)), name="mixed"),
            Sample((_values(rng, dtype, 2, 3), _values(rng, "bool", 2, 3)), name="with-bool")]


def _unary(rng, dtype):
    def r(*shape):
        return _values(rng, dtype, *shape)
    return [Sample((r(3, 4),)), Sample((r(),), name="0-d"), Sample((r(0, 2),), name="empty"),
            Sample((r(4, 3).T,), name="non-contiguous")]


def _special(rng, dtype):
    x = np.array([0.0, -1.5, np.nan, np.inf, -np.inf, 2.0], dtype)
    return [Sample((x,)), Sample((x.reshape(2, 3).T,), name="non-contiguous"),
            Sample((np.asarray(np.nan, dtype),), name="0-d"),
            Sample((np.zeros((0, 2), dtype),), name="empty")]


def _special_int(rng, dtype):
    return [Sample((_values(rng, dtype, 2, 3),))]


def _close(rng, dtype):
    x = rng.standard_normal((3, 4)).astype(dtype)
    y = x + rng.choice([0.0, 1e-9, 1e-3], (3, 4)).astype(dtype)
    nan = np.array([np.nan, 1.0, np.nan], dtype)
    other = np.array([np.nan, 1.0, 2.0], dtype)
    return [Sample((x, y), name="near"),
            Sample((x, y[0]), name="broadcast"),
            Sample((x, y), {"rtol": 1e-2, "atol": 0.0}, name="rtol"),
            Sample((nan, other), {"equal_nan": True}, name="equal_nan"),
            Sample((nan, other), name="nan"),
            Sample((x[:, 0].copy(), x[:, 0].copy()), name="equal"),
            Sample((np.asarray(1.0, dtype), np.asarray(1.0 + 1e-9, dtype)), name="0-d"),
            Sample((np.zeros((0, 2), dtype), np.zeros((0, 2), dtype)), name="empty")]


def _equal_all(rng, dtype):
    x = _values(rng, dtype, 2, 3)
    y = x.copy()
    y[1, 2] += 1
    return [Sample((x, x.copy()), name="equal"), Sample((x, y), name="differ"),
            Sample((x, x[0].copy()), name="shape-differs"),
            Sample((x.T.copy(), x.copy().T), name="non-contiguous"),
            Sample((np.asarray(1, dtype), np.asarray(1, dtype)), name="0-d"),
            Sample((x[:0], x[:0]), name="empty")]


def _equal_all_ref(x, y):
    return np.asarray(x.shape == y.shape and bool(np.all(x == y)))


_INT = ("int64", "int32", "bool")
_ALL = ("float64", "float32", "int64", "int32", "bool")


def _compare(op, ref):
    fn = getattr(paddle, op)
    return [OpEntry(op, fn, ref, _binary, dtypes=_ALL, grad=False),
            OpEntry(op, fn, ref, _mixed, dtypes=("float32", "int64"), grad=False,
                    name=f"{op}-mixed")]


ENTRIES = [
    *_compare("equal", np.equal),
    *_compare("not_equal", np.not_equal),
    *_compare("less_than", np.less),
    *_compare("less_equal", np.less_equal),
    *_compare("greater_than", np.greater),
    *_compare("greater_equal", np.greater_equal),
    *_compare("logical_and", np.logical_and),
    *_compare("logical_or", np.logical_or),
    *_compare("logical_xor", np.logical_xor),
    OpEntry("logical_not", paddle.logical_not, np.logical_not, _unary, dtypes=_ALL,
            grad=False),
    OpEntry("bitwise_and", paddle.bitwise_and, np.bitwise_and, _binary, dtypes=_INT,
            grad=False, inplace="bitwise_and_"),
    OpEntry("bitwise_or", paddle.bitwise_or, np.bitwise_or, _binary, dtypes=_INT,
            grad=False, inplace="bitwise_or_"),
    OpEntry("bitwise_xor", paddle.bitwise_xor, np.bitwise_xor, _binary, dtypes=_INT,
            grad=False, inplace="bitwise_xor_"),
    OpEntry("bitwise_xor", paddle.bitwise_xor, np.bitwise_xor,
            lambda rng, dt: [Sample((_values(rng, dt, 2, 3), _values(rng, "int32", 3)))],
            dtypes=("int64", "bool"), grad=False, name="bitwise_xor-mixed"),
    OpEntry("bitwise_not", paddle.bitwise_not, np.invert, _unary, dtypes=_INT, grad=False,
            inplace="bitwise_not_"),
    OpEntry("isnan", paddle.isnan, np.isnan, _special, grad=False),
    OpEntry("isinf", paddle.isinf, np.isinf, _special, grad=False),
    OpEntry("isfinite", paddle.isfinite, np.isfinite, _special, grad=False),
    OpEntry("isnan", paddle.isnan, np.isnan, _special_int, dtypes=_INT, grad=False,
            name="isnan-int"),
    OpEntry("isinf", paddle.isinf, np.isinf, _special_int, dtypes=_INT, grad=False,
            name="isinf-int"),
    OpEntry("isfinite", paddle.isfinite, np.isfinite, _special_int, dtypes=_INT, grad=False,
            name="isfinite-int"),
    OpEntry("isclose", paddle.isclose, np.isclose, _close, grad=False),
    OpEntry("allclose", paddle.allclose, lambda x, y, **kw: np.asarray(np.allclose(x, y, **kw)),
            _close, grad=False),
    OpEntry("equal_all", paddle.equal_all, _equal_all_ref, _equal_all, dtypes=_ALL,
            grad=False),
    OpEntry("is_empty", paddle.is_empty, lambda x: np.asarray(x.size == 0), _unary,
            grad=False),
]

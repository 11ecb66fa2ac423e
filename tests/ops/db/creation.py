"""Op database entries for sampan/ops/creation.py."""
import numpy as np

import sampan as paddle
from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample

_ALL = ("float64", "float32", "int64", "int32", "bool")


def _full_samples(rng, dtype):
    return [Sample((), {"shape": [2, 3], "fill_value": 1, "dtype": dtype}),
            Sample((), {"shape": [], "fill_value": 0, "dtype": dtype}, name="0-d"),
            Sample((), {"shape": [0, 3], "fill_value": 1, "dtype": dtype}, name="empty"),
            Sample((), {"shape": (4,), "fill_value": True, "dtype": dtype}, name="tuple")]


def _ref_full(shape, fill_value, dtype):
    return np.full(shape, fill_value, dtype=dtype)


def _shape_samples(rng, dtype):
    return [Sample(([2, 3],), {"dtype": dtype}), Sample(([],), {"dtype": dtype}, name="0-d"),
            Sample(([3, 0],), {"dtype": dtype}, name="empty")]


def _like_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(2, 3),)), Sample((r(),), name="0-d"), Sample((r(0, 2),), name="empty"),
            Sample((r(3, 2).T,), {"dtype": "int32"}, name="dtype")]


def _full_batch_like(x, **attrs):
    return call("_full_batch_like", x, **attrs)


def _ref_full_batch_like(x, shape, fill_value=0.0, dtype="float32", input_dim_idx=0,
                         output_dim_idx=0):
    dims = list(shape)
    dims[output_dim_idx] = x.shape[input_dim_idx]
    return np.full(dims, fill_value, dtype)


def _batch_like_samples(rng, dtype):
    x = rng.uniform(-2, 2, (3, 4)).astype(dtype)
    return [Sample((x,), {"shape": [1, 5], "fill_value": 1.5}),
            Sample((x,), {"shape": [2, 1, 5], "fill_value": -2.0, "input_dim_idx": 1,
                          "output_dim_idx": 1, "dtype": "float64"}, name="dims"),
            Sample((x[:0],), {"shape": [7, 2], "output_dim_idx": 1, "dtype": "int64"},
                   name="empty")]


def _ref_like(value):
    def ref(x, dtype=None):
        return np.full(x.shape, value, dtype=x.dtype if dtype is None else dtype)
    return ref


def _arange_samples(rng, dtype):
    return [Sample((0, 5, 1), {"dtype": dtype}), Sample((2, 11, 3), {"dtype": dtype}),
            Sample((5, 0, -2), {"dtype": dtype}, name="negative-step"),
            Sample((3, 3, 1), {"dtype": dtype}, name="empty"),
            Sample((0.5, 3.0, 0.5), {"dtype": dtype}, name="float-args")]


def _ref_arange(start, end, step, dtype):
    return np.arange(start, end, step, dtype=np.float64).astype(dtype)


def _arange_default_samples(rng, dtype):
    return [Sample((5,), name="end-only"), Sample((1, 7, 2), name="int"),
            Sample((0, 1, 0.25), name="float"), Sample((0.0, 3), name="float-start")]


def _ref_arange_default(start, end=None, step=1):
    if end is None:
        start, end = 0, start
    ints = all(isinstance(v, int) for v in (start, end, step))
    return np.arange(start, end, step).astype(np.int64 if ints else np.float32)


def _linspace_samples(rng, dtype):
    return [Sample((0, 1, 5), {"dtype": dtype}), Sample((-2.5, 7, 4), {"dtype": dtype}),
            Sample((3, 3, 1), {"dtype": dtype}, name="one"),
            Sample((0, 1, 0), {"dtype": dtype}, name="empty")]


def _eye_samples(rng, dtype):
    return [Sample((3,), {"dtype": dtype}), Sample((2, 4), {"dtype": dtype}, name="wide"),
            Sample((4, 2), {"dtype": dtype}, name="tall"),
            Sample((0,), {"dtype": dtype}, name="empty")]


def _ref_eye(num_rows, num_columns=None, dtype=None):
    return np.eye(num_rows, num_columns, dtype=dtype)


def _diag_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(3),)), Sample((r(3),), {"offset": 1}, name="1-d-offset"),
            Sample((r(2),), {"offset": -2, "padding_value": 7}, name="1-d-padding"),
            Sample((r(0),), name="1-d-empty"),
            Sample((r(3, 3),), name="2-d"), Sample((r(2, 4),), {"offset": 1}, name="wide"),
            Sample((r(4, 2),), {"offset": -1}, name="tall"),
            Sample((r(2, 5),), {"offset": 2}, name="wide-offset"),
            Sample((r(3, 4),), {"offset": 5}, name="2-d-empty-diag"),
            Sample((r(4, 3).T,), {"offset": -1}, name="non-contiguous")]


def _ref_diag(x, offset=0, padding_value=0):
    if x.ndim == 2:
        return np.diagonal(x, offset)
    n = x.size + abs(offset)
    out = np.full((n, n), padding_value, dtype=x.dtype)
    for k in range(x.size):
        out[k + max(-offset, 0), k + max(offset, 0)] = x[k]
    return out


def _diagflat_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(2, 2),)), Sample((r(3),), {"offset": -1}, name="1-d"),
            Sample((r(),), {"offset": 1}, name="0-d")]


def _diag_embed_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(3),)), Sample((r(2, 3),), {"offset": 1}, name="batch-offset"),
            Sample((r(2, 2),), {"offset": -1, "dim1": 0, "dim2": 2}, name="dims"),
            Sample((r(2, 3),), {"dim1": -1, "dim2": 0}, name="dims-reversed")]


def _ref_diag_embed(x, offset=0, dim1=-2, dim2=-1):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), dtype=x.dtype)
    for k in range(x.shape[-1]):
        out[..., k + max(-offset, 0), k + max(offset, 0)] = x[..., k]
    d1, d2 = dim1 % (x.ndim + 1), dim2 % (x.ndim + 1)
    return np.moveaxis(out, (-2, -1), (d1, d2))


def _tri_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(3, 4),)), Sample((r(4, 3),), {"diagonal": 1}, name="above"),
            Sample((r(2, 3, 3),), {"diagonal": -1}, name="batch"),
            Sample((r(0, 3),), name="empty"),
            Sample((r(4, 3).T,), {"diagonal": 2}, name="non-contiguous")]


def _ref_tri(fn):
    return lambda x, diagonal=0: fn(x, diagonal)


def _tri_indices_samples(rng, dtype):
    return [Sample((4, 4), {"dtype": dtype}), Sample((3, 5, 1), {"dtype": dtype}, name="wide"),
            Sample((5, 2, -1), {"dtype": dtype}, name="tall"),
            Sample((0, 3), {"dtype": dtype}, name="empty")]


def _ref_tri_indices(fn):
    def ref(row, col, offset=0, dtype="int64"):
        return np.stack(fn(row, offset, col)).astype(dtype)
    return ref


def _assign_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(2, 3),)), Sample((r(),), name="0-d"), Sample((r(0, 2),), name="empty"),
            Sample((r(3, 2).T,), name="non-contiguous")]


def _fill_diagonal_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(3, 3),), {"value": 2.0}), Sample((r(2, 4),), {"value": -1.0, "offset": 1},
                                                       name="wide-offset"),
            Sample((r(5, 2),), {"value": 0.5, "wrap": True}, name="tall-wrap"),
            Sample((r(5, 2),), {"value": 0.5}, name="tall"),
            Sample((r(3, 3),), {"value": 1.0, "offset": -1}, name="negative-offset"),
            Sample((r(2, 2, 2),), {"value": 3.0}, name="3-d")]


def _fill_diagonal(x, value, offset=0, wrap=False):
    return x.clone().fill_diagonal_(value, offset, wrap)


def _ref_fill_diagonal(x, value, offset=0, wrap=False):
    """Paddle's loop: every sum(strides) elements, shifted by offset, staying in the row."""
    out = x.copy()
    flat = out.reshape(-1)
    cols = x.shape[-1]
    step = sum(int(np.prod(x.shape[k + 1:])) for k in range(x.ndim))
    size = x.size if wrap else min(x.size, cols * cols)
    for i in range(0, size, step):
        if 0 <= i % cols + offset < cols:
            flat[i + offset] = value
    return out


def _meshgrid_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(2), r(3))), Sample((r(3), r(1), r(2)), name="three"),
            Sample((r(0), r(2)), name="empty")]


def _vander_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(3),)), Sample((r(4),), {"n": 2, "increasing": True}, name="increasing"),
            Sample((np.array([0.0, 1.5], dtype),), {"n": 4}, name="zero")]


def _meshgrid(*xs):
    return paddle.meshgrid(*xs)


ENTRIES = [
    OpEntry("full", paddle.full, _ref_full, _full_samples, dtypes=_ALL, grad=False),
    OpEntry("full", paddle.zeros, lambda shape, dtype: np.zeros(shape, dtype), _shape_samples,
            dtypes=_ALL, grad=False, name="zeros"),
    OpEntry("full", paddle.ones, lambda shape, dtype: np.ones(shape, dtype), _shape_samples,
            dtypes=_ALL, grad=False, name="ones"),
    OpEntry("full", paddle.empty, lambda shape, dtype: np.zeros(shape, dtype), _shape_samples,
            dtypes=_ALL, grad=False, name="empty"),
    OpEntry("full_like", lambda x, dtype=None: paddle.full_like(x, 2.5, dtype),
            _ref_like(2.5), _like_samples, grad=False),
    OpEntry("full_like", paddle.zeros_like, _ref_like(0), _like_samples, grad=False,
            name="zeros_like"),
    OpEntry("full_like", paddle.ones_like, _ref_like(1), _like_samples, grad=False,
            name="ones_like"),
    OpEntry("full_like", paddle.empty_like, _ref_like(0), _like_samples, grad=False,
            name="empty_like"),
    OpEntry("_full_batch_like", _full_batch_like, _ref_full_batch_like, _batch_like_samples,
            grad=False),
    OpEntry("arange", paddle.arange, _ref_arange, _arange_samples,
            dtypes=("float64", "float32", "int64", "int32"), grad=False),
    OpEntry("arange", paddle.arange, _ref_arange_default, _arange_default_samples,
            dtypes=("float32",), grad=False, name="arange-default-dtype"),
    OpEntry("linspace", paddle.linspace,
            lambda start, stop, num, dtype: np.linspace(start, stop, num).astype(dtype),
            _linspace_samples, dtypes=("float64", "float32", "int64"), grad=False),
    OpEntry("logspace", lambda a, b, n, dtype: paddle.logspace(a, b, n, 2.0, dtype),
            lambda a, b, n, dtype: np.logspace(a, b, n, base=2.0).astype(dtype),
            _linspace_samples, dtypes=("float64", "float32"), grad=False),
    OpEntry("eye", paddle.eye, _ref_eye, _eye_samples, dtypes=_ALL, grad=False),
    OpEntry("diag", paddle.diag, _ref_diag, _diag_samples,
            dtypes=("float64", "float32", "int64")),
    OpEntry("diag", paddle.diagflat, lambda x, offset=0: np.diagflat(x, offset),
            _diagflat_samples, name="diagflat"),
    OpEntry("diag_embed", paddle.diag_embed, _ref_diag_embed, _diag_embed_samples),
    OpEntry("tril", paddle.tril, _ref_tri(np.tril), _tri_samples, inplace="tril_",
            dtypes=("float64", "float32", "int64")),
    OpEntry("triu", paddle.triu, _ref_tri(np.triu), _tri_samples, inplace="triu_",
            dtypes=("float64", "float32", "int64")),
    OpEntry("tril_indices", paddle.tril_indices, _ref_tri_indices(np.tril_indices),
            _tri_indices_samples, dtypes=("int64", "int32"), grad=False),
    OpEntry("triu_indices", paddle.triu_indices, _ref_tri_indices(np.triu_indices),
            _tri_indices_samples, dtypes=("int64", "int32"), grad=False),
    OpEntry("assign", paddle.assign, np.copy, _assign_samples,
            dtypes=("float64", "float32", "int64")),
    OpEntry("assign", paddle.clone, np.copy, _assign_samples, name="clone"),
    OpEntry("fill_diagonal", _fill_diagonal, _ref_fill_diagonal, _fill_diagonal_samples),
    OpEntry("full_like", paddle.vander, lambda x, n=None, increasing=False: np.vander(
        x, n, increasing), _vander_samples, name="vander"),
    OpEntry("full", _meshgrid, lambda *xs: np.meshgrid(*xs, indexing="ij"),
            _meshgrid_samples, name="meshgrid"),
]

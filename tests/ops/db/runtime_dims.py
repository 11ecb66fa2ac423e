"""Op database entries for sampan/ops/runtime_dims.py: full/uniform/normal/randint/reshape
with dims read from tensors at run time (the public functions use them only for static
Variables; here the ops are called directly with Tensor dims). The random ones take an
explicit seed, so the reference redraws with NumPy's Generator on that seed."""
import numpy as np

from sampan.framework.random import rng
from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample


def _i(*values, dtype="int64"):
    return np.array(values, dtype=dtype)


def _filled(shape, dims):
    values = iter(int(v) for d in dims for v in np.asarray(d).reshape(-1))
    return [next(values) if s == -1 else s for s in shape]


def _dims_samples(rng_, dtype):
    return [Sample(([_i(2), _i(3, dtype="int32")],), {"shape": [-1, 4, -1]}, name="two-slots"),
            Sample(([_i(2, 3)],), {"shape": [-1, -1]}, name="whole-shape"),
            Sample(([_i(0)],), {"shape": [-1, 2]}, name="empty")]


def full_dims(dims, shape):
    return call("_full_dims", dims, shape=shape, fill_value=2.5, dtype="float64")


def uniform_dims(dims, shape):
    return call("_uniform_dims", dims, shape=shape, dtype="float64", min=1.0, max=2.0, seed=7)


def normal_dims(dims, shape):
    return call("_normal_dims", dims, shape=shape, mean=1.0, std=2.0, dtype="float64", seed=7)


def randint_dims(dims, shape):
    return call("_randint_dims", dims, shape=shape, low=-3, high=4, dtype="int64", seed=7)


def _reshape_samples(rng_, dtype):
    x = rng_.uniform(-1, 1, (4, 6)).astype(dtype)
    return [Sample((x, [_i(2)]), {"shape": [-1, 0, -1], "slots": [0]}, name="slot-copy-infer"),
            Sample((x, [_i(-1, 12)]), {"shape": [-1, -1], "slots": [0, 1]}, name="tensor-infer"),
            Sample((x.T, [_i(2), _i(4)]), {"shape": [-1, 3, -1], "slots": [0, 2]},
                   name="non-contiguous")]


def reshape_dims(x, dims, shape, slots):
    return call("_reshape_dims", x, dims, shape=shape, slots=slots)


def _ref_reshape(x, dims, shape, slots):
    values = iter(int(v) for d in dims for v in np.asarray(d).reshape(-1))
    filled = [next(values) if i in slots else s for i, s in enumerate(shape)]
    filled = [x.shape[i] if s == 0 else s for i, s in enumerate(filled)]
    return x.reshape(filled)


def _expand_samples(rng_, dtype):
    x = rng_.uniform(-1, 1, (3, 1)).astype(dtype)
    return [Sample((x, [_i(2), _i(4)]), {"shape": [-1, -1, -1], "slots": [0, 2]},
                   name="lead-and-expand"),
            Sample((x, [_i(2, 3, 5)]), {"shape": [-1, -1, -1], "slots": [0, 1, 2]},
                   name="whole-shape"),
            Sample((x.T.copy().T, [_i(6, dtype="int32")]), {"shape": [-1, 3, 6],
                                                             "slots": [0]}, name="int32-dims")]


def expand_dims(x, dims, shape, slots):
    return call("_expand_dims", x, dims, shape=shape, slots=slots)


def _ref_expand(x, dims, shape, slots):
    values = iter(int(v) for d in dims for v in np.asarray(d).reshape(-1))
    filled = [next(values) if i in slots else s for i, s in enumerate(shape)]
    lead = len(filled) - x.ndim
    filled = [x.shape[i - lead] if s == -1 else s for i, s in enumerate(filled)]
    return np.broadcast_to(x, filled).copy()


ENTRIES = [
    OpEntry("_full_dims", full_dims,
            lambda dims, shape: np.full(_filled(shape, dims), 2.5), _dims_samples,
            dtypes=("float64",), grad=False, onnx=False),  # run-time shapes: static only
    OpEntry("_uniform_dims", uniform_dims,
            lambda dims, shape: rng(7).uniform(1.0, 2.0, _filled(shape, dims)), _dims_samples,
            dtypes=("float64",), grad=False, onnx=False),
    OpEntry("_normal_dims", normal_dims,
            lambda dims, shape: rng(7).normal(1.0, 2.0, _filled(shape, dims)), _dims_samples,
            dtypes=("float64",), grad=False, onnx=False),
    OpEntry("_randint_dims", randint_dims,
            lambda dims, shape: rng(7).integers(-3, 4, _filled(shape, dims), dtype=np.int64),
            _dims_samples, dtypes=("float64",), grad=False, onnx=False),
    OpEntry("_reshape_dims", reshape_dims, _ref_reshape, _reshape_samples, grad_args=(0,),
            onnx=False),
    OpEntry("_expand_dims", expand_dims, _ref_expand, _expand_samples, grad_args=(0,),
            onnx=False),
]

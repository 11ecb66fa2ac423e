"""Op database entries for sampan/ops/math.py, math_binary.py and math_combine.py."""
import numpy as np

import sampan as paddle
from sampan.ops import REGISTRY
from sampan.ops.dispatch import dispatch
from tests.ops.op_db import OpEntry, Sample


def _binary_samples(rng, dtype, lo=-2.0, hi=2.0, signed=False):
    def r(*shape):
        a = rng.uniform(lo, hi, shape)
        if signed:
            a = a * rng.choice([-1.0, 1.0], shape)
        return np.asarray(a).astype(dtype)
    return [Sample((r(3, 4), r(3, 4)), name="same"),
            Sample((r(3, 4), r(4)), name="broadcast"),
            Sample((r(2, 1, 3), r(4, 1)), name="both-broadcast"),
            Sample((r(), r()), name="0-d"),
            Sample((r(4, 3).T, r(3, 4)), name="non-contiguous"),
            Sample((r(0, 3), r(3)), name="empty")]


def _nonzero(rng, dtype):
    return _binary_samples(rng, dtype, 0.5, 2.0, signed=True)


def _positive(rng, dtype):
    return [Sample((rng.uniform(0.5, 2, s).astype(dtype), rng.uniform(0.5, 2, s2).astype(dtype)))
            for s, s2 in (((3, 4), (3, 4)), ((2, 3), (3,)), ((), ()))]


def _int_pairs(rng, dtype):
    x = rng.integers(-9, 10, (3, 4)).astype(dtype)
    y = rng.integers(1, 5, (3, 4)).astype(dtype) * rng.choice([-1, 1], (3, 4)).astype(dtype)
    return [Sample((x, y)), Sample((x, y[0]), name="broadcast"),
            Sample((np.asarray(7, dtype), np.asarray(-2, dtype)), name="0-d")]


def _pow_samples(rng, dtype):
    x = rng.uniform(0.5, 2, (3, 4)).astype(dtype)
    return [Sample((x, rng.uniform(-2, 2, (3, 4)).astype(dtype))),
            Sample((x, rng.uniform(-2, 2, (4,)).astype(dtype)), name="broadcast"),
            Sample((x, 2.0), name="scalar-exponent"), Sample((x, 3), name="int-exponent"),
            Sample((np.asarray(1.5, dtype), np.asarray(0.5, dtype)), name="0-d")]


def _int_pow(rng, dtype):
    x = rng.integers(-4, 5, (3, 4)).astype(dtype)
    return [Sample((x, rng.integers(0, 4, (3, 4)).astype(dtype))), Sample((x, 3), name="scalar")]


def _pow_ref(x, y):
    return np.power(x, np.asarray(y, x.dtype))


def _heaviside_samples(rng, dtype):
    x = np.asarray([[-1.5, 0.0, 2.0], [0.0, 0.5, -0.25]], dtype)
    return [Sample((x, rng.uniform(-1, 1, (2, 3)).astype(dtype))),
            Sample((x, rng.uniform(-1, 1, (3,)).astype(dtype)), name="broadcast"),
            Sample((np.asarray(0.0, dtype), np.asarray(0.3, dtype)), name="0-d")]


def _nan_pairs(rng, dtype):
    x = np.asarray([1.0, np.nan, 3.0, np.nan, -2.0], dtype)
    y = np.asarray([np.nan, 2.0, 1.0, np.nan, 5.0], dtype)
    return [Sample((x, y))]


def _clip_samples(rng, dtype):
    x = rng.uniform(-2, 2, (3, 4)).astype(dtype)
    return [Sample((x,), {"min": -0.5, "max": 0.7}),
            Sample((x,), {"min": -0.5}, name="min-only"),
            Sample((x,), {"max": 0.3}, name="max-only"),
            Sample((x, np.asarray(-1.0, dtype), np.asarray(1.0, dtype)), name="tensor-bounds"),
            Sample((rng.uniform(-2, 2, (4, 3)).astype(dtype).T,), {"min": 0.0, "max": 1.0},
                   name="non-contiguous"),
            Sample((np.asarray(1.5, dtype),), {"min": -1.0, "max": 1.0}, name="0-d"),
            Sample((np.zeros((0, 2), dtype),), {"min": -1.0, "max": 1.0}, name="empty")]


def _clip_ref(x, min=None, max=None):  # noqa: A002
    return np.clip(x, min, max).astype(x.dtype)


def _scale_samples(rng, dtype):
    x = rng.uniform(-2, 2, (3, 4)).astype(dtype)
    return [Sample((x,), {"scale": 2.5, "bias": 1.0}),
            Sample((x,), {"scale": -0.5, "bias": 2.0, "bias_after_scale": False},
                   name="bias-first"),
            Sample((np.asarray(1.0, dtype),), {"scale": 3.0}, name="0-d"),
            Sample((np.zeros((0, 3), dtype),), {"scale": 3.0}, name="empty")]


def _scale_ref(x, scale=1.0, bias=0.0, bias_after_scale=True):
    out = x * scale + bias if bias_after_scale else (x + bias) * scale
    return np.asarray(out).astype(x.dtype)


def _lerp_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample((r(3, 4), r(3, 4), r(3, 4))), Sample((r(3, 4), r(4), r(3, 1)), name="broadcast"),
            Sample((r(2, 3), r(2, 3), 0.3), name="scalar-weight"),
            Sample((r(), r(), r()), name="0-d"), Sample((r(0, 2), r(2), r(2)), name="empty")]


def _lerp_ref(x, y, w):
    return (x + np.asarray(w, x.dtype) * (y - x)).astype(x.dtype)


def _add_n_samples(rng, dtype):
    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)
    return [Sample(([r(2, 3), r(2, 3), r(2, 3)],)), Sample(([r()],), name="single-0-d"),
            Sample(([r(0, 2), r(0, 2)],), name="empty")]


def _multiplex_samples(rng, dtype):
    a, b, c = (rng.uniform(-2, 2, (4, 3)).astype(dtype) for _ in range(3))
    return [Sample(([a, b, c], np.asarray([[2], [0], [1], [2]], "int32"))),
            Sample(([a, b], np.asarray([1, 1, 0, 1], "int64")), name="flat-index")]


def _multiplex_ref(inputs, index):
    idx = index.reshape(-1)
    return np.stack(inputs)[idx, np.arange(idx.size)]


def _nan_to_num_samples(rng, dtype):
    x = np.asarray([[1.5, np.nan, -np.inf], [np.inf, -0.5, 2.0]], dtype)
    return [Sample((x,), {"nan": 1.0, "posinf": 9.0, "neginf": -9.0}),
            Sample((np.asarray(np.nan, dtype),), name="0-d"),
            Sample((np.zeros((0, 2), dtype),), name="empty")]


def _nan_to_num_default(rng, dtype):
    """Default replacements (the dtype's max/lowest): forward only, the loss would overflow."""
    return [Sample((np.asarray([[1.5, np.nan, -np.inf], [np.inf, -0.5, 2.0]], dtype),))]


def _increment(x, value=1.0):
    """The increment OpDef out of place (paddle.increment itself updates x in place)."""
    return dispatch(REGISTRY["increment"], (x,), {"value": value})


def _complex_samples(rng, dtype):
    if not dtype.startswith("complex"):
        return [Sample((rng.uniform(-2, 2, (3, 4)).astype(dtype),)),
                Sample((np.asarray([-1.0, 0.5, 2.0], dtype),), name="signs")]
    real = np.dtype(dtype).type(0).real.dtype

    def r(*shape):
        return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dtype)
    return [Sample((r(3, 4),)), Sample((r(),), name="0-d"),
            Sample((np.zeros((0, 2), dtype),), name="empty"),
            Sample((r(4, 3).T,), name="non-contiguous"),
            Sample((rng.uniform(-1, 1, (2,)).astype(real),), name="real")]


_CPLX = ("complex128", "complex64", "float64")

ENTRIES = [
    OpEntry("add", paddle.add, np.add, _binary_samples, inplace="add_"),
    OpEntry("subtract", paddle.subtract, np.subtract, _binary_samples, inplace="subtract_"),
    OpEntry("multiply", paddle.multiply, np.multiply, _binary_samples, inplace="multiply_"),
    OpEntry("divide", paddle.divide, np.divide, _nonzero, inplace="divide_"),
    OpEntry("divide", paddle.divide, lambda x, y: np.divide(x, y).astype("float32"), _int_pairs,
            dtypes=("int64", "int32"), grad=False, name="divide-int"),
    OpEntry("floor_divide", paddle.floor_divide, np.floor_divide, _nonzero, grad=False),
    OpEntry("floor_divide", paddle.floor_divide, np.floor_divide, _int_pairs,
            dtypes=("int64", "int32"), grad=False, name="floor_divide-int"),
    OpEntry("remainder", paddle.remainder, np.remainder, _nonzero, inplace="remainder_"),
    OpEntry("remainder", paddle.remainder, np.remainder, _int_pairs,
            dtypes=("int64", "int32"), grad=False, name="remainder-int"),
    OpEntry("pow", paddle.pow, _pow_ref, _pow_samples, inplace="pow_"),
    OpEntry("pow", paddle.pow, _pow_ref, _int_pow, dtypes=("int64", "int32"), grad=False,
            name="pow-int"),
    OpEntry("maximum", paddle.maximum, np.maximum, _binary_samples),
    OpEntry("minimum", paddle.minimum, np.minimum, _binary_samples),
    OpEntry("maximum", paddle.maximum, np.maximum, _nan_pairs, grad=False, name="maximum-nan"),
    OpEntry("fmax", paddle.fmax, np.fmax, _binary_samples),
    OpEntry("fmin", paddle.fmin, np.fmin, _binary_samples),
    OpEntry("fmax", paddle.fmax, np.fmax, _nan_pairs, grad=False, name="fmax-nan"),
    OpEntry("fmin", paddle.fmin, np.fmin, _nan_pairs, grad=False, name="fmin-nan"),
    OpEntry("atan2", paddle.atan2, np.arctan2, _nonzero),
    OpEntry("atan2", paddle.atan2, lambda x, y: np.arctan2(x.astype("float64"), y), _int_pairs,
            dtypes=("int64", "int32"), grad=False, name="atan2-int",
            onnx=False),   # float64 output: onnxruntime has no float64 Atan kernel
    OpEntry("heaviside", paddle.heaviside, np.heaviside, _heaviside_samples, grad_args=(1,)),
    OpEntry("logaddexp", paddle.logaddexp, np.logaddexp, _binary_samples),
    OpEntry("gcd", paddle.gcd, np.gcd, _int_pairs, dtypes=("int64", "int32"), grad=False,
            inplace="gcd_"),
    OpEntry("lcm", paddle.lcm, np.lcm, _int_pairs, dtypes=("int64", "int32"), grad=False,
            inplace="lcm_"),
    OpEntry("hypot", paddle.hypot, np.hypot, _nonzero, inplace="hypot_"),
    OpEntry("nextafter", paddle.nextafter, np.nextafter, _binary_samples, grad=False),
    OpEntry("copysign", paddle.copysign, np.copysign, _nonzero),
    OpEntry("copysign", paddle.copysign,
            lambda x, y: np.copysign(x.astype("float32"), y.astype("float32")), _int_pairs,
            dtypes=("int64", "int32"), grad=False, name="copysign-int"),
    OpEntry("cast", paddle.cast, lambda x, dtype: x.astype(dtype),
            lambda rng, dt: [Sample((rng.standard_normal((2, 3)).astype(dt),), {"dtype": dt}),
                             Sample((np.asarray(1.5, dt),), {"dtype": "float64"})]),
    OpEntry("cast", paddle.cast, lambda x, dtype: x.astype(dtype),
            lambda rng, dt: [Sample((rng.standard_normal((2, 3)).astype(dt),), {"dtype": t})
                             for t in ("float32", "int32", "bool", "float16")],
            grad=False, name="cast-narrowing"),
    OpEntry("clip", paddle.clip, _clip_ref, _clip_samples, grad_args=(0,), inplace="clip_"),
    OpEntry("clip", paddle.clip, _clip_ref,
            lambda rng, dt: [Sample((rng.integers(-5, 6, (3, 4)).astype(dt),),
                                    {"min": -2, "max": 3})],
            dtypes=("int64", "int32"), grad=False, name="clip-int"),
    OpEntry("scale", paddle.scale, _scale_ref, _scale_samples, inplace="scale_"),
    OpEntry("lerp", paddle.lerp, _lerp_ref, _lerp_samples, inplace="lerp_"),
    OpEntry("add_n", paddle.add_n, lambda xs: sum(xs[1:], xs[0]), _add_n_samples),
    OpEntry("multiplex", paddle.multiplex, _multiplex_ref, _multiplex_samples),
    OpEntry("nan_to_num", paddle.nan_to_num, np.nan_to_num, _nan_to_num_samples,
            inplace="nan_to_num_"),
    OpEntry("nan_to_num", paddle.nan_to_num, np.nan_to_num, _nan_to_num_default, grad=False,
            name="nan_to_num-default"),
    OpEntry("increment", _increment, lambda x, value=1.0: (x + value).astype(x.dtype),
            lambda rng, dt: [Sample((np.asarray([1.5], dt),), {"value": 2.0}),
                             Sample((np.asarray(3.0, dt),))]),
    OpEntry("complex", paddle.complex, lambda r, i: r + 1j * i,
            lambda rng, dt: [Sample((rng.uniform(-2, 2, (3, 4)).astype(dt),
                                     rng.uniform(-2, 2, (4,)).astype(dt)))], grad=False),
    OpEntry("real", paddle.real, np.real, _complex_samples, dtypes=_CPLX),
    OpEntry("imag", paddle.imag, np.imag, _complex_samples, dtypes=_CPLX),
    OpEntry("conj", paddle.conj, np.conj, _complex_samples, dtypes=_CPLX),
    OpEntry("angle", paddle.angle, np.angle, _complex_samples, dtypes=_CPLX),
    OpEntry("abs", paddle.abs, np.abs, _complex_samples, dtypes=("complex128", "complex64"),
            grad=False, name="abs-complex", onnx=False),  # ONNX has no complex type
    OpEntry("sgn", paddle.sgn, lambda x: x / np.abs(x), _complex_samples,
            dtypes=("complex128", "complex64"), grad=False, name="sgn-complex",
            onnx=False),   # complex tensors have no ONNX type
]

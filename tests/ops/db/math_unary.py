"""Op database entries for sampan/ops/math_unary.py, math_trig.py and math_special.py."""
import numpy as np
import scipy.special as sp

import sampan as paddle
from sampan.tensor._names import TENSOR_METHODS
from tests.ops.op_db import OpEntry, Sample


def _domain(lo, hi, signed=False):
    """Samples drawn from [lo, hi] (and its mirror image when `signed`): the usual four cases."""
    def samples(rng, dtype):
        def r(*shape):
            a = rng.uniform(lo, hi, shape)
            if signed:
                a = a * rng.choice([-1.0, 1.0], shape)
            return np.asarray(a).astype(dtype)
        return [Sample((r(3, 4),)), Sample((r(),), name="0-d"),
                Sample((r(0, 2),), name="empty"), Sample((r(4, 3).T,), name="non-contiguous")]
    return samples


def _ints(rng, dtype):
    return [Sample((rng.integers(-5, 6, (3, 4)).astype(dtype),)),
            Sample((np.asarray(-3, dtype),), name="0-d")]


def _entry(name, ref, lo=-2.0, hi=2.0, signed=False, **kw):
    fn = getattr(paddle, name)
    inplace = name + "_" if name + "_" in TENSOR_METHODS else None
    return OpEntry(name, fn, ref, _domain(lo, hi, signed), inplace=inplace, **kw)


def _int_entry(name, ref, **kw):
    return OpEntry(name, getattr(paddle, name), ref, _ints, dtypes=("int64", "int32"),
                   grad=False, name=name + "-int", **kw)


def _int_to_float(name, ref):
    """Integer input promoted to the default float (float32)."""
    return OpEntry(name, getattr(paddle, name), lambda x: ref(x.astype("float32")),
                   lambda rng, dt: [Sample((np.asarray([1, 2, 3], dt),))],
                   dtypes=("int64", "int32"), grad=False, name=name + "-int")


def _logit_ref(x, eps=None):
    if eps:
        x = np.clip(x, eps, 1 - eps)
    return np.log(x / (1 - x))


def _stanh_ref(x, scale_a=0.67, scale_b=1.7159):
    return (scale_b * np.tanh(scale_a * x)).astype(x.dtype)


ENTRIES = [
    _entry("exp", np.exp),
    _entry("expm1", np.expm1),
    _entry("log", np.log, 0.5, 3.0),
    _entry("log1p", np.log1p, -0.5, 2.0),
    _entry("log2", np.log2, 0.5, 3.0),
    _entry("log10", np.log10, 0.5, 3.0),
    _entry("sqrt", np.sqrt, 0.5, 3.0),
    _entry("rsqrt", lambda x: (1 / np.sqrt(x)).astype(x.dtype), 0.5, 3.0),
    _entry("square", np.square),
    _entry("abs", np.abs, 0.2, 2.0, signed=True),
    _entry("sign", np.sign, 0.2, 2.0, signed=True),
    _entry("sgn", np.sign, 0.2, 2.0, signed=True),
    _entry("neg", np.negative),
    _entry("reciprocal", np.reciprocal, 0.5, 2.0, signed=True),
    _entry("sin", np.sin), _entry("cos", np.cos), _entry("tan", np.tan, -1.2, 1.2),
    _entry("asin", np.arcsin, -0.9, 0.9), _entry("acos", np.arccos, -0.9, 0.9),
    _entry("atan", np.arctan),
    _entry("sinh", np.sinh), _entry("cosh", np.cosh), _entry("tanh", np.tanh),
    _entry("asinh", np.arcsinh), _entry("acosh", np.arccosh, 1.2, 3.0),
    _entry("atanh", np.arctanh, -0.9, 0.9),
    _entry("sigmoid", sp.expit, -4.0, 4.0),
    _entry("erf", sp.erf),
    _entry("erfinv", sp.erfinv, -0.9, 0.9),
    _entry("lgamma", sp.gammaln, 0.5, 3.0),
    _entry("digamma", sp.psi, 0.5, 3.0),
    OpEntry("polygamma", paddle.polygamma, lambda x, n: sp.polygamma(n, x),
            lambda rng, dt: [Sample((rng.uniform(0.5, 3, (3, 4)).astype(dt),), {"n": n})
                             for n in (0, 1, 2)] + [
                Sample((np.asarray(1.5, dt),), {"n": 1}, name="0-d"),
                Sample((np.zeros((0, 2), dt),), {"n": 1}, name="empty")], tol=10),
    _entry("frexp", lambda x: tuple(a.astype(x.dtype) for a in np.frexp(x)), 0.3, 9.0,
           signed=True),
    _entry("floor", np.floor, -3.0, 3.0), _entry("ceil", np.ceil, -3.0, 3.0),
    _entry("trunc", np.trunc, -3.0, 3.0), _entry("round", np.round, -3.0, 3.0),
    OpEntry("round", paddle.round, lambda x, decimals: np.round(x, decimals),
            lambda rng, dt: [Sample((rng.uniform(-50, 50, (3, 4)).astype(dt),),
                                    {"decimals": d}) for d in (2, -1)],
            name="round-decimals", grad=False),
    OpEntry("round", paddle.round, np.round,
            lambda rng, dt: [Sample((np.asarray([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], dt),))],
            name="round-half-even", grad=False),
    _entry("frac", lambda x: x - np.trunc(x), -3.0, 3.0),
    _entry("deg2rad", np.deg2rad, -180.0, 180.0), _entry("rad2deg", np.rad2deg),
    _entry("logit", _logit_ref, 0.1, 0.9),
    OpEntry("logit", paddle.logit, _logit_ref,
            lambda rng, dt: [Sample((np.asarray([0.01, 0.05, 0.3, 0.6, 0.95, 0.99], dt),),
                                    {"eps": 0.1})],
            name="logit-eps", inplace="logit_"),
    _entry("stanh", _stanh_ref),
    OpEntry("stanh", paddle.stanh, _stanh_ref,
            lambda rng, dt: [Sample((rng.uniform(-2, 2, (2, 3)).astype(dt),),
                                    {"scale_a": 1.5, "scale_b": 0.5})], name="stanh-scales"),
    _entry("i0", sp.i0), _entry("i0e", sp.i0e, 0.3, 2.0, signed=True),
    _entry("i1", sp.i1, 0.3, 2.0, signed=True), _entry("i1e", sp.i1e, 0.3, 2.0, signed=True),
    _int_entry("abs", np.abs), _int_entry("square", np.square), _int_entry("sign", np.sign),
    _int_entry("neg", np.negative), _int_entry("floor", np.floor),
    _int_entry("round", np.round), _int_entry("frac", np.zeros_like),
    _int_to_float("sqrt", np.sqrt), _int_to_float("sin", np.sin),
    _int_to_float("sigmoid", sp.expit), _int_to_float("erf", sp.erf),
    _int_to_float("deg2rad", np.deg2rad),
]

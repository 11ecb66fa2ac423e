"""Op database entries for sampan/ops/quant.py (references in NumPy, int64 accumulation)."""
import numpy as np

from sampan.ops import call
from tests.ops.op_db import OpEntry, Sample


def _round_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def _bshape(scale, ndim, quant_axis):
    if quant_axis == -1:
        return scale.reshape(())
    shape = [1] * ndim
    shape[quant_axis] = -1
    return scale.reshape(shape)


def _fake_ref(x, scale, bit_length=8, quant_axis=-1):
    bnt = 2 ** (bit_length - 1) - 1
    s = _bshape(scale.astype("float64"), x.ndim, quant_axis)
    q = _round_away(np.clip(x, -s, s) / s * bnt)
    return (q * s / bnt).astype(x.dtype)


def _quant_ref(x, scale, bit_length=8, quant_axis=-1):
    bnt = 2 ** (bit_length - 1) - 1
    s = _bshape(scale.astype("float64"), x.ndim, quant_axis)
    return np.clip(_round_away(x / s * bnt), -bnt, bnt).astype("int8" if bnt < 128 else "int16")


def _dequant_ref(x, scale, bit_length=8, quant_axis=-1):
    bnt = 2 ** (bit_length - 1) - 1
    s = _bshape(scale.astype("float64"), x.ndim, quant_axis)
    return (x * s / bnt).astype(scale.dtype)


def _float_samples(rng, dtype):
    x = rng.uniform(-2, 2, (3, 4)).astype(dtype)
    return [Sample((x, np.array([1.5], dtype)), name="per-tensor"),
            Sample((x, np.array(3.0, dtype)), {"bit_length": 4}, name="4-bit-0d-scale"),
            Sample((x, np.array([0.5, 1.0, 2.0], dtype)), {"quant_axis": 0}, name="axis-0"),
            Sample((x.T, np.array([0.5, 1.0, 2.0], dtype)), {"quant_axis": 1},
                   name="non-contiguous-axis-1"),
            Sample((np.zeros((0, 4), dtype), np.array([1.0], dtype)), name="empty")]


def _dequant_samples(rng, dtype):
    q = rng.integers(-127, 128, (3, 4)).astype("int8")
    acc = rng.integers(-2 ** 20, 2 ** 20, (2, 3)).astype("int32")
    return [Sample((q, np.array([1.5], dtype)), name="per-tensor"),
            Sample((q, np.array([0.5, 1.0, 2.0], dtype)), {"quant_axis": 0}, name="axis-0"),
            Sample((acc, np.array([1e-3, 2e-3, 3e-3], dtype)), {"quant_axis": 1},
                   name="int32-accumulator")]


def _i8(rng, *shape):
    return rng.integers(-128, 128, shape).astype("int8")


def _matmul_samples(rng, dtype):
    return [Sample((_i8(rng, 3, 5), _i8(rng, 5, 4)), name="2-d"),
            Sample((_i8(rng, 2, 3, 5), _i8(rng, 5, 2)), name="batched-x"),
            Sample((_i8(rng, 2, 1100), _i8(rng, 1100, 3)), name="deep-float64-path"),
            Sample((np.full((1, 8), -128, "int8"), np.full((8, 1), -128, "int8")),
                   name="extremes")]


def _matmul_ref(x, y):
    return (x.astype("int64") @ y.astype("int64")).astype("int32")


def _conv_samples(rng, dtype):
    return [Sample((_i8(rng, 2, 3, 6, 5), _i8(rng, 4, 3, 3, 3)), name="plain"),
            Sample((_i8(rng, 1, 4, 7, 7), _i8(rng, 4, 2, 3, 3)),
                   {"stride": [2, 2], "padding": [1, 1, 1, 1], "groups": 2}, name="groups"),
            Sample((_i8(rng, 1, 2, 6, 6), _i8(rng, 3, 2, 2, 2)),
                   {"padding": [0, 1, 1, 0], "dilation": [2, 1]}, name="asym-pad-dilation")]


def _conv_ref(x, w, stride=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1), groups=1, **_):
    x = np.pad(x.astype("int64"), [(0, 0), (0, 0), (padding[0], padding[1]),
                                   (padding[2], padding[3])])
    n, c, h, wd = x.shape
    oc, icg, kh, kw = w.shape
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, oc, oh, ow), "int64")
    ocg = oc // groups
    for o in range(oc):
        g = o // ocg
        for i in range(oh):
            for j in range(ow):
                patch = x[:, g * icg:(g + 1) * icg,
                          i * stride[0]:i * stride[0] + dilation[0] * (kh - 1) + 1:dilation[0],
                          j * stride[1]:j * stride[1] + dilation[1] * (kw - 1) + 1:dilation[1]]
                out[:, o, i, j] = (patch * w[o].astype("int64")).sum(axis=(1, 2, 3))
    return out.astype("int32")


def _fn(name):
    def fn(*args, **kwargs):
        return call(name, *args, **kwargs)
    return fn


ENTRIES = [
    # the straight-through gradient is not the derivative of the step function: checked in
    # tests/quantization/test_ops.py instead of by finite differences
    OpEntry("fake_quantize_dequantize", _fn("fake_quantize_dequantize"), _fake_ref,
            _float_samples, grad=False, tol=10),
    OpEntry("quantize_linear", _fn("quantize_linear"), _quant_ref, _float_samples, grad=False),
    OpEntry("dequantize_linear", _fn("dequantize_linear"), _dequant_ref, _dequant_samples,
            grad=False),
    OpEntry("int8_matmul", _fn("int8_matmul"), _matmul_ref, _matmul_samples,
            dtypes=("int8",), grad=False),
    OpEntry("int8_conv2d", _fn("int8_conv2d"), _conv_ref, _conv_samples, dtypes=("int8",),
            grad=False),
]

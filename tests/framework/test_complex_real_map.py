"""One home for the complex <-> real dtype pairs (framework/dtype.py) and one test for "a
Tensor or a static Variable" (framework/tensor.py), used by the ops and APIs (issue #8)."""
import numpy as np

import sampan as paddle
from sampan.framework import dtype as dt
from sampan.framework.tensor import is_tensor_or_variable, is_variable


def test_complex_of_and_real_of():
    assert dt.complex_of("float32") is dt.complex64 and dt.complex_of(dt.float64) is dt.complex128
    assert dt.complex_of("float16") is dt.complex64 and dt.complex_of("bfloat16") is dt.complex64
    assert dt.complex_of("complex128") is dt.complex128 and dt.complex_of("int32") is dt.int32
    assert dt.real_of("complex64") is dt.float32 and dt.real_of(np.complex128) is dt.float64
    assert dt.real_of("float16") is dt.float16 and dt.real_of("int64") is dt.int64
    assert all(dt.real_of(c) is dt.convert_dtype(r) for c, r in dt.REAL_OF.items())


def test_ops_use_the_shared_pairs():
    z = paddle.to_tensor([1 + 2j], dtype="complex128")
    assert paddle.abs(z).dtype == paddle.float64 and paddle.real(z).dtype == paddle.float64
    assert paddle.as_real(z).dtype == paddle.float64
    x = paddle.to_tensor([[1.0, 2.0]], dtype="float64")
    assert paddle.as_complex(x).dtype == paddle.complex128
    assert paddle.complex(x, x).dtype == paddle.complex128
    h = paddle.to_tensor([1.0, 2.0, 3.0, 4.0], dtype="float16")
    assert paddle.fft.fft(h).dtype == paddle.complex64
    assert paddle.fft.irfft(paddle.fft.rfft(h)).dtype == paddle.float32


def test_tensor_or_variable():
    t = paddle.ones([1])
    assert is_tensor_or_variable(t) and not is_variable(t)
    main, startup = paddle.static.Program(), paddle.static.Program()
    paddle.enable_static()
    try:
        with paddle.static.program_guard(main, startup):
            v = paddle.static.data("v", [2], "float32")
    finally:
        paddle.disable_static()
    assert is_variable(v) and is_tensor_or_variable(v)
    assert not is_tensor_or_variable(np.ones(1)) and not is_variable(1.0)

"""A to_static Program traced under auto_cast is cached apart from the float32 one: the
dispatch wrappers' trace keys are part of the program cache key."""
import numpy as np

import sampan as paddle
from sampan.framework.flags import dispatch_wrapper, trace_key


def test_auto_cast_around_a_traced_function_gets_its_own_program():
    paddle.seed(0)
    lin = paddle.nn.Linear(4, 3)

    @paddle.jit.to_static
    def f(x):
        return lin(x)

    x = paddle.randn([2, 4])
    plain = f(x)
    with paddle.amp.auto_cast(dtype="bfloat16"):
        low = f(x)
    again = f(x)
    assert plain.dtype == paddle.float32 and again.dtype == paddle.float32
    assert low.dtype == paddle.bfloat16
    np.testing.assert_allclose(low.astype("float32").numpy(), plain.numpy(), rtol=2e-2,
                               atol=2e-2)
    assert len(f.program_cache) == 2


def test_wrappers_without_a_trace_key_do_not_split_the_cache():
    def record(op, inputs, attrs, nxt):
        return nxt(op, inputs, attrs)

    assert trace_key() == ()
    with dispatch_wrapper(record):
        assert trace_key() == ()


"""to_static traces with each tensor argument's own stop_gradient (part of the cache key):
a loop whose carried tensor grows runs when nothing needs its gradient (Paddle 3.3.1 runs
docs/guides/jit/limitations_cn.md's examples), and still refuses when a gradient is needed."""
import numpy as np
import pytest

import sampan as paddle


@paddle.jit.to_static
def grow(x, y):
    for _ in range(paddle.to_tensor(3)):
        x = paddle.concat([x, y], axis=0)
    return x


def test_growing_loop_without_gradients():
    x, y = paddle.ones([2, 3]), paddle.zeros([2, 3])
    out = grow(x, y)
    assert out.shape == [8, 3]
    np.testing.assert_array_equal(out.numpy()[:2], np.ones([2, 3]))
    np.testing.assert_array_equal(out.numpy()[2:], np.zeros([6, 3]))


def test_stop_gradient_is_part_of_the_trace_key():
    @paddle.jit.to_static
    def double(x):
        return x * 2.0
    a = paddle.ones([2])
    double(a)
    b = paddle.ones([2])
    b.stop_gradient = False
    out = double(b)
    out.sum().backward()
    assert b.grad.tolist() == [2.0, 2.0]
    assert len(double.program_cache) == 2   # one trace per stop_gradient pattern
    double(paddle.full([2], 3.0))
    assert len(double.program_cache) == 2


def test_growing_loop_with_gradient_still_refused():
    x = paddle.ones([2, 3])
    x.stop_gradient = False
    with pytest.raises(ValueError, match="changes shape between iterations"):
        grow(x, paddle.zeros([2, 3]))

"""paddle.static.setitem: out-of-place `x[index] = value`, eager and in a Program (the form
the indexing guide, docs/guides/beginner/tensor_index_cn.md, uses in static mode)."""
import numpy as np

import sampan as paddle
from tests.static_util import static_guard


def test_setitem_eager_is_out_of_place():
    a = paddle.ones([2, 3, 4])
    b = paddle.static.setitem(a, 0, 5)
    ref = np.ones([2, 3, 4], np.float32)
    ref[0] = 5
    np.testing.assert_array_equal(b.numpy(), ref)
    np.testing.assert_array_equal(a.numpy(), np.ones([2, 3, 4], np.float32))


def test_setitem_tuple_index_and_int_cast():
    a = paddle.zeros([2, 3], dtype="int32")
    b = paddle.static.setitem(a, (1, slice(0, 2)), 2.5)
    assert b.dtype == paddle.int32
    assert b.tolist() == [[0, 0, 0], [2, 2, 0]]


def test_setitem_in_program():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        y = paddle.static.setitem(x, (slice(None), 1), paddle.to_tensor([7.0, 8.0]).reshape([2]))
        assert isinstance(y, paddle.static.Variable)
        assert y.shape == (2, 3) or list(y.shape) == [2, 3]
        exe = paddle.static.Executor()
        out, = exe.run(main, feed={"x": np.zeros([2, 3], np.float32)}, fetch_list=[y])
    np.testing.assert_array_equal(out, [[0, 7, 0], [0, 8, 0]])


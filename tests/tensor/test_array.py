"""paddle.tensor.array: tensor arrays as lists in dynamic mode (Paddle 3.3.1's behaviour and
errors) and as build-time arrays of Variables in static Programs."""
import numpy as np
import pytest

import sampan as paddle

from ..static_util import static_guard


def test_dynamic_arrays_are_lists():
    arr = paddle.tensor.create_array("float32")
    assert arr == [] and not paddle.is_tensor(arr)
    i = paddle.zeros([1], dtype="int64")
    x = paddle.full([2], 3.0)
    arr = paddle.tensor.array_write(x, i, arr)
    assert paddle.tensor.array_length(arr) == 1      # a Python int, as in Paddle
    np.testing.assert_array_equal(paddle.tensor.array_read(arr, i).numpy(), [3.0, 3.0])
    y = paddle.full([2], 5.0)
    paddle.tensor.array_write(y, i, arr)               # overwrite index 0
    paddle.tensor.array_write(x, paddle.ones([1], "int64"), arr)   # append at the end
    assert [a.numpy()[0] for a in arr] == [5.0, 3.0]
    new = paddle.tensor.array_write(x, i)               # array=None: a new array
    assert len(new) == 1 and new[0] is x


def test_dynamic_errors_match_paddle_kinds():
    arr = paddle.tensor.create_array("float32", [paddle.ones([1])])
    x = paddle.ones([1])
    with pytest.raises(AssertionError, match="out of range"):
        paddle.tensor.array_write(x, paddle.full([1], 5, "int64"), arr)
    with pytest.raises(AssertionError, match="must be a Tensor in dynamic mode"):
        paddle.tensor.array_read(arr, 0)
    with pytest.raises(TypeError, match="should be Tensors"):
        paddle.tensor.create_array("float32", [1])
    with pytest.raises(TypeError, match="array must be a tensor array"):
        paddle.tensor.array_length(x)


def test_static_array_append_pop_length():
    main = paddle.static.Program()
    with static_guard(main):
        a = paddle.static.data("a", shape=[2, 3], dtype="float32")
        b = paddle.static.data("b", shape=[3, 3], dtype="float32")
        c = paddle.static.data("c", shape=[4, 3], dtype="float32")
        arr = paddle.tensor.create_array("float32")
        assert paddle.is_tensor(arr)
        arr.append(a)
        arr.append(b)
        arr.append(c)
        first, popped = arr[0], arr.pop()
        length = paddle.tensor.array_length(arr)
        i = paddle.zeros([1], dtype="int64")
        written = paddle.tensor.array_write(c * 2, i, arr)
        read = paddle.tensor.array_read(written, i)
        with pytest.raises(TypeError, match="not a tensor array"):
            a.append(arr)
        with pytest.raises(NotImplementedError, match="computed when the Program runs"):
            paddle.tensor.array_read(arr, paddle.increment(i))
        exe = paddle.static.Executor()
    rng = np.random.default_rng(0)
    feed = {k: rng.random(s).astype("float32") for k, s in
            (("a", (2, 3)), ("b", (3, 3)), ("c", (4, 3)))}
    res = exe.run(main, feed=feed, fetch_list=[first, popped, length, read])
    np.testing.assert_array_equal(res[0], feed["a"])
    np.testing.assert_array_equal(res[1], feed["c"])
    assert res[2].tolist() == [2]
    np.testing.assert_array_equal(res[3], feed["c"] * 2)

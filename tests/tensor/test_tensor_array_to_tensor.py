"""tensor_array_to_tensor: concat/stack a tensor array, eager and static (with gradients),
plus each element's size along axis; non-arrays and non-Tensor elements are TypeErrors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.tensor.manipulation import tensor_array_to_tensor
from tests.static_util import static_guard


def test_eager_concat_and_stack():
    a = paddle.tensor.create_array("float32", [paddle.ones([2, 3]), paddle.zeros([2, 1])])
    out, index = tensor_array_to_tensor(a, axis=1)
    assert list(out.shape) == [2, 4] and index.numpy().tolist() == [3, 1]
    assert index.dtype == paddle.int64
    b = paddle.tensor.create_array("float32", [paddle.ones([2, 3]), paddle.zeros([2, 3])])
    out, index = tensor_array_to_tensor(b, axis=1, use_stack=True)
    assert list(out.shape) == [2, 2, 3] and index.numpy().tolist() == [3, 3]


def test_static_concat_with_gradients():
    with static_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.full([1, 4], 5.0, "float32")
        y = paddle.full([1, 4], 6.0, "float32")
        x.stop_gradient = y.stop_gradient = False
        arr = paddle.tensor.create_array("float32", [x, y])
        out, index = tensor_array_to_tensor(arr, axis=1)
        dx, dy = paddle.static.gradients(paddle.mean(out), [x, y])
        got = paddle.static.Executor().run(fetch_list=[out, index, dx, dy])
    np.testing.assert_array_equal(got[0], [[5.0] * 4 + [6.0] * 4])
    assert got[1].tolist() == [4, 4]
    np.testing.assert_allclose(got[2], np.full([1, 4], 0.125))
    np.testing.assert_allclose(got[3], np.full([1, 4], 0.125))


def test_errors():
    with pytest.raises(TypeError, match="input must be a tensor array"):
        tensor_array_to_tensor(np.ones((2, 4), "float32"))
    with pytest.raises(TypeError, match=r"input\[0\] must be a Tensor"):
        tensor_array_to_tensor([np.ones((2, 4), "float32")])

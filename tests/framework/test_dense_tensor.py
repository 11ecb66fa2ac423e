"""Tensor.get_tensor(): Paddle's DenseTensor view of a tensor's storage."""
import numpy as np

import sampan as paddle


def test_prints_as_paddle_dense_tensor():
    # Paddle 3.3.1's text, recorded
    x = paddle.to_tensor([[1.5, 2.0], [3.0, 4.25]])
    assert str(x.get_tensor()) == ("  - shape: [2, 2]\n  - layout: NCHW\n  - place: Place(cpu)\n"
                                   "  - dtype: float32\n  - data: [1.5 2 3 4.25]")
    assert repr(paddle.to_tensor([True, False]).get_tensor()).endswith(
        "  - dtype: bool\n  - data: [1 0]")
    assert str(paddle.to_tensor(np.float64(3.14159265)).get_tensor()).endswith(
        "  - shape: []\n  - layout: NCHW\n  - place: Place(cpu)\n  - dtype: float64\n"
        "  - data: [3.14159]")


def test_set_replaces_the_tensors_value_and_reads_follow_it():
    x = paddle.to_tensor(np.arange(3, dtype="int32"))
    t = x.get_tensor()
    t.set(np.array([7, 8, 9, 10], dtype="int64"), paddle.CPUPlace())
    assert x.tolist() == [7, 8, 9, 10] and x.dtype == paddle.int64
    assert t.shape() == [4] and t._dtype() == paddle.int64 and t.lod() == []
    np.testing.assert_array_equal(np.array(t), [7, 8, 9, 10])
    src = np.array([1.0, 2.0], dtype="float32")
    x.get_tensor().set(src)
    src[0] = 5.0                                 # set copies
    assert x.tolist() == [1.0, 2.0]

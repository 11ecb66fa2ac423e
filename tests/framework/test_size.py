"""paddle.Size (what Tensor.shape returns in Paddle 3.x) and the callable Tensor.size."""
import copy
import pickle

import numpy as np
import pytest

import sampan as paddle


def test_shape_is_a_size_list():
    s = paddle.zeros([2, 3]).shape
    assert isinstance(s, paddle.Size) and isinstance(s, list)
    assert repr(s) == str(s) == "paddle.Size([2, 3])"
    assert type(s).__name__ == "Size"
    assert s == [2, 3] and s == (2, 3) and s != [2, 4] and s != (2,)
    assert s[0] == 2 and type(s[0]) is int


def test_size_keeps_its_type_through_sequence_ops():
    s = paddle.ones([2, 3]).shape
    for got, want in [(s[::-1], [3, 2]), (s[1:], [3]), (s + [4], [2, 3, 4]),
                      ([4] + s, [4, 2, 3]), (s + (4,), [2, 3, 4]), ((4,) + s, [4, 2, 3]),
                      (s * 2, [2, 3, 2, 3]), (2 * s, [2, 3, 2, 3])]:
        assert isinstance(got, paddle.Size) and got == want
    assert type(s.copy()) is list  # list.copy, as in Paddle
    for other in (copy.copy(s), copy.deepcopy(s), pickle.loads(pickle.dumps(s))):
        assert isinstance(other, paddle.Size) and other == s


def test_size_constructor_and_numel():
    assert paddle.Size() == [] and paddle.Size().numel() == 1
    assert paddle.Size((1, 2)) == [1, 2] and paddle.Size([2, 3, 4]).numel() == 24
    assert paddle.Size([np.int64(3)]) == [3]
    with pytest.raises(TypeError, match="item 0 is 'float'"):
        paddle.Size([2.5])
    with pytest.raises(TypeError):
        paddle.Size(3)


def test_static_and_sparse_shapes_are_sizes():
    from tests.static_util import static_guard
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        v = paddle.static.data("x", [None, 3])
    assert repr(v.shape) == "paddle.Size([-1, 3])"
    sp = paddle.sparse.sparse_coo_tensor([[0, 1]], [1.0, 2.0], [3])
    assert repr(sp.shape) == "paddle.Size([3])"


def test_tensor_size_is_an_int_and_callable():
    x = paddle.ones([2, 3])
    assert x.size == 6 and isinstance(x.size, int) and x.size + 1 == 7
    assert repr(x.size) == "6" and list(range(x.size)) == list(range(6))
    assert x.size() == paddle.Size([2, 3]) and isinstance(x.size(), paddle.Size)
    assert x.size(1) == 3 and x.size(dim=0) == 2 and x.size(-1) == 3
    assert paddle.ones([]).size == 1 and paddle.ones([0, 3]).size == 0
    assert pickle.loads(pickle.dumps(x.size)) == 6

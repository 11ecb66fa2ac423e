"""Tensor's names for other tensor kinds: sparse accessors on a dense Tensor raise Paddle's
errors, vocab/string holders, grad_, reconstruct_from_, dist views, create_tensor, block."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard


@pytest.mark.parametrize("method,error", [
    ("indices", SystemError), ("crows", SystemError), ("cols", SystemError),
    ("nnz", SystemError), ("rows", SystemError), ("values", NotImplementedError),
    ("coalesce", NotImplementedError)])
def test_sparse_accessors_refuse_dense(method, error):
    x = paddle.to_tensor([[1.0, 0.0], [0.0, 2.0]])
    with pytest.raises(error, match=rf"Tensor\.{method}: this method is only effective"):
        getattr(x, method)()


def test_sparse_accessors_on_sparse_tensors():
    x = paddle.to_tensor([[1.0, 0.0], [0.0, 2.0]])
    coo = x.to_sparse_coo(2)
    assert coo.nnz() == 2
    np.testing.assert_array_equal(coo.indices().numpy(), [[0, 1], [0, 1]])
    np.testing.assert_array_equal(coo.coalesce().values().numpy(), [1.0, 2.0])
    csr = x.to_sparse_csr()
    np.testing.assert_array_equal(csr.crows().numpy(), [0, 1, 2])
    np.testing.assert_array_equal(csr.cols().numpy(), [0, 1])


def test_selected_rows_and_vocab():
    x = paddle.to_tensor([1.0])
    assert x.get_selected_rows() is None
    with pytest.raises(SystemError, match="get_map_tensor"):
        x.get_map_tensor()
    x.set_vocab({"a": 1, "b": 2})
    assert x.get_map_tensor() == {"a": 1, "b": 2}
    with pytest.raises(TypeError, match=r"set_vocab.*'c': 'x'"):
        x.set_vocab({"c": "x"})
    x.set_string_list(["hello", "world"])
    assert x._string_list == ["hello", "world"]
    with pytest.raises(TypeError, match="set_string_list"):
        x.set_string_list(["a", 1])


def test_grad_underscore_is_the_gradient():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    assert x.grad_ is None
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad_.numpy(), [2.0, 4.0])
    assert x.grad_ is x.grad


def test_reconstruct_from():
    t1 = paddle.to_tensor([1.0], stop_gradient=False)
    t2 = paddle.to_tensor([[2.0, 3.0]], dtype="float64")
    t1.reconstruct_from_(t2)
    assert t1.shape == [1, 2] and t1.dtype == paddle.float64 and t1.stop_gradient
    t2[0, 0] = 9.0  # a deep copy: later changes to t2 do not show
    np.testing.assert_array_equal(t1.numpy(), [[2.0, 3.0]])
    with pytest.raises(TypeError, match="reconstruct_from_: other must be a Tensor"):
        t1.reconstruct_from_([1.0])


def test_dense_tensor_is_not_distributed():
    x = paddle.to_tensor([1.0])
    assert not x.is_dist()
    assert x.process_mesh is None and x.placements is None and x.dist_attr is None
    assert x.num_shard is None


def test_create_tensor_eager_and_static():
    t = paddle.tensor.create_tensor("int64", name="abc", persistable=True)
    assert t.name == "abc" and t.persistable and t.dtype == paddle.int64 and t.size == 0
    with pytest.raises(TypeError, match="create_tensor: dtype must be one of"):
        paddle.tensor.create_tensor("complex64")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        v = paddle.tensor.create_tensor("float32")
        assert v.name in main.global_block().vars and v.dtype == paddle.float32
        assert v.block is main.global_block()


def test_eager_block_is_default_main_global_block():
    assert paddle.to_tensor([1.0]).block is \
        paddle.static.default_main_program().global_block()

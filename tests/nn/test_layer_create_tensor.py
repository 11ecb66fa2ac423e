"""Layer.create_tensor / create_variable: Paddle 3.3.1's names (`<layer>.<name>`,
`<layer>._generated_var_N`) and the not-initialized state until a value is put in."""
import numpy as np

import sampan as paddle


def test_names_follow_the_layer_full_name():
    net = paddle.nn.Linear(2, 2)
    full = net.full_name()
    a, b = net.create_tensor(), net.create_variable()
    assert a.name.startswith(f"{full}._generated_var_")
    assert b.name.startswith(f"{full}._generated_var_") and a.name != b.name
    c = net.create_variable(name="q", persistable=True, dtype="int64")
    assert c.name == f"{full}.q"
    assert (str(c.dtype), c.persistable, c.stop_gradient) == ("paddle.int64", True, True)


def test_not_initialized_until_assigned():
    net = paddle.nn.Layer()
    t = net.create_tensor(name="buf", dtype="float32")
    assert not t._is_initialized()
    assert repr(t) == str(t) == "Tensor(Not initialized)"  # Paddle 3.3.1 prints this
    assert t.numpy().shape == (0,)
    paddle.assign(paddle.to_tensor([1.0, 2.0]), output=t)
    assert t._is_initialized()
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    assert "Tensor(shape=[2], dtype=float32" in repr(t)


def test_ordinary_tensors_are_initialized():
    x = paddle.to_tensor([])
    assert x._is_initialized() and "Not initialized" not in repr(x)


def test_lazy_parameter_prints_not_initialized():
    with paddle.LazyGuard():
        fc = paddle.nn.Linear(2, 3)
    assert repr(fc.bias) == "Parameter containing:\nTensor(Not initialized)"
    fc.bias.initialize()
    assert "Tensor(shape=[3], dtype=float32" in repr(fc.bias)

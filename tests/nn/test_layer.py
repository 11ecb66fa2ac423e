"""The Layer base class and containers: registration, traversal, state, hooks, printing."""
import warnings

import numpy as np
import pytest

import sampan as paddle
from sampan import nn


class Block(nn.Layer):
    def __init__(self, n=3):
        super().__init__()
        self.w = self.create_parameter([2, n])
        self.b = self.create_parameter([n], is_bias=True)
        self.register_buffer("count", paddle.zeros([1]))
        self.register_buffer("scratch", paddle.ones([2]), persistable=False)

    def forward(self, x):
        return paddle.matmul(x, self.w) + self.b


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = Block(4)
        self.plain = 3

    def forward(self, x):
        return self.block(x)


def test_registration_and_traversal():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    assert names == ["block.w", "block.b", "head.w", "head.b"]
    assert len(net.parameters()) == 4
    assert [n for n, _ in net.named_sublayers()] == ["block", "head"]
    assert [n for n, _ in net.named_children()] == ["block", "head"]
    assert [n for n, _ in net.named_buffers()] == ["block.count", "block.scratch",
                                                  "head.count", "head.scratch"]
    assert net.plain == 3 and "plain" not in net._parameters
    assert net.block.w.name.startswith("block_") and ".w_" in net.block.w.name
    assert not net.block.w.stop_gradient and net.block.w.persistable


def test_default_initializers():
    b = Block(5)
    assert np.all(b.b.numpy() == 0)
    limit = np.sqrt(6.0 / (2 + 5))  # XavierUniform on a [2, 5] weight
    w = b.w.numpy()
    assert np.all(np.abs(w) <= limit) and np.std(w) > 0


def test_param_attr_and_false_bias():
    class L(nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.create_parameter(
                [2, 2], attr=paddle.ParamAttr(name="my_w", learning_rate=0.5,
                                              trainable=False))
            self.b = self.create_parameter([2], attr=False, is_bias=True)
    layer = L()
    assert layer.w.name == "my_w" and layer.w.stop_gradient
    assert layer.w.optimize_attr["learning_rate"] == 0.5
    assert layer.b is None and "b" not in layer.state_dict()


def test_plain_tensor_attribute_is_non_persistable_buffer():
    net = Net()
    net.extra = paddle.ones([2])
    assert "extra" in dict(net.named_buffers())
    assert "extra" not in net.state_dict()


def test_state_dict_roundtrip_and_reports():
    a, b = Net(), Net()
    sd = a.state_dict()
    assert list(sd) == ["block.w", "block.b", "block.count", "head.w", "head.b", "head.count"]
    missing, unexpected = b.set_state_dict(sd)
    assert missing == [] and unexpected == []
    np.testing.assert_array_equal(b.head.w.numpy(), a.head.w.numpy())
    bad = dict(sd)
    bad["block.w"] = paddle.zeros([5, 5])
    del bad["head.b"]
    bad["nope"] = paddle.zeros([1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        missing, unexpected = b.set_state_dict(bad)
    assert missing == ["block.w", "head.b"] and unexpected == ["block.w", "nope"]
    text = " ".join(str(w.message) for w in caught)
    assert "receives a shape [5, 5], but the expected shape is [2, 3]" in text
    assert "head.b is not found" in text


def test_set_state_dict_casts_and_accepts_numpy():
    b = Block()
    b.set_state_dict({"w": np.ones((2, 3)), "b": np.zeros(3), "count": np.ones(1)})
    assert b.w.dtype == paddle.float32 and float(b.w.sum()) == 6.0


def test_train_eval_apply_and_hooks():
    net = Net()
    assert net.eval() is net and not net.block.training
    net.train()
    assert net.head.training
    visited = []
    net.apply(lambda layer: visited.append(type(layer).__name__))
    assert visited == ["Block", "Block", "Net"]
    x = paddle.ones([1, 2])
    pre = net.register_forward_pre_hook(lambda layer, inp: (inp[0] * 0,))
    post = net.register_forward_post_hook(lambda layer, inp, out: out + 1)
    out = net(x)
    np.testing.assert_allclose(out.numpy(), net.block.b.numpy()[None] + 1)
    pre.remove()
    post.remove()
    np.testing.assert_allclose(net(x).numpy(), net.block(x).numpy())


def test_astype_and_to():
    net = Net()
    net.to(dtype="float64")
    assert net.block.w.dtype == paddle.float64 and net.head.count.dtype == paddle.float64
    net.astype("float32")
    assert net.block.w.dtype == paddle.float32
    net.astype("int32")   # Paddle 3.3.1: any layer dtype, parameters and buffers alike
    assert net.block.w.dtype == paddle.int32 and net.head.count.dtype == paddle.int32
    with pytest.raises(ValueError, match="dtype value error"):
        net.astype("invalid_type")


def test_repr_tree():
    class Leaf(nn.Layer):
        def extra_repr(self):
            return "k=1"
    seq = nn.Sequential(("first", Leaf()), ("second", nn.Sequential(Leaf())))
    assert repr(seq) == ("Sequential(\n  (first): Leaf(k=1)\n  (second): Sequential(\n"
                         "    (0): Leaf(k=1)\n  )\n)")


def test_sequential_and_lists():
    seq = nn.Sequential(Block(2), Block(2))
    assert len(seq) == 2 and seq[-1] is seq[1] and isinstance(seq[:1], nn.Sequential)
    assert seq(paddle.ones([1, 2])).shape == [1, 2]
    with pytest.raises(IndexError, match="out of range"):
        seq[2]
    ll = nn.LayerList([Block()])
    ll.append(Block())
    ll.insert(0, Block(4))
    assert [layer.w.shape[1] for layer in ll] == [4, 3, 3]
    del ll[0]
    assert list(ll._sub_layers) == ["0", "1"] and len(ll.parameters()) == 4
    ld = nn.LayerDict([("a", Block())])
    ld["b"] = Block()
    assert list(ld.keys()) == ["a", "b"] and "a" in ld and len(ld.parameters()) == 4
    pl = nn.ParameterList([paddle.create_parameter([2], "float32")])
    pl.append(paddle.create_parameter([3], "float32"))
    assert [p.shape for p in pl] == [[2], [3]]


def test_errors():
    class NoInit(nn.Layer):
        def __init__(self):
            self.w = 1
    with pytest.raises(RuntimeError, match="super"):
        NoInit()(1)
    b = Block()
    with pytest.raises(TypeError, match="parameter 'w'"):
        b.w = paddle.ones([2, 3])
    with pytest.raises(TypeError, match="shape must be a list of ints"):
        b.create_parameter("abc")
    with pytest.raises(TypeError, match="must be a Layer"):
        b.add_sublayer("x", 3)
    with pytest.raises(KeyError, match="no '.'"):
        b.register_buffer("a.b", paddle.ones([1]))
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Layer()(1)


def test_grads_flow_and_clear():
    b = Block()
    b(paddle.ones([4, 2])).sum().backward()
    np.testing.assert_allclose(b.b.grad.numpy(), np.full(3, 4.0))
    b.clear_gradients()
    assert float(b.b.grad.abs().sum()) == 0.0


def test_parameters_follow_the_global_default_dtype():
    paddle.set_default_dtype("float64")
    try:
        assert Block().w.dtype == paddle.float64
        assert nn.Linear(2, 2).weight.dtype == paddle.float64
    finally:
        paddle.set_default_dtype("float32")
    assert Block().w.dtype == paddle.float32

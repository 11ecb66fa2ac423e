"""nn.Layer's Paddle 3.3.1 keywords: remove_duplicate, hook prepend/with_kwargs/always_call,
train(mode), to(non_blocking), create_parameter(device), Dropout(p, inplace) and
Tensor.pin_memory(blocking) (behaviour recorded from Paddle 3.3.1, CPU build)."""
import inspect

import numpy as np
import pytest

import sampan as paddle
from sampan import nn


class Shared(nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = self.a
        self.register_buffer("buf", paddle.ones([1]))

    def forward(self, x, scale=1.0):
        return self.a(x) * scale


def test_remove_duplicate():
    m = Shared()
    assert [n for n, _ in m.named_parameters()] == ["a.weight", "a.bias"]
    assert [n for n, _ in m.named_parameters(remove_duplicate=False)] == \
        ["a.weight", "a.bias", "b.weight", "b.bias"]
    assert [n for n, _ in m.named_sublayers()] == ["a"]
    assert [n for n, _ in m.named_sublayers(remove_duplicate=False)] == ["a", "b"]
    assert [n for n, _ in m.named_buffers(remove_duplicate=False)] == ["buf"]
    assert len(m.parameters()) == 2


def test_hook_order_kwargs_and_results():
    m, order = Shared(), []
    m.register_forward_pre_hook(lambda layer, args: order.append("pre1"))
    m.register_forward_pre_hook(lambda layer, args: order.append("pre0"), prepend=True)

    def pre_kwargs(layer, args, kwargs):
        order.append(("prek", len(args), sorted(kwargs)))
        return args, {"scale": 2.0}

    def post_kwargs(layer, args, kwargs, out):
        order.append(("postk", kwargs["scale"]))
        return out + 100

    m.register_forward_pre_hook(pre_kwargs, with_kwargs=True)
    m.register_forward_post_hook(post_kwargs, with_kwargs=True)
    m.register_forward_post_hook(lambda layer, args, out: order.append("post0"), prepend=True)
    x = paddle.ones([1, 2])
    out = m(x, scale=1.0)
    # Paddle 3.3.1: ['pre0', 'pre1', ('prek', 1, ['scale']), 'post0', ('postk', ...)], +100
    assert order == ["pre0", "pre1", ("prek", 1, ["scale"]), "post0", ("postk", 2.0)]
    np.testing.assert_allclose(out.numpy(), m.a(x).numpy() * 2 + 100, rtol=1e-6)


def test_with_kwargs_pre_hook_must_return_pair():
    m = Shared()
    m.register_forward_pre_hook(lambda layer, args, kwargs: 3, with_kwargs=True)
    with pytest.raises(RuntimeError, match="must return None or a tuple \\(args, kwargs\\)"):
        m(paddle.ones([1, 2]))


def test_always_call_post_hook_runs_when_forward_raises():
    class Bad(nn.Layer):
        def forward(self, x):
            raise RuntimeError("boom")

    bad, calls = Bad(), []
    bad.register_forward_post_hook(lambda layer, i, o: calls.append(("always", o)),
                                   always_call=True)
    handle = bad.register_forward_post_hook(lambda layer, i, o: calls.append("normal"))
    with pytest.raises(RuntimeError, match="boom"):
        bad(paddle.ones([1]))
    assert calls == [("always", None)]  # Paddle 3.3.1
    handle.remove()
    params = inspect.signature(nn.Layer.register_forward_post_hook).parameters
    assert all(params[k].kind is inspect.Parameter.KEYWORD_ONLY
               for k in ("prepend", "with_kwargs", "always_call"))


def test_train_mode_to_and_create_parameter_device():
    m = Shared()
    assert m.train(False) is m and not m.training and not m.a.training
    m.train()
    assert m.training and m.a.training
    m.train(mode=False)
    assert not m.a.training
    with pytest.raises(TypeError, match="train: mode must be a bool"):
        m.train("eval")
    assert m.to("cpu", non_blocking=True) is m
    p = m.create_parameter([2], device="cpu")
    assert str(p.place) == "Place(cpu)" and p.shape == [2]
    assert m.create_parameter([2], attr=False, device="cpu") is None


def test_dropout_inplace_second_positional():
    d = nn.Dropout(0.5, True)
    assert d.inplace is True and d.axis is None
    assert repr(d) == "Dropout(p=0.5, axis=None, mode=upscale_in_train, inplace=True)"
    paddle.seed(0)
    x = paddle.ones([6])
    r = d(x)
    assert r is x and set(x.numpy().tolist()) <= {0.0, 2.0}
    d.eval()
    assert d(x) is x
    assert list(inspect.signature(nn.Dropout).parameters)[:3] == ["p", "inplace", "axis"]
    with pytest.raises(TypeError, match="Dropout: inplace must be a bool, got 1"):
        nn.Dropout(0.5, 1)


def test_pin_memory_on_cpu():
    # Paddle 3.3.1 CPU build: RuntimeError (cannot use CUDAPinnedPlace)
    with pytest.raises(RuntimeError, match="pin_memory: pinned memory needs a GPU"):
        paddle.ones([2]).pin_memory(blocking=False)


def test_state_dict_keep_vars():
    lin = nn.Linear(2, 2)
    # Paddle 3.3.1: keep_vars=False -> not the parameter object, stop_gradient True
    for fn in (lin.state_dict, lin.to_static_state_dict):
        kept, detached = fn(), fn(keep_vars=False)
        assert kept["weight"] is lin.weight
        assert detached["weight"] is not lin.weight and detached["weight"].stop_gradient
        np.testing.assert_array_equal(detached["weight"].numpy(), lin.weight.numpy())

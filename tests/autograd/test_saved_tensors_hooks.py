"""autograd.saved_tensors_hooks: saved inputs and outputs go through pack/unpack."""
import numpy as np
import pytest

import sampan as paddle


def test_hooks_see_saved_inputs_and_outputs_and_grads_match():
    x = paddle.to_tensor([0.5, 1.0, 2.0], stop_gradient=False)
    calls = {"pack": 0, "unpack": 0}

    def pack(t):
        calls["pack"] += 1
        return t.numpy() * 1.0  # a copy, like offloading

    def unpack(a):
        calls["unpack"] += 1
        return paddle.to_tensor(a)

    with paddle.autograd.saved_tensors_hooks(pack, unpack):
        y = (x.exp() * x).sum()  # exp saves its output, multiply saves both inputs
    y.backward()
    expected = np.exp(x.numpy()) * (1 + x.numpy())
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    assert calls["pack"] >= 3 and calls["unpack"] == calls["pack"]


def test_outside_the_context_nothing_is_packed():
    seen = []
    with paddle.autograd.saved_tensors_hooks(lambda t: seen.append(1) or t, lambda t: t):
        pass
    x = paddle.to_tensor([1.0], stop_gradient=False)
    (x * x).sum().backward()
    assert seen == [] and float(x.grad) == 2.0


def test_unpack_must_return_a_tensor():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with paddle.autograd.saved_tensors_hooks(lambda t: t.numpy(), lambda a: a):
        y = x.exp().sum()
    with pytest.raises(TypeError, match="unpack_hook must return a Tensor"):
        y.backward()


def test_unpack_must_return_a_tensor_for_saved_inputs():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with paddle.autograd.saved_tensors_hooks(lambda t: t.numpy(), lambda a: a):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook must return a Tensor"):
        y.backward()


class _Mul(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, dy):
        a, b = ctx.saved_tensor()
        return dy * b, dy * a


def test_pylayer_save_for_backward_goes_through_the_hooks():
    log = []

    def pack(t):
        log.append(("pack", t.numpy().tolist()))
        return t.numpy()

    def unpack(arr):
        log.append(("unpack", arr.tolist()))
        return paddle.to_tensor(arr)

    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = paddle.to_tensor([3.0, 4.0], stop_gradient=False)
    with paddle.autograd.saved_tensors_hooks(pack, unpack):
        y = _Mul.apply(a, b)
    assert log == [("pack", [1.0, 2.0]), ("pack", [3.0, 4.0])]
    y.sum().backward()
    assert log[2:] == [("unpack", [1.0, 2.0]), ("unpack", [3.0, 4.0])]
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 4.0])
    np.testing.assert_allclose(b.grad.numpy(), [1.0, 2.0])


def test_pylayer_unpack_must_return_a_tensor():
    a = paddle.to_tensor([1.0], stop_gradient=False)
    with paddle.autograd.saved_tensors_hooks(lambda t: t.numpy(), lambda arr: arr):
        y = _Mul.apply(a, a)
    with pytest.raises(TypeError, match="unpack_hook must return a Tensor, got ndarray"):
        y.sum().backward()

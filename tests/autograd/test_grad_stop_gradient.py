"""What `stop_gradient` gradients carry, as in Paddle 3.3.1: `.grad` and the gradient a hook
sees have stop_gradient=False; paddle.grad's results keep True unless create_graph."""
import numpy as np
import pytest

import sampan as paddle


def test_accumulated_grad_is_a_leaf_that_requires_grad():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    g = x.grad
    assert g.stop_gradient is False and g.is_leaf
    (x * x).sum().backward()                      # accumulation keeps it
    assert x.grad.stop_gradient is False
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])
    gg = x.grad
    (gg * gg).sum().backward()                    # ops on a grad are recorded (Paddle too)
    np.testing.assert_allclose(gg.grad.numpy(), [8.0, 16.0])
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


def test_hooks_see_grads_that_require_grad_but_paddle_grad_results_do_not():
    seen = []
    a = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    b = a * 2
    b.register_hook(lambda g: seen.append(g.stop_gradient))
    (ga,) = paddle.grad(b.sum(), a)
    assert seen == [False]
    assert ga.stop_gradient is True
    (gb,) = paddle.grad((a * a).sum(), a, create_graph=True)
    assert gb.stop_gradient is False


def test_parameter_grad_after_backward():
    lin = paddle.nn.Linear(2, 2)
    lin(paddle.ones([1, 2])).sum().backward()
    assert lin.weight.grad.stop_gradient is False
    assert "stop_gradient=False" in repr(lin.bias.grad)


def test_retained_grad_of_a_non_leaf():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    y = x + x
    y.retain_grads()
    y.sum().backward()
    assert y.grad.stop_gradient is False
    np.testing.assert_allclose(y.grad.numpy(), [1.0, 1.0, 1.0])
    c = x.clone()
    c.retain_grads()
    (c * c).sum().backward()
    assert c.grad.stop_gradient is False and x.grad.stop_gradient is False


def test_setting_and_clearing_grad():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    t = paddle.to_tensor([3.0, 3.0])
    x.grad = t                                    # over a grad: copied, keeps False
    assert x.grad is not t and x.grad.stop_gradient is False and t.stop_gradient is True
    t[0] = 7.0
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    x.clear_grad()
    assert x.grad.stop_gradient is False and x.grad.numpy().tolist() == [0.0, 0.0]
    y = paddle.to_tensor([1.0], stop_gradient=False)
    y.grad = paddle.to_tensor([5.0])              # no grad yet: the tensor itself
    assert y.grad.stop_gradient is True


def test_format_of_tensors():
    # Paddle 3.3.1: a 0-D tensor formats as its number, others as repr (empty spec only)
    assert "{}".format(paddle.to_tensor(500.0)) == "500.0"
    assert f"{paddle.to_tensor(5.0):.2f}" == "5.00" and f"{paddle.to_tensor(3)}" == "3"
    one = paddle.to_tensor([5.0])
    assert f"{one}" == repr(one)
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{one:.2f}"


class _Double(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, a):
        return a * 2

    @staticmethod
    def backward(ctx, dy):
        return dy * 2


def test_pylayer_grad_into_a_leaf_keeps_the_users_flag():
    # Paddle 3.3.1: a leaf fed only by a PyLayer backward gets that tensor (True); through
    # another op or summed with another contribution it is an engine tensor (False); a
    # later accumulation keeps the first flag
    a = paddle.to_tensor([1.0], stop_gradient=False)
    _Double.apply(a).sum().backward()
    assert a.grad.stop_gradient is True
    (a * 3).sum().backward()
    assert a.grad.stop_gradient is True and a.grad.numpy().tolist() == [5.0]
    b = paddle.to_tensor([1.0], stop_gradient=False)
    _Double.apply(b * 1).sum().backward()
    assert b.grad.stop_gradient is False
    d = paddle.to_tensor([1.0], stop_gradient=False)
    (_Double.apply(d) + d).sum().backward()
    assert d.grad.stop_gradient is False and d.grad.numpy().tolist() == [3.0]

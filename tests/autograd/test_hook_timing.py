"""When the backward engine runs a leaf's gradient hooks: as soon as the leaf's gradient is
complete (after the last node with an edge to it), not at the end of backward, and once, on
the sum; plus engine.queue_callback, which runs at the end of the pass."""
import numpy as np
import pytest

import sampan as paddle
from sampan.autograd import engine


def _param(shape, seed):
    data = np.random.RandomState(seed).standard_normal(shape).astype("float64")
    return paddle.to_tensor(data, stop_gradient=False)


def _two_layers(events):
    """loss = sum(relu(x @ w1) @ w2), with hooks recording when each gradient is final."""
    x = paddle.to_tensor(np.random.RandomState(0).standard_normal((3, 4)))
    w1, w2 = _param((4, 5), 1), _param((5, 2), 2)
    w1.register_hook(lambda g: events.append("w1"))
    w2.register_hook(lambda g: events.append("w2"))
    h = paddle.matmul(x, w1)
    h.register_hook(lambda g: events.append("h"))   # runs as the x @ w1 node starts
    loss = paddle.matmul(paddle.nn.functional.relu(h), w2).sum()
    return loss, w1, w2


def test_last_layer_hook_runs_before_the_first_layer_backward():
    events = []
    loss, w1, w2 = _two_layers(events)
    loss.backward()
    assert events == ["w2", "h", "w1"]
    assert w1.grad is not None and w2.grad is not None


def test_leaf_grad_is_accumulated_as_soon_as_it_is_complete():
    seen = {}
    x = paddle.to_tensor(np.ones((3, 4)))
    w1, w2 = _param((4, 5), 1), _param((5, 2), 2)
    h = paddle.matmul(x, w1)
    h.register_hook(lambda g: seen.update(w2=w2.grad, w1=w1.grad))
    paddle.matmul(h, w2).sum().backward()
    assert seen["w2"] is not None and seen["w1"] is None
    np.testing.assert_allclose(seen["w2"].numpy(), w2.grad.numpy())


def test_leaf_used_at_two_depths_gets_one_hook_call_on_the_sum():
    w = _param((3,), 4)
    calls = []
    w.register_hook(lambda g: calls.append(g.numpy().copy()))
    a = w * 2.0                  # near the inputs
    b = (a.exp() * w).sum()      # w used again nearer the loss
    b.backward()
    assert len(calls) == 1
    wn = w.numpy()
    want = np.exp(2 * wn) * (2 * wn * 1.0) + np.exp(2 * wn)   # d/dw [exp(2w) * w]
    np.testing.assert_allclose(calls[0], want, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-12)


def test_hook_replacing_the_gradient_and_accumulation_across_passes():
    w = _param((2,), 5)
    w.register_hook(lambda g: g * 10.0)
    (w * 3.0).sum().backward()
    (w * 3.0).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [60.0, 60.0])


def test_queue_callback_runs_after_every_leaf_is_accumulated():
    order = []
    loss, w1, w2 = _two_layers(order)
    w2.register_hook(lambda g: engine.queue_callback(
        lambda: order.append(("end", w1.grad is not None))))
    loss.backward()
    assert order == ["w2", "h", "w1", ("end", True)]


def test_queue_callback_outside_backward_raises():
    with pytest.raises(RuntimeError, match="queue_callback: no backward pass is running"):
        engine.queue_callback(lambda: None)


def test_paddle_grad_does_not_run_leaf_hooks():
    events = []
    loss, w1, w2 = _two_layers(events)
    gw1, = paddle.grad([loss], [w1])
    assert "w1" not in events and "w2" not in events and gw1.shape == [4, 5]
    assert w1.grad is None

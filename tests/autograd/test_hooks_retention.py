"""Tensor hooks and graph retention against behaviour recorded from PaddlePaddle 3.3.1.

Each expected value below was printed by the same program run with `import paddle` (3.3.1).
"""
import numpy as np
import pytest

import sampan as paddle


def _leaf(values):
    return paddle.to_tensor(values, dtype="float32", stop_gradient=False)


def _recorder(calls, scale=None):
    def hook(g):
        calls.append(g.numpy().tolist())
        return None if scale is None else g * scale
    return hook


def test_leaf_hook_runs_once_with_the_accumulated_gradient():
    x = _leaf([1.0, 2.0, 3.0])
    calls = []
    x.register_hook(_recorder(calls))
    (x * x).sum().backward()
    assert calls == [[2.0, 4.0, 6.0]]          # Paddle: one call with 2x
    assert x.grad.numpy().tolist() == [2.0, 4.0, 6.0]


def test_leaf_hook_result_replaces_the_summed_gradient():
    x = _leaf([1.0, 2.0, 3.0])
    x.register_hook(lambda g: g * 10)
    (x * x).sum().backward()
    assert x.grad.numpy().tolist() == [20.0, 40.0, 60.0]   # Paddle 3.3.1


def test_non_leaf_hook_runs_once():
    x = _leaf([1.0, 2.0, 3.0])
    y = x * 1.0
    calls = []
    y.register_hook(_recorder(calls))
    (y * y + y).sum().backward()
    assert calls == [[3.0, 5.0, 7.0]]


def test_hook_per_backward_pass_and_per_multi_root_backward():
    x = _leaf([1.0, 2.0])
    calls = []
    x.register_hook(_recorder(calls))
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert calls == [[2.0, 4.0], [2.0, 4.0]]
    assert x.grad.numpy().tolist() == [4.0, 8.0]
    x = _leaf([1.0, 2.0])
    calls = []
    x.register_hook(_recorder(calls))
    paddle.autograd.backward([(x * x).sum(), (x * 3).sum()])
    assert calls == [[5.0, 7.0]]


def test_leaf_root_hook():
    x = _leaf([1.0, 2.0])
    calls = []
    x.register_hook(_recorder(calls))
    x.backward(paddle.to_tensor([1.0, 1.0]))
    assert calls == [[1.0, 1.0]] and x.grad.numpy().tolist() == [1.0, 1.0]


def test_paddle_grad_runs_non_leaf_hooks_but_not_leaf_hooks():
    # Paddle 3.3.1: a leaf's hooks belong to its accumulation into .grad, so paddle.grad
    # neither calls them nor applies their result; a non-leaf input's hooks do run.
    x = _leaf([1.0, 2.0, 3.0])
    calls = []
    x.register_hook(_recorder(calls, 10))
    y = (x * x).sum()
    (gx,) = paddle.grad(y, [x])
    assert calls == [] and gx.numpy().tolist() == [2.0, 4.0, 6.0]
    y.backward()
    assert calls == [[2.0, 4.0, 6.0]] and x.grad.numpy().tolist() == [20.0, 40.0, 60.0]
    x = _leaf([1.0, 2.0, 3.0])
    h = x * 1.0
    calls = []
    h.register_hook(_recorder(calls, 10))
    gh, gx = paddle.grad((h * h).sum(), [h, x])
    assert calls == [[2.0, 4.0, 6.0]]
    assert gh.numpy().tolist() == [20.0, 40.0, 60.0]
    assert gx.numpy().tolist() == [20.0, 40.0, 60.0]


def test_paddle_grad_keeps_the_graph():
    x = _leaf([1.0, 2.0, 3.0])
    y = (x * x).sum()
    g1 = paddle.grad(y, x)
    g2 = paddle.grad(y, x, retain_graph=False)   # Paddle keeps the graph even so
    g3 = paddle.grad(y, x)
    for g in (g1, g2, g3):
        assert g[0].numpy().tolist() == [2.0, 4.0, 6.0]
    y.backward()
    assert x.grad.numpy().tolist() == [2.0, 4.0, 6.0]
    h = x * x
    y1, y2 = h.sum(), (h * 2).sum()
    assert paddle.grad(y1, x)[0].numpy().tolist() == [2.0, 4.0, 6.0]
    assert paddle.grad(y2, x)[0].numpy().tolist() == [4.0, 8.0, 12.0]
    g = paddle.grad(y1, x, create_graph=True)
    assert paddle.grad(y1, x)[0].numpy().tolist() == g[0].numpy().tolist()


# Paddle 3.3.1 raises SystemError with this hint (the rest of its text names C++ internals)
_PADDLE_HINT = ("You calculate backward twice for the same subgraph without setting "
                "retain_graph=True. Please set retain_graph=True in the first backward/grad "
                "call.")


def test_second_backward_raises_paddles_error():
    x = _leaf([1.0, 2.0, 3.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(SystemError) as info:
        y.backward()
    assert _PADDLE_HINT in str(info.value) and "'sum'" in str(info.value)
    assert isinstance(info.value, RuntimeError)
    with pytest.raises(SystemError, match="retain_graph=True"):
        paddle.grad(y, x)
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    assert x.grad.numpy().tolist() == [6.0, 12.0, 18.0]


def test_deep_chain_needs_no_recursion(monkeypatch):
    import sys

    def refuse(n):
        raise AssertionError("backward must not raise the recursion limit")
    limit = sys.getrecursionlimit()
    monkeypatch.setattr(sys, "setrecursionlimit", refuse)
    x = paddle.to_tensor(np.ones(2), stop_gradient=False)
    y = x
    for _ in range(20000):
        y = y * 1.0
    (g,) = paddle.grad(y.sum(), x)
    assert g.numpy().tolist() == [1.0, 1.0]
    y.sum().backward()
    assert x.grad.numpy().tolist() == [1.0, 1.0]
    assert sys.getrecursionlimit() == limit

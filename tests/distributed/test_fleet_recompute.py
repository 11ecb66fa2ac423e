"""fleet.utils.recompute: the same loss, parameter and input gradients as calling the block
directly, dropout replayed with the forward's random state; fused_allreduce_gradients on one
process leaves the gradients as they are."""
import numpy as np
import pytest

import sampan as paddle
from sampan.distributed.fleet.utils import recompute
from sampan.distributed.fleet.utils.hybrid_parallel_util import fused_allreduce_gradients


def _net():
    paddle.seed(10)
    return [paddle.nn.Sequential(paddle.nn.Linear(6, 6), paddle.nn.Dropout(0.5),
                                 paddle.nn.ReLU(), paddle.nn.Linear(6, 6)) for _ in range(3)]


def _run(use_recompute, **kwargs):
    blocks = _net()
    paddle.seed(3)
    x = paddle.to_tensor(np.random.RandomState(0).randn(4, 6).astype("float32"))
    x.stop_gradient = False
    h = x
    for i, block in enumerate(blocks):
        h = recompute(block, h, **kwargs) if use_recompute and i > 0 else block(h)
    loss = (h * h).mean()
    loss.backward()
    return float(loss), x.grad.numpy(), [p.grad.numpy() for b in blocks
                                         for p in b.parameters()]


def test_gradients_equal_the_plain_run_with_dropout():
    loss0, gx0, gp0 = _run(False)
    loss1, gx1, gp1 = _run(True)
    assert loss0 == loss1
    np.testing.assert_allclose(gx1, gx0, rtol=1e-6)
    for a, b in zip(gp1, gp0):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_without_preserved_rng_the_dropout_masks_differ():
    _, gx0, _ = _run(False)
    _, gx1, _ = _run(True, preserve_rng_state=False)
    assert not np.allclose(gx0, gx1)


def test_kwargs_and_inputs_without_gradient():
    lin = paddle.nn.Linear(3, 2)
    x = paddle.ones([1, 3])  # stop_gradient: the block simply runs; parameters get grads
    out = recompute(lambda a, scale=1.0: lin(a) * scale, x, scale=2.0)
    out.sum().backward()
    np.testing.assert_allclose(lin.bias.grad.numpy(), [2.0, 2.0])
    with pytest.raises(TypeError, match="preserve_rng_state must be a bool"):
        recompute(lin, x, preserve_rng_state="yes")
    with pytest.raises(TypeError, match="function must be a Layer or callable"):
        recompute(3, x)


def test_fused_allreduce_gradients_on_one_process():
    lin = paddle.nn.Linear(2, 2)
    dp = paddle.DataParallel(lin)
    with dp.no_sync():
        dp(paddle.ones([1, 2])).sum().backward()
    before = lin.weight.grad.numpy().copy()
    fused_allreduce_gradients(list(dp.parameters()), None)
    np.testing.assert_allclose(lin.weight.grad.numpy(), before)

"""DataParallel and SyncBatchNorm: 2 ranks against one process (worker_data_parallel.py),
and the single-process wrapper."""
import numpy as np
import pytest

import sampan as paddle
from tests.distributed.util import launch


def test_two_ranks_equal_one_process_on_the_global_batch():
    code, out = launch("worker_data_parallel.py")
    assert code == 0, out
    assert "rank 1: data parallel ok" in out, out


def test_state_dict_has_no_layers_prefix_and_round_trips():
    net = paddle.nn.Sequential(paddle.nn.Linear(2, 3), paddle.nn.Linear(3, 1))
    dp = paddle.DataParallel(net)
    assert sorted(dp.state_dict()) == sorted(net.state_dict())
    state = {k: paddle.to_tensor(np.zeros(v.shape, "float32"))
             for k, v in dp.state_dict().items()}
    dp.set_state_dict(state)
    assert float(net[0].weight.abs().sum()) == 0.0
    x = paddle.ones([4, 2])
    np.testing.assert_allclose(dp(x).numpy(), net(x).numpy())


def test_no_sync_is_a_context_manager_on_one_process():
    dp = paddle.DataParallel(paddle.nn.Linear(2, 1))
    with dp.no_sync():
        dp(paddle.ones([1, 2])).sum().backward()
    np.testing.assert_allclose(dp._layers.weight.grad.numpy(), np.ones((2, 1)))


def test_bad_arguments():
    with pytest.raises(TypeError, match="DataParallel: layers must be a paddle.nn.Layer"):
        paddle.DataParallel(lambda x: x)
    with pytest.raises(ValueError, match="comm_buffer_size must be a positive"):
        paddle.DataParallel(paddle.nn.Linear(2, 1), comm_buffer_size=0)


def test_sync_batch_norm_on_one_process_equals_batch_norm():
    x = np.random.RandomState(0).standard_normal((6, 3, 2, 2)).astype("float32")
    paddle.seed(0)
    bn = paddle.nn.BatchNorm2D(3)
    sync = paddle.nn.SyncBatchNorm.convert_sync_batchnorm(paddle.nn.Sequential(bn))[0]
    assert isinstance(sync, paddle.nn.SyncBatchNorm)
    ref = paddle.nn.BatchNorm2D(3)
    np.testing.assert_allclose(sync(paddle.to_tensor(x)).numpy(),
                               ref(paddle.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(sync._variance.numpy(), ref._variance.numpy(), rtol=1e-5)
    sync.eval()
    ref.eval()
    np.testing.assert_allclose(sync(paddle.to_tensor(x)).numpy(),
                               ref(paddle.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-5)

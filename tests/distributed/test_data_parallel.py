"""DataParallel and SyncBatchNorm: 2 ranks against one process (worker_data_parallel.py),
faults during the bucket all-reduce (worker_dp_faults.py), the single-process wrapper, and
the overlapped bucket all-reduce on a twin-rank communicator inside one process."""
import time

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


class _TwinComm:
    """Rank 0 of 2 whose peer is an exact twin: a sum all-reduce doubles the buffer.
    Records when each bucket's all-reduce starts and when it is waited on."""
    rank, nranks = 0, 2

    def __init__(self, log):
        self.log = log

    def broadcast(self, x, src, out=None):
        return x.copy()

    def iall_reduce(self, buf, op, what):
        assert op == "sum" and what == "DataParallel all_reduce"
        self.log.append(("start", buf.size))
        buf *= 2
        return _TwinTask(self.log, buf.size)


class _TwinTask:
    def __init__(self, log, size):
        self.log, self.size = log, size

    def is_completed(self):
        return False

    def wait(self, timeout=None):
        self.log.append(("wait", self.size))
        return True


@pytest.fixture
def twin(monkeypatch):
    """A 2-rank group in one process (its peer a twin), and the event log."""
    from sampan.distributed import env
    log = []
    group = env.Group(0, 2, 77, [0, 1], _TwinComm(log))
    monkeypatch.setitem(env._GROUPS, 77, group)
    return group, log


def _mlp():
    paddle.seed(5)
    return paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.Tanh(),
                                paddle.nn.Linear(8, 8), paddle.nn.Tanh(),
                                paddle.nn.Linear(8, 3))


def _loss(model, seed=0):
    x = np.random.RandomState(seed).standard_normal((5, 4)).astype("float32")
    return (model(paddle.to_tensor(x)) ** 2).mean()


def test_bucket_all_reduce_starts_during_backward_in_reverse_order(twin):
    group, log = twin
    dp = paddle.DataParallel(_mlp(), comm_buffer_size=1e-6, last_comm_buffer_size=1e-6,
                             group=group)   # one bucket per parameter

    def mark(layer, inputs, out):   # runs when backward reaches the first layer
        out.register_hook(lambda g: log.append("first layer"))
    dp._layers[0].register_forward_post_hook(mark)
    _loss(dp).backward()
    sizes = [3, 24, 8, 64, 8, 32]   # last layer's bias first, first layer's weight last
    first = log.index("first layer")
    assert [e[1] for e in log if e[0] == "start"] == sizes, log
    assert log.index(("start", 3)) < log.index(("start", 64)) < first, log
    assert log.index(("start", 32)) > first, log
    assert log[-6:] == [("wait", s) for s in sizes], log   # waited at the end, in order
    ref = _mlp()
    _loss(ref).backward()
    for p, q in zip(dp.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)
        assert p.grad.stop_gradient is False is q.grad.stop_gradient   # as Paddle's .grad


def test_accumulation_and_no_sync_on_twin_ranks(twin):
    group, log = twin
    dp = paddle.DataParallel(_mlp(), comm_buffer_size=1e-4, group=group)
    with dp.no_sync():
        _loss(dp, 0).backward()
    assert log == [], "no_sync must not all-reduce"
    _loss(dp, 1).backward()
    assert log and all(e[0] in ("start", "wait") for e in log)
    ref = _mlp()
    _loss(ref, 0).backward()
    _loss(ref, 1).backward()
    for p, q in zip(dp.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7)


class _TwoHeads(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.a = paddle.nn.Linear(3, 2)
        self.b = paddle.nn.Linear(3, 2)
        self.unused = paddle.nn.Linear(3, 2)

    def forward(self, x):
        return self.a(x), self.b(x)


def test_unused_and_gradientless_parameters_count_as_zero(twin):
    group, log = twin
    dp = paddle.DataParallel(_TwoHeads(), find_unused_parameters=True, group=group)
    out_a, _ = dp(paddle.ones([2, 3]))
    out_a.sum().backward()   # b is reached by the outputs, but no gradient flows to it
    np.testing.assert_allclose(dp._layers.a.weight.grad.numpy(), np.full((3, 2), 2.0))
    for layer in (dp._layers.b, dp._layers.unused):
        np.testing.assert_allclose(layer.weight.grad.numpy(), np.zeros((3, 2)))
    assert sum(e[0] == "start" for e in log) == len(dp._buckets)


@pytest.mark.parametrize("mode", ["hang", "kill"])
def test_a_rank_missing_from_the_bucket_all_reduce_is_reported_in_time(mode):
    start = time.monotonic()
    code, out = launch("worker_dp_faults.py", mode, timeout=40)
    assert code != 0, out
    if mode == "hang":
        assert "rank 0 of 2 failed" in out, out
        assert "DataParallel all_reduce: rank 0 of 2 (group 0) waited 3 s" in out, out
    else:
        assert "rank 1 of 2 failed" in out and "killed by SIGKILL" in out, out
    assert time.monotonic() - start < 30

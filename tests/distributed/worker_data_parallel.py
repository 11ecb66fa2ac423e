"""Run by the launcher on 2 ranks (tests/distributed/test_data_parallel.py): DataParallel
training equals one process on the global batch, the bucket all-reduce overlaps backward,
no_sync accumulation, unused parameters,
SyncBatchNorm against BatchNorm on the global batch, DistributedBatchSampler shares."""
import numpy as np

import sampan as paddle
import sampan.distributed as dist
from sampan.io import DataLoader, DistributedBatchSampler, TensorDataset

GLOBAL_BATCH = 8


def mlp(seed=3):
    paddle.seed(seed)
    return paddle.nn.Sequential(paddle.nn.Linear(5, 16), paddle.nn.Tanh(),
                                paddle.nn.Linear(16, 16), paddle.nn.ReLU(),
                                paddle.nn.Linear(16, 2))


def batch(step):
    rng = np.random.RandomState(100 + step)
    return rng.standard_normal((GLOBAL_BATCH, 5)).astype("float32"), \
        rng.standard_normal((GLOBAL_BATCH, 2)).astype("float32")


def shard(a, r, n):
    per = len(a) // n
    return a[r * per:(r + 1) * per]


def train(model, steps, r, n, sharded):
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    for step in range(steps):
        x, y = batch(step)
        if sharded:
            x, y = shard(x, r, n), shard(y, r, n)
        loss = paddle.nn.functional.mse_loss(model(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
    return model


def same_as_single_process(r, n):
    single = train(mlp(), 4, r, n, sharded=False)
    # rank 1 starts from other weights: DataParallel broadcasts rank 0's
    dp = paddle.DataParallel(mlp(seed=3 + r), comm_buffer_size=1, last_comm_buffer_size=0.001)
    assert len(dp._buckets) > 1, "expected several buckets"
    train(dp, 4, r, n, sharded=True)
    want = single.state_dict()
    got = dp.state_dict()
    assert sorted(got) == sorted(want), (sorted(got), sorted(want))
    for key in want:
        np.testing.assert_allclose(got[key].numpy(), want[key].numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"DataParallel parameter {key}")


def overlaps_backward(r, n):
    """The last layer's bucket all-reduce starts (a real MPI Iallreduce) before backward
    reaches the first layer; every bucket is waited on by the end of backward."""
    log = []
    comm = dist.get_group().comm
    start = comm.iall_reduce

    def traced(buf, op, what):
        task = start(buf, op, what)
        log.append(("start", buf.size))
        return task
    comm.iall_reduce = traced
    try:
        dp = paddle.DataParallel(mlp(), comm_buffer_size=1e-6, last_comm_buffer_size=1e-6)

        def mark(layer, inputs, out):
            out.register_hook(lambda g: log.append("first layer"))
        dp._layers[0].register_forward_post_hook(mark)
        x, y = batch(0)
        loss = paddle.nn.functional.mse_loss(dp(paddle.to_tensor(shard(x, r, n))),
                                             paddle.to_tensor(shard(y, r, n)))
        loss.backward()
    finally:
        del comm.iall_reduce
    assert log.index(("start", 2)) < log.index("first layer"), log   # last layer's bias
    assert sum(e[0] == "start" for e in log if e != "first layer") == 6, log
    assert all(b.task is None and b.buffer is None for b in dp._buckets)


def no_sync_accumulates(r, n):
    ref = mlp()
    dp = paddle.DataParallel(mlp())
    for step in range(2):
        x, y = batch(step)
        loss = paddle.nn.functional.mse_loss(ref(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        xs, ys = paddle.to_tensor(shard(x, r, n)), paddle.to_tensor(shard(y, r, n))
        if step == 0:
            with dp.no_sync():
                paddle.nn.functional.mse_loss(dp(xs), ys).backward()
            local = dp._layers[0].weight.grad.numpy().copy()
            others = []
            dist.all_gather_object(others, local.tolist())
            assert not np.allclose(others[0], others[1]), "no_sync must not all-reduce"
        else:
            paddle.nn.functional.mse_loss(dp(xs), ys).backward()
    for (name, p), q in zip(ref.named_parameters(), dp._layers.parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=f"no_sync accumulated gradient of {name}")


class TwoHeads(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.used = paddle.nn.Linear(3, 1)
        self.unused = paddle.nn.Linear(3, 1)

    def forward(self, x):
        return self.used(x)


def unused_parameters(r, n):
    x = paddle.to_tensor(np.ones((2, 3), "float32") * (r + 1))
    dp = paddle.DataParallel(TwoHeads(), find_unused_parameters=True)
    dp(x).sum().backward()
    np.testing.assert_allclose(dp._layers.used.weight.grad.numpy(),
                               np.full((3, 1), 3.0), err_msg="mean over ranks of 2*(r+1)")
    np.testing.assert_allclose(dp._layers.unused.weight.grad.numpy(), np.zeros((3, 1)))
    strict = paddle.DataParallel(TwoHeads())
    try:
        strict(x)
    except RuntimeError as exc:
        assert "find_unused_parameters" in str(exc), exc
    else:
        raise AssertionError("an unused parameter must raise without find_unused_parameters")


def sync_batch_norm(r, n):
    x = np.random.RandomState(7).standard_normal((GLOBAL_BATCH, 3, 4)).astype("float64")
    paddle.seed(1)
    ref = paddle.nn.BatchNorm1D(3)
    sync = paddle.nn.SyncBatchNorm.convert_sync_batchnorm(paddle.nn.BatchNorm1D(3))
    xr = paddle.to_tensor(x.astype("float32"), stop_gradient=False)
    xs = paddle.to_tensor(shard(x, r, n).astype("float32"), stop_gradient=False)
    yr, ys = ref(xr), sync(xs)
    np.testing.assert_allclose(ys.numpy(), shard(yr.numpy(), r, n), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(sync._variance.numpy(), ref._variance.numpy(), rtol=1e-5)
    np.testing.assert_allclose(sync._mean.numpy(), ref._mean.numpy(), rtol=1e-5, atol=1e-7)
    w = np.random.RandomState(8).standard_normal(x.shape).astype("float32")
    (yr * paddle.to_tensor(w)).sum().backward()
    (ys * paddle.to_tensor(shard(w, r, n))).sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), shard(xr.grad.numpy(), r, n), rtol=1e-4,
                               atol=1e-5, err_msg="SyncBatchNorm input gradient")


def sampler_shares(r, n):
    data = TensorDataset([paddle.to_tensor(np.arange(10, dtype="float32")[:, None])])
    sampler = DistributedBatchSampler(data, batch_size=2)
    seen = [float(v) for (b,) in DataLoader(data, batch_sampler=sampler) for v in b.numpy().ravel()]
    every = []
    dist.all_gather_object(every, seen)
    flat = sorted(v for part in every for v in part)
    assert flat == [float(v) for v in range(10)], every


def main():
    dist.init_parallel_env(timeout=60)
    r, n = dist.get_rank(), dist.get_world_size()
    same_as_single_process(r, n)
    overlaps_backward(r, n)
    no_sync_accumulates(r, n)
    unused_parameters(r, n)
    sync_batch_norm(r, n)
    sampler_shares(r, n)
    print(f"rank {r}: data parallel ok", flush=True)


if __name__ == "__main__":
    main()

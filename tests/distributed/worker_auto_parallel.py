"""Run by the launcher on 2 ranks (tests/distributed/test_auto_parallel.py): shard_tensor
pieces, reshard between Shard / Replicate / Partial (uneven pieces, sum and max partials,
a 2-D mesh), a column-parallel matmul, and data-parallel training with shard_layer +
shard_optimizer against single-process full-batch training. Any mismatch raises."""
import numpy as np

import sampan as paddle
import sampan.distributed as dist
from sampan.distributed.auto_parallel.api import dtensor_from_local


def check(t, want):
    np.testing.assert_allclose(t.numpy(), want, rtol=1e-5, atol=1e-6)


def placements_round_trip(r):
    mesh = dist.ProcessMesh([0, 1], dim_names=["x"])
    full = np.arange(10.0, dtype="float32").reshape(5, 2)
    d = dist.shard_tensor(paddle.to_tensor(full), mesh, [dist.Shard(0)])
    check(d, full[:3] if r == 0 else full[3:])  # ceil-sized pieces: 3 rows, then 2
    assert d._dist_attr.global_shape == [5, 2] and d.num_shard == 2
    rep = dist.reshard(d, mesh, [dist.Replicate()])
    check(rep, full)
    cols = dist.reshard(rep, mesh, [dist.Shard(1)])
    check(cols, full[:, r:r + 1])
    rows = dist.reshard(cols, mesh, [dist.Shard(0)])
    check(rows, full[:3] if r == 0 else full[3:])
    part = dist.reshard(rows, mesh, [dist.Partial()])
    check(part, full if r == 0 else np.zeros_like(full))
    check(dist.reshard(part, mesh, [dist.Replicate()]), full)
    check(dist.reshard(part, mesh, [dist.Shard(1)]), full[:, r:r + 1])
    # partial values that differ per rank: sum and max
    local = paddle.to_tensor(full * (r + 1))
    check(dist.reshard(dtensor_from_local(local, mesh, [dist.Partial()]), mesh,
                       [dist.Replicate()]), full * 3)
    pmax = dtensor_from_local(local, mesh, [dist.Partial(dist.ReduceType.kRedMax)])
    check(dist.reshard(pmax, mesh, [dist.Replicate()]), full * 2)
    # a 2-D mesh [[0, 1]]: replicated on 'a' (size 1), split on 'b'
    mesh2 = dist.ProcessMesh([[0, 1]], dim_names=["a", "b"])
    d2 = dist.shard_tensor(paddle.to_tensor(full), mesh2, [dist.Replicate(), dist.Shard(1)])
    check(d2, full[:, r:r + 1])
    check(dist.reshard(d2, mesh2, [dist.Shard(0), dist.Replicate()]), full)
    # a rank outside the mesh holds an empty piece
    solo = dist.shard_tensor(paddle.to_tensor(full), dist.ProcessMesh([1], dim_names=["x"]),
                             [dist.Replicate()])
    assert (solo.shape[0] == 0) == (r == 0)


def column_parallel(r):
    mesh = dist.ProcessMesh([0, 1], dim_names=["mp"])
    rng = np.random.RandomState(0)
    x, w = rng.rand(3, 4).astype("float32"), rng.rand(4, 6).astype("float32")
    wd = dist.shard_tensor(paddle.to_tensor(w), mesh, [dist.Shard(1)])
    local_out = paddle.matmul(paddle.to_tensor(x), wd)  # this rank's 3 output columns
    out = dist.reshard(dtensor_from_local(local_out, mesh, [dist.Shard(1)]), mesh,
                       [dist.Replicate()])
    check(out, x @ w)


def data_parallel(r):
    mesh = dist.ProcessMesh([0, 1], dim_names=["dp"])
    rng = np.random.RandomState(1)
    x, y = rng.rand(8, 3).astype("float32"), rng.rand(8, 1).astype("float32")

    def model():
        paddle.seed(5)
        return paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Tanh(),
                                    paddle.nn.Linear(4, 1))

    ref = model()
    ref_opt = paddle.optimizer.Adam(0.05, parameters=ref.parameters())
    net = dist.shard_layer(model(), mesh)
    opt = dist.shard_optimizer(paddle.optimizer.Adam(0.05, parameters=net.parameters()))
    mine = slice(4 * r, 4 * r + 4)  # this rank's half of the batch
    for _ in range(3):
        loss = ((ref(paddle.to_tensor(x)) - paddle.to_tensor(y)) ** 2).mean()
        loss.backward()
        ref_opt.step()
        ref_opt.clear_grad()
        local = ((net(paddle.to_tensor(x[mine])) - paddle.to_tensor(y[mine])) ** 2).mean()
        local.backward()
        opt.step()
        opt.clear_grad()
    for p, q in zip(net.parameters(), ref.parameters()):
        assert p.placements == [dist.Replicate()]
        np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-4, atol=1e-5)


def main():
    dist.init_parallel_env()
    r = dist.get_rank()
    assert dist.get_world_size() == 2
    placements_round_trip(r)
    column_parallel(r)
    data_parallel(r)
    print(f"rank {r}: auto parallel ok", flush=True)


if __name__ == "__main__":
    main()

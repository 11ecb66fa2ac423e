"""paddle.distributed auto-parallel names: ProcessMesh, placements, DistAttr, shard_tensor /
reshard / dtensor_from_fn on one rank in-process, shard_layer, shard_optimizer, Strategy and
to_static; the multi-rank semantics run on 2 ranks under the launcher (worker_auto_parallel)."""
import numpy as np
import pytest

import sampan as paddle
import sampan.distributed as dist
from tests.distributed.util import launch


def test_process_mesh():
    mesh = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"])
    assert mesh.shape == [2, 2] and mesh.process_ids == [0, 1, 2, 3] and mesh.ndim == 2
    assert mesh.dim_names == ["x", "y"] and mesh.get_dim_size("y") == 2
    # Paddle 3.3.1 prints and transposes these the same way
    assert str(mesh) == "shape [2, 2], process_ids [0, 1, 2, 3], dim_names ['x', 'y']"
    assert mesh.get_mesh_with_dim("y").process_ids == [0, 2, 1, 3]
    assert mesh.get_mesh_with_dim("y", 1).process_ids == [1, 3]
    assert mesh[0].process_ids == [0, 1] and mesh[0].dim_names == ["y"]
    assert mesh == dist.ProcessMesh(shape=[2, 2], process_ids=[0, 1, 2, 3], dim_names=["x", "y"])
    assert mesh.group_ranks(0, 1) == [1, 3] and mesh.coordinate(2) == [1, 0]
    with pytest.raises(ValueError, match="distinct"):
        dist.ProcessMesh([0, 0])
    with pytest.raises(ValueError, match="dim_names"):
        dist.ProcessMesh([0, 1], dim_names=["x", "y"])


def test_placements_and_dist_attr():
    assert repr(dist.Shard(1)) == "Shard(dim=1)" and repr(dist.Replicate()) == "Replicate()"
    assert repr(dist.Partial()) == "Partial(reduce_type=SUM)"
    assert repr(dist.Partial(dist.ReduceType.kRedMax)) == "Partial(reduce_type=MAX)"
    assert dist.Shard(1) == dist.Shard(1) and dist.Shard(1) != dist.Shard(0)
    assert dist.Shard(1).is_shard() and not dist.Shard(1).is_shard(0)
    assert dist.Replicate().is_replicated() and dist.Partial().is_partial()
    assert isinstance(dist.Shard(0), dist.Placement)
    assert int(dist.ReduceType.kRedAvg) == 4
    mesh = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=["x", "y"])
    attr = dist.DistAttr(mesh=mesh, sharding_specs=["x", None])
    assert attr.dims_mapping == [0, -1] and attr.process_mesh == mesh
    with pytest.raises(ValueError, match="'z' is not a dim name"):
        dist.DistAttr(mesh, ["z", None])


def test_shard_tensor_on_one_rank_is_the_local_tensor():
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    x = paddle.arange(8.0).reshape([4, 2])
    for placement in (dist.Shard(0), dist.Shard(1), dist.Replicate(), dist.Partial()):
        d = dist.shard_tensor(x, mesh, [placement])
        assert d.is_dist() and d.placements == [placement] and d.process_mesh == mesh
        assert d.num_shard == 1 and d._dist_attr.global_shape == [4, 2]
        np.testing.assert_array_equal(d.numpy(), x.numpy())
    d = dist.shard_tensor(x, mesh, [dist.Shard(-1)])
    assert d.placements == [dist.Shard(1)] and d.dist_attr.dims_mapping == [-1, 0]
    assert not x.is_dist()  # the input is not changed


def test_reshard_on_one_rank_keeps_the_value():
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    x = paddle.to_tensor(np.arange(12.0).reshape(3, 4), stop_gradient=False)
    d = dist.shard_tensor(x, mesh, [dist.Shard(0)])
    for target in ([dist.Replicate()], [dist.Partial()], [dist.Shard(1)], [dist.Shard(0)]):
        d = dist.reshard(d, mesh, target)
        assert d.placements == target
        np.testing.assert_array_equal(d.numpy(), x.numpy())
    (d * d).sum().backward()  # reshard is built of differentiable ops
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.numpy())


def test_shard_tensor_and_reshard_errors():
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    with pytest.raises(ValueError, match=r"placements must be a list of 1 Placement"):
        dist.shard_tensor(paddle.ones([2]), mesh, [dist.Shard(0), dist.Replicate()])
    with pytest.raises(ValueError, match=r"Shard\(dim=2\) is out of range for a 2-D tensor"):
        dist.shard_tensor(paddle.ones([2, 2]), mesh, [dist.Shard(2)])
    with pytest.raises(TypeError, match="mesh must be a paddle.distributed.ProcessMesh"):
        dist.shard_tensor(paddle.ones([2]), [0], [dist.Shard(0)])
    with pytest.raises(ValueError, match="must be a distributed tensor"):
        dist.reshard(paddle.ones([2]), mesh, [dist.Replicate()])
    d = dist.shard_tensor(paddle.ones([2]), mesh, [dist.Replicate()])
    with pytest.raises(NotImplementedError, match="another mesh"):
        dist.reshard(d, dist.ProcessMesh([0], dim_names=["y"]), [dist.Replicate()])


def test_dtensor_from_fn_and_shard_layer():
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    t = dist.dtensor_from_fn(paddle.ones, mesh, [dist.Shard(0)], shape=[2, 3])
    assert t.is_dist() and t.shape == [2, 3]
    paddle.seed(0)
    net = paddle.nn.Sequential(paddle.nn.Linear(3, 4), paddle.nn.Linear(4, 2))
    before = [p.numpy().copy() for p in net.parameters()]
    seen = []

    def shard_fn(name, sub, m):
        seen.append(name)
        if isinstance(sub, paddle.nn.Linear) and name == "0":
            sub.weight = dist.shard_tensor(sub.weight, m, [dist.Shard(1)])

    calls = []
    dist.shard_layer(net, mesh, shard_fn,
                     input_fn=lambda inputs, m: calls.append("in") or inputs,
                     output_fn=lambda out, m: calls.append("out") or out)
    assert seen == ["", "0", "1"]
    params = net.parameters()
    assert all(p.is_dist() and isinstance(p, paddle.base.framework.EagerParamBase)
               for p in params)
    assert [p.placements for p in params] == [[dist.Shard(1)]] + [[dist.Replicate()]] * 3
    for p, b in zip(params, before):
        np.testing.assert_array_equal(p.numpy(), b)
    net(paddle.ones([1, 3]))
    assert calls == ["in", "out"]
    with pytest.raises(TypeError, match="shard_layer: layer must be a paddle.nn.Layer"):
        dist.shard_layer(lambda x: x, mesh)


def test_shard_optimizer_trains_like_the_plain_optimizer():
    mesh = dist.ProcessMesh([0], dim_names=["x"])
    data = paddle.to_tensor(np.random.RandomState(0).rand(8, 3).astype("float32"))
    losses = []
    for wrap in (False, True):
        paddle.seed(1)
        net = paddle.nn.Linear(3, 1)
        if wrap:
            net = dist.shard_layer(net, mesh)
        opt = paddle.optimizer.Adam(0.1, parameters=net.parameters())
        if wrap:
            opt = dist.shard_optimizer(opt)
        run = []
        for _ in range(3):
            loss = (net(data) ** 2).mean()
            loss.backward()
            opt.step()
            opt.clear_grad()
            run.append(float(loss))
        losses.append(run)
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-6)
    moments = opt._inner_opt._accumulators["moment1"]
    assert all(m.is_dist() for m in moments.values())


def test_shard_optimizer_gradient_accumulation():
    paddle.seed(0)
    net = paddle.nn.Linear(2, 1, bias_attr=False)
    w0 = net.weight.numpy().copy()
    opt = dist.shard_optimizer(paddle.optimizer.SGD(1.0, parameters=net.parameters()),
                               gradient_accumulation_steps=2)
    x = paddle.to_tensor([[1.0, 2.0]])
    net(x).sum().backward()
    opt.step()
    opt.clear_grad()
    np.testing.assert_array_equal(net.weight.numpy(), w0)  # first call: only accumulated
    net(x).sum().backward()
    opt.step()
    opt.clear_grad()
    np.testing.assert_allclose(net.weight.numpy(), w0 - 2 * np.array([[1.0], [2.0]]))
    with pytest.raises(ValueError, match="gradient_accumulation_steps"):
        dist.shard_optimizer(opt._inner_opt, gradient_accumulation_steps=0)


def test_strategy():
    s = dist.Strategy({"gradient_merge": {"enable": True, "k_steps": 4}})
    assert s.gradient_merge.enable and s.gradient_merge.k_steps == 4 and s.gradient_merge.avg
    assert s.sharding.stage == 1 and s.pipeline.schedule_mode == "1F1B"
    s.amp.enable = True
    assert s.to_dict()["amp"]["enable"]
    with pytest.raises(AttributeError, match="unknown option 'nope'"):
        s.amp.nope = 1
    with pytest.raises(ValueError, match="unknown sections"):
        dist.Strategy({"bogus": {}})


def test_to_static_modes_and_gradient_merge():
    rng = np.random.RandomState(0)
    x = paddle.to_tensor(rng.rand(6, 3).astype("float32"))
    y = paddle.to_tensor(rng.rand(6, 1).astype("float32"))
    paddle.seed(2)
    ref = paddle.nn.Linear(3, 1)
    init = {k: v.numpy().copy() for k, v in ref.state_dict().items()}
    ref_opt = paddle.optimizer.SGD(0.5, parameters=ref.parameters())
    loss_fn = paddle.nn.MSELoss()
    want = []
    for _ in range(2):
        loss = loss_fn(ref(x), y)
        loss.backward()
        ref_opt.step()
        ref_opt.clear_grad()
        want.append(float(loss))
    net = paddle.nn.Linear(3, 1)
    net.set_state_dict(init)
    opt = paddle.optimizer.SGD(0.5, parameters=net.parameters())
    model = dist.to_static(net, loss=loss_fn, optimizer=opt)
    got = [float(model(x, y)) for _ in range(2)]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    model.eval()
    before = net.weight.numpy().copy()
    assert isinstance(model(x, y), np.ndarray)
    np.testing.assert_array_equal(net.weight.numpy(), before)
    model.predict()
    np.testing.assert_allclose(model(x), ref(x).numpy(), rtol=1e-5)
    # gradient merge: two half batches, averaged, make one update equal to the full batch
    net2 = paddle.nn.Linear(3, 1)
    net2.set_state_dict(init)
    strategy = dist.Strategy({"gradient_merge": {"enable": True, "k_steps": 2}})
    model2 = dist.to_static(net2, loss=loss_fn,
                            optimizer=paddle.optimizer.SGD(0.5, parameters=net2.parameters()),
                            strategy=strategy)
    model2(x[:3], y[:3])
    np.testing.assert_array_equal(net2.weight.numpy(), init["weight"])
    model2(x[3:], y[3:])
    ref2 = paddle.nn.Linear(3, 1)
    ref2.set_state_dict(init)
    loss_fn(ref2(x), y).backward()
    np.testing.assert_allclose(net2.weight.numpy(),
                               init["weight"] - 0.5 * ref2.weight.grad.numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="set the optimizer and loss"):
        dist.to_static(paddle.nn.Linear(2, 2)).train()


def test_two_ranks():
    code, out = launch("worker_auto_parallel.py", timeout=120)
    assert code == 0, out
    assert "rank 0: auto parallel ok" in out and "rank 1: auto parallel ok" in out, out

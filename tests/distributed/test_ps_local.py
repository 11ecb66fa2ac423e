"""The parameter-server runtime in one process (LocalPS, no MPI): table configs, rows
created on first touch with order-independent initial values, the server optimizer rules
against NumPy, sync mode, entry policies, errors; fleet's role makers, strategy and the
launcher's PS arguments; DistributedEmbedding on the in-process tables."""
import numpy as np
import pytest

import sampan as paddle
import sampan.distributed as dist
import sampan.distributed.fleet as fleet
from sampan.distributed import launch as launch_mod
from sampan.distributed.job import ps_env
from sampan.distributed.ps.client import LocalPS, TableConfig

RNG = np.random.default_rng(0)


def _ps(optimizer=("sgd", 0.1), init=("uniform", -0.5, 0.5), entry=None, dim=4, **kw):
    ps = LocalPS(**kw)
    ps.create_tables([TableConfig("t", dim, init, optimizer, entry)])
    return ps


def test_table_config_checks_and_dict_round_trip():
    cfg = TableConfig("t", 3, ("normal", 0.0, 0.1), ("adam", 0.01))
    assert cfg.to_dict()["optimizer"] == ["adam", 0.01, 0.9, 0.999, 1e-8]
    assert TableConfig.from_any(cfg.to_dict()) == cfg
    with pytest.raises(ValueError, match="dim must be a positive int"):
        TableConfig("t", 0)
    with pytest.raises(ValueError, match="optimizer must be a tuple starting with one of"):
        TableConfig("t", 2, optimizer=("momentum", 0.1))
    with pytest.raises(ValueError, match="initializer 'uniform' takes"):
        TableConfig("t", 2, initializer=("uniform", -1.0))
    with pytest.raises(ValueError, match="unknown entry"):
        TableConfig("t", 2, entry="lru_entry:3")


def test_rows_exist_only_when_touched_and_do_not_depend_on_order():
    a, b = _ps(), _ps()
    ids = np.array([9_999_999, 3, 5_000_000, 3])
    rows = a.pull_sparse("t", ids)
    np.testing.assert_array_equal(rows[1], rows[3])
    np.testing.assert_array_equal(b.pull_sparse("t", ids[::-1])[::-1], rows)
    assert a.table_sizes() == {"t": 3}
    assert rows.dtype == np.float32 and rows.shape == (4, 4)
    assert rows.min() >= -0.5 and rows.max() <= 0.5 and len(np.unique(rows)) == 12


def test_normal_initializer_statistics():
    rows = _ps(init=("normal", 1.0, 0.5), dim=8).pull_sparse("t", np.arange(20000) * 7919)
    assert abs(rows.mean() - 1.0) < 0.01 and abs(rows.std() - 0.5) < 0.01


def _numpy_rule(kind, w, g, state, t, lr=0.1, eps=None):
    if kind == "sgd":
        return w - lr * g
    if kind == "adagrad":
        state["m"] = state.get("m", 0) + g * g
        return w - lr * g / (np.sqrt(state["m"]) + eps)
    b1, b2 = 0.9, 0.999
    state["m1"] = b1 * state.get("m1", 0) + (1 - b1) * g
    state["m2"] = b2 * state.get("m2", 0) + (1 - b2) * g * g
    lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    return w - lr_t * state["m1"] / (np.sqrt(state["m2"]) + eps * np.sqrt(1 - b2 ** t))


@pytest.mark.parametrize("rule", [("sgd", 0.1), ("adagrad", 0.1, 1e-6),
                                  ("adam", 0.1, 0.9, 0.999, 1e-8)])
def test_sparse_rules_match_numpy_with_duplicate_ids_summed(rule):
    ps = _ps(optimizer=rule)
    ids = np.array([4, 7, 4, 11])
    w = ps.pull_sparse("t", [4, 7, 11]).astype(np.float64)
    states = [{}, {}, {}]
    steps = [0, 0, 0]
    for step in range(3):
        g = RNG.standard_normal((4, 4)).astype(np.float32)
        push_ids = ids if step != 1 else ids[:2]   # row 11 skips a step: its own count
        ps.push_sparse("t", push_ids, g[:len(push_ids)])
        summed = {}
        for key, row in zip(push_ids.tolist(), g):
            summed[key] = summed.get(key, 0) + row
        for i, key in enumerate([4, 7, 11]):
            if key in push_ids:
                steps[i] += 1
                w[i] = _numpy_rule(rule[0], w[i], summed[key].astype(np.float64), states[i],
                                   steps[i], eps=rule[-1])
    np.testing.assert_allclose(ps.pull_sparse("t", [4, 7, 11]), w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("rule", [("sgd", 0.1), ("adagrad", 0.1, 1e-6),
                                  ("adam", 0.1, 0.9, 0.999, 1e-8)])
def test_dense_rules_match_numpy(rule):
    ps = LocalPS()
    w0 = RNG.standard_normal((2, 3)).astype(np.float32)
    ps.init_dense("w", w0, rule)
    w, state = w0.astype(np.float64), {}
    for t in range(1, 4):
        g = RNG.standard_normal((2, 3)).astype(np.float32)
        ps.push_dense("w", g)
        w = _numpy_rule(rule[0], w, g.astype(np.float64), state, t, eps=rule[-1])
    np.testing.assert_allclose(ps.pull_dense("w"), w, rtol=1e-5, atol=1e-6)


def test_sync_mode_applies_the_average_at_step():
    ps = _ps(init=("constant", 1.0), sync=True, trainer_num=2)
    ps.init_dense("d", np.zeros(2, np.float32), ("sgd", 1.0))
    ps.pull_sparse("t", [1])
    ps.push_sparse("t", [1], np.full((1, 4), 2.0))
    ps.push_sparse("t", [1], np.full((1, 4), 4.0))
    ps.push_dense("d", np.array([1.0, 3.0]))
    np.testing.assert_array_equal(ps.pull_sparse("t", [1]), np.ones((1, 4)))
    ps.step()
    np.testing.assert_allclose(ps.pull_sparse("t", [1]), np.full((1, 4), 1.0 - 0.1 * 3.0))
    np.testing.assert_allclose(ps.pull_dense("d"), [-0.5, -1.5])


def test_count_filter_entry_admits_at_the_nth_lookup():
    ps = _ps(init=("constant", 1.0), entry=dist.CountFilterEntry(3))
    assert ps.pull_sparse("t", [8, 8]).sum() == 0      # seen twice: no row yet
    ps.push_sparse("t", [8], np.ones((1, 4)))           # dropped
    assert ps.table_sizes() == {"t": 0}
    np.testing.assert_array_equal(ps.pull_sparse("t", [8]), np.ones((1, 4)))
    assert ps.table_sizes() == {"t": 1}


def test_probability_and_show_click_entries():
    ps = _ps(entry=dist.ProbabilityEntry(0.25))
    ps.pull_sparse("t", np.arange(4000))
    assert 850 < ps.table_sizes()["t"] < 1150
    ps = _ps(entry=dist.ShowClickEntry("show", "click"))
    ps.pull_sparse("t", np.arange(10))
    assert ps.table_sizes()["t"] == 10
    with pytest.raises(ValueError, match=r"probability must be a float in \(0,1\)"):
        dist.ProbabilityEntry(1.5)
    with pytest.raises(ValueError, match="count_filter must be an integer >= 0"):
        dist.CountFilterEntry(-1)


def test_client_errors_name_the_call_and_the_value():
    ps = _ps()
    with pytest.raises(ValueError, match="pull_sparse: ids must be >= 0, got -2"):
        ps.pull_sparse("t", [1, -2])
    with pytest.raises(TypeError, match="ids must be integers, got dtype float64"):
        ps.pull_sparse("t", [1.5])
    with pytest.raises(ValueError, match=r"table 't' has dim 4, got gradient rows of width 3"):
        ps.push_sparse("t", [1], np.ones((1, 3)))
    with pytest.raises(KeyError, match="no sparse table 'nope'"):
        ps.pull_sparse("nope", [1])
    with pytest.raises(ValueError, match="exists with"):
        ps.create_tables([TableConfig("t", 5)])
    ps.init_dense("d", np.zeros(3), ("sgd", 0.1))
    with pytest.raises(ValueError, match=r"push_dense: gradient of 'd' has shape \[2\]"):
        ps.push_dense("d", np.zeros(2))


def test_role_makers_read_paddles_environment(monkeypatch):
    monkeypatch.setenv("PADDLE_PSERVERS_IP_PORT_LIST", "127.0.0.1:6170,127.0.0.1:6171")
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "3")
    monkeypatch.setenv("TRAINING_ROLE", "PSERVER")
    monkeypatch.setenv("POD_IP", "127.0.0.1")
    monkeypatch.setenv("PADDLE_PORT", "6171")
    role = fleet.PaddleCloudRoleMaker()
    assert role._is_server() and role._server_index() == 1 and role._worker_num() == 3
    assert role._mpi_rank() == 1
    monkeypatch.setenv("TRAINING_ROLE", "TRAINER")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "2")
    role = fleet.PaddleCloudRoleMaker()
    assert role._is_worker() and role._worker_index() == 2 and role._mpi_rank() == 4
    assert not role._is_first_worker()
    monkeypatch.setenv("TRAINING_ROLE", "BOSS")
    with pytest.raises(ValueError, match="TRAINING_ROLE must be TRAINER or PSERVER"):
        fleet.PaddleCloudRoleMaker()
    with pytest.raises(ValueError, match=r"current_id must be in \[0, 2\)"):
        fleet.UserDefinedRoleMaker(current_id=2, role=fleet.Role.SERVER, worker_num=1,
                                   server_endpoints=["a:1", "a:2"])


def test_strategy_a_sync_and_configs():
    s = fleet.DistributedStrategy()
    assert s.a_sync and s.a_sync_configs["k_steps"] == -1 and s.ps_mode() == "async"
    s.a_sync = False
    assert s.ps_mode() == "sync"
    with pytest.raises(ValueError, match="a_sync must be a bool"):
        s.a_sync = "yes"
    with pytest.raises(AssertionError, match="key 'foo' is not one of"):   # as Paddle
        s.a_sync_configs = {"foo": 1}
    s.a_sync, s.a_sync_configs = True, {"k_steps": 4}
    with pytest.raises(NotImplementedError, match="GEO mode"):
        s.ps_mode()


def test_launcher_parameter_server_arguments_and_environment():
    args = launch_mod._parser().parse_args(["--server_num", "2", "--trainer_num", "3", "t.py"])
    assert launch_mod.ps_roles(args) == (2, 3)
    args = launch_mod._parser().parse_args(["--servers", "a:1,a:2", "--workers", "b:1", "t.py"])
    assert launch_mod.ps_roles(args) == (2, 1)
    with pytest.raises(SystemExit, match="at least one server and one trainer"):
        launch_mod.ps_roles(launch_mod._parser().parse_args(["--server_num", "1", "t.py"]))
    server, trainer = ps_env(1, 2, 3), ps_env(4, 2, 3)
    assert server["TRAINING_ROLE"] == "PSERVER" and "PADDLE_TRAINER_ID" not in server
    assert f"{server['POD_IP']}:{server['PADDLE_PORT']}" == \
        server["PADDLE_PSERVERS_IP_PORT_LIST"].split(",")[1]
    assert trainer["TRAINING_ROLE"] == "TRAINER" and trainer["PADDLE_TRAINER_ID"] == "2"
    assert trainer["PADDLE_TRAINERS_NUM"] == "3"


@pytest.fixture
def local_fleet():
    fleet.init(is_collective=False)
    fleet.init_worker()
    yield fleet
    fleet.stop_worker()


def test_distributed_embedding_pulls_and_pushes_only_touched_rows(local_fleet):
    emb = fleet.DistributedEmbedding(10 ** 7, 3, padding_idx=0,
                                     weight_attr=paddle.ParamAttr(
                                         name="emb_t",
                                         initializer=paddle.nn.initializer.Constant(0.5)))
    fleet.distributed_optimizer(paddle.optimizer.SGD(1.0, parameters=[]))
    x = paddle.to_tensor([[0, 5, 5], [9_000_000, 0, 5]])
    out = emb(x)
    np.testing.assert_array_equal(out.numpy()[0, 0], 0.0)     # padding row
    np.testing.assert_array_equal(out.numpy()[0, 1], 0.5)
    out.sum().backward()                                        # pushes in backward
    client = dist.ps.get_client()
    assert client.table_sizes() == {"emb_t": 2}
    np.testing.assert_allclose(client.pull_sparse("emb_t", [5, 9_000_000]),
                               [[-2.5] * 3, [-0.5] * 3])
    with pytest.raises(ValueError, match=r"ids must be in \[0, 10000000\)"):
        emb(paddle.to_tensor([10 ** 7]))


def test_row_index_agrees_with_a_dict_across_merges():
    from sampan.distributed.ps.table import _Index
    rng = np.random.default_rng(1)
    index, ref = _Index(), {}
    for _ in range(60):
        ids = np.unique(rng.integers(0, 10 ** 7, rng.integers(1, 3000)))
        got = index.lookup(ids)
        np.testing.assert_array_equal(got, [ref.get(k, -1) for k in ids.tolist()])
        new = ids[got < 0]
        slots = np.arange(len(ref), len(ref) + len(new))
        index.add(new, slots)
        ref.update(zip(new.tolist(), slots.tolist()))
    assert len(index) == len(ref)


def test_collective_fleet_maps_onto_data_parallel():
    was_initialized = dist.is_initialized()
    fleet.init(is_collective=True)
    try:
        assert fleet.is_worker() and fleet.worker_index() == 0 and fleet.worker_num() == 1
        model = paddle.nn.Linear(2, 2)
        opt = paddle.optimizer.SGD(0.1, parameters=model.parameters())
        assert isinstance(fleet.distributed_model(model), dist.DataParallel)
        assert fleet.distributed_optimizer(opt) is opt
        fleet.barrier_worker()
        with pytest.raises(RuntimeError, match="parameter-server call in a collective job"):
            fleet.init_server()
    finally:
        if not was_initialized:
            dist.destroy_process_group()


def test_parameter_server_mode_needs_a_supported_optimizer(local_fleet):
    model = paddle.nn.Linear(2, 2)
    with pytest.raises(NotImplementedError, match="SGD, Adagrad or Adam; got Momentum"):
        fleet.distributed_optimizer(paddle.optimizer.Momentum(0.1,
                                                              parameters=model.parameters()))
    with pytest.raises(RuntimeError, match="not a parameter server"):
        fleet.init_server()


def test_fleet_util_alone_and_the_file_split(monkeypatch):
    fleet.init(is_collective=False)
    assert fleet.util.all_reduce(np.array([1, 5]), mode="max").tolist() == [1, 5]
    assert fleet.util.all_gather(3) == [3]
    with pytest.raises(ValueError, match="comm_world must be one of"):
        fleet.util.barrier("everyone")
    class Second:   # trainer 1 of 3
        worker_num, worker_index = (lambda self: 3), (lambda self: 1)

    assert fleet.UtilBase(Second()).get_file_shard(list("abcdefg")) == ["d", "e"]
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "3")
    with pytest.raises(ValueError, match="3 trainers needs servers"):
        fleet.init(is_collective=False)


def test_tables_saved_by_one_server_load_into_two_shards(tmp_path):
    from sampan.distributed.ps.shard import Shard
    cfg = [TableConfig("t", 3, optimizer=("adam", 0.1))]
    ps = LocalPS()
    ps.create_tables(cfg)
    ids = np.arange(0, 10 ** 6, 37)[:300]
    ps.pull_sparse("t", ids)
    ps.push_sparse("t", ids, RNG.standard_normal((300, 3)))
    ps.save(str(tmp_path))
    shards = [Shard(index=i, server_num=2) for i in range(2)]
    for shard in shards:
        shard.create_tables(cfg)
        shard.load(str(tmp_path))
        state = shard.tables["t"].state()
        assert (state["ids"] % 2 == shard.index).all()
        np.testing.assert_array_equal(state["rows"], ps.pull_sparse("t", state["ids"]))
        assert (state["steps"] == 1).all() and state["state_moment1"].any()
    assert sum(len(s.tables["t"]) for s in shards) == 300
    with pytest.raises(FileNotFoundError, match="no saved tables"):
        ps.load(str(tmp_path / "missing"))


def test_a_saved_dynamic_model_loads_into_a_fresh_job(tmp_path):
    from tests.distributed import worker_ps as wm
    fleet.init(is_collective=False)
    fleet.init_worker()
    try:   # parameter names as in a fresh process, so the saved dense values match
        with paddle.utils.unique_name.guard():
            losses, probe = wm.train_model(0, 1)
        fleet.save_persistables(None, str(tmp_path))
    finally:
        fleet.stop_worker()
    fleet.init(is_collective=False)
    fleet.init_worker()
    try:
        with paddle.utils.unique_name.guard():
            model = fleet.distributed_model(wm.make_model())
        fleet.distributed_optimizer(paddle.optimizer.Adam(0.05, parameters=model.parameters()))
        fleet.load_model(str(tmp_path), mode=0)
        np.testing.assert_allclose(model(paddle.to_tensor(wm.PROBE_IDS)).numpy(), probe,
                                   rtol=1e-6)
    finally:
        fleet.stop_worker()


def test_static_job_saves_and_loads_through_fleet(tmp_path):
    from sampan.utils import unique_name
    from tests.static_util import static_guard
    fleet.init(is_collective=False)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), static_guard(main, startup):
        ids = paddle.static.data("ids", [None, 1], "int64")
        y = paddle.static.data("y", [None, 1], "float32")
        emb = paddle.static.nn.sparse_embedding(ids, [10 ** 7, 2],
                                                param_attr=paddle.ParamAttr(name="emb"))
        loss = paddle.mean(paddle.square(paddle.static.nn.fc(emb, 1) - y))
        fleet.distributed_optimizer(paddle.optimizer.SGD(0.1)).minimize(loss)
        exe = paddle.static.Executor()
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            fleet.init_worker()
            try:
                feed = {"ids": np.array([[3], [9_000_000]]), "y": np.ones((2, 1), "float32")}
                for _ in range(2):
                    exe.run(main, feed=feed, fetch_list=[loss])
                fleet.save_persistables(exe, str(tmp_path))
                saved_w = np.array(scope.get("fc_0.w_0"))
                saved_rows = dist.ps.get_client().pull_sparse("emb", [3, 9_000_000])
                exe.run(main, feed=feed, fetch_list=[loss])
                assert not np.allclose(scope.get("fc_0.w_0"), saved_w)
                fleet.load_model(str(tmp_path), mode=0)
                np.testing.assert_array_equal(scope.get("fc_0.w_0"), saved_w)
                np.testing.assert_array_equal(
                    dist.ps.get_client().pull_sparse("emb", [3, 9_000_000]), saved_rows)
            finally:
                fleet.stop_worker()


def test_a_server_started_from_a_saved_folder_loads_tables_as_they_are_created(tmp_path):
    from sampan.distributed.ps.shard import Shard
    ps = _ps(init=("constant", 1.0))
    ps.init_dense("d", np.zeros(2), ("sgd", 1.0))
    ps.push_sparse("t", [7], np.ones((1, 4)))
    ps.push_dense("d", np.ones(2))
    ps.save(str(tmp_path))
    shard = Shard()
    shard.load_dir = str(tmp_path)
    shard.create_tables([TableConfig("t", 4, ("constant", 1.0), ("sgd", 0.1))])
    shard.init_dense("d", np.zeros(2), ("sgd", 1.0))
    np.testing.assert_allclose(shard.pull_sparse("t", np.array([7]), np.ones(1)),
                               [[0.9] * 4])
    np.testing.assert_allclose(shard.pull_dense("d"), [-1.0, -1.0])

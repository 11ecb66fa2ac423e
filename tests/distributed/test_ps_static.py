"""The static parameter-server transpiler and the PS ops in one process (the in-process
LocalPS): the printed trainer/server programs (golden), training equal to local training,
a 10^7-row table that only ever holds touched rows, and the errors."""
import types

import numpy as np
import pytest

import sampan as paddle
from sampan.distributed.ps.client import LocalPS
from sampan.distributed.ps.transpiler import (init_worker_program, server_config,
                                               table_configs, transpile, transpile_for_test)
from sampan.ops import ps as ps_ops
from sampan.utils import unique_name
from tests.static_util import static_guard

@pytest.fixture(autouse=True)
def _no_ps_runtime():
    """Each test starts and ends without a PS client or server entered (the op database's
    entries leave their fakes entered)."""
    ps_ops.set_ps_client(None)
    ps_ops.set_ps_server(None)
    yield
    ps_ops.set_ps_client(None)
    ps_ops.set_ps_server(None)


SYNC = types.SimpleNamespace(a_sync=False)
W0 = np.array([[0.3], [-0.2], [0.5], [0.1]], "float32")
ROLE = types.SimpleNamespace(_worker_num=lambda: 2)
I = paddle.nn.initializer


def _model(vocab=10 ** 7, make_opt=None, dense_init=None, entry=None, padding_idx=None):
    """ids [N, 1] -> sparse_embedding [vocab, 2] ++ x [N, 2] -> fc(1); squared error."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = startup.random_seed = 5
    with unique_name.guard(), static_guard(main, startup):
        ids = paddle.static.data("ids", [None, 1], "int64")
        x = paddle.static.data("x", [None, 2], "float32")
        y = paddle.static.data("y", [None, 1], "float32")
        emb = paddle.static.nn.sparse_embedding(
            ids, [vocab, 2], padding_idx=padding_idx, entry=entry,
            param_attr=paddle.ParamAttr(name="emb", initializer=I.Constant(0.5)))
        out = paddle.static.nn.fc(paddle.concat([emb, x], axis=1), 1,
                                  weight_attr=paddle.ParamAttr(initializer=dense_init))
        loss = paddle.mean(paddle.square(out - y))
        (make_opt or (lambda: paddle.optimizer.SGD(0.1)))().minimize(loss)
    return main, startup, loss


GOLDEN_TRAINER = """\
block 0:
  data %ids: int64[-1, 1]
  data %x: float32[-1, 2]
  data %y: float32[-1, 1]
  param %fc_0.w_0: float32[4, 1]
  param %fc_0.b_0: float32[1]
  const %const_0: float32[]
  %tmp_0 = reshape(x=%ids, shape=[0])  # int64[-1]
  %tmp_1 = distributed_lookup_table(ids=%tmp_0, dim=2, table="emb")  # float32[-1, 2]
  %tmp_2 = concat(x=[%tmp_1, %x], axis=1)  # float32[-1, 4]
  %tmp_3 = matmul(x=%tmp_2, y=%fc_0.w_0)  # float32[-1, 1]
  %tmp_4 = add(x=%tmp_3, y=%fc_0.b_0)  # float32[-1, 1]
  %tmp_5 = subtract(x=%tmp_4, y=%y)  # float32[-1, 1]
  %tmp_6 = square(x=%tmp_5)  # float32[-1, 1]
  %tmp_7 = mean(x=%tmp_6)  # float32[]
  %tmp_7@GRAD = full_like(x=%tmp_7, fill_value=1.0)  # float32[]
  %tmp_8 = expand_as(x=%tmp_7@GRAD, y=%tmp_6)  # float32[-1, 1]
  %tmp_9 = numel(x=%tmp_7@GRAD)  # int64[]
  %tmp_10 = cast(x=%tmp_9)  # float32[]
  %tmp_11 = numel(x=%tmp_6)  # int64[]
  %tmp_12 = cast(x=%tmp_11)  # float32[]
  %tmp_13 = divide(x=%tmp_10, y=%tmp_12)  # float32[]
  %tmp_6@GRAD = multiply(x=%tmp_8, y=%tmp_13)  # float32[-1, 1]
  %tmp_15 = multiply(x=%tmp_6@GRAD, y=%const_0)  # float32[-1, 1]
  %tmp_5@GRAD = multiply(x=%tmp_15, y=%tmp_5)  # float32[-1, 1]
  %fc_0.b_0@GRAD = sum(x=%tmp_5@GRAD, axis=[0])  # float32[1]
  %tmp_2@GRAD = matmul(x=%tmp_5@GRAD, y=%fc_0.w_0, transpose_y=true)  # float32[-1, 4]
  %fc_0.w_0@GRAD = matmul(x=%tmp_2, y=%tmp_5@GRAD, transpose_x=true)  # float32[4, 1]
  %tmp_1@GRAD, %tmp_22 = split(x=%tmp_2@GRAD, axis=1, num_or_sections=[2, 2])  \
# float32[-1, 2], float32[-1, 2]
  %push_sparse_0 = distributed_push_sparse(ids=%tmp_0, grads=%tmp_1@GRAD, table="emb")  \
# int32[]
  %push_dense_0 = distributed_push_dense(grad=%fc_0.w_0@GRAD, param="fc_0.w_0")  # int32[]
  %push_dense_1 = distributed_push_dense(grad=%fc_0.b_0@GRAD, param="fc_0.b_0")  # int32[]
  %step_0 = distributed_step(deps=[%push_sparse_0, %push_dense_0, %push_dense_1])  # int32[]
  %fc_0.w_0 = distributed_pull_dense(deps=[%step_0], param="fc_0.w_0", shape=[4, 1])  \
# float32[4, 1]
  %fc_0.b_0 = distributed_pull_dense(deps=[%step_0], param="fc_0.b_0", shape=[1])  \
# float32[1]"""

GOLDEN_STARTUP = """\
block 0:
  persist %fc_0.w_0: float32[4, 1]
  persist %fc_0.b_0: float32[1]
  %fc_0.w_0 = full(fill_value=0.1, shape=[4, 1])  # float32[4, 1]
  %fc_0.b_0 = full(shape=[1])  # float32[1]"""

GOLDEN_SERVER = """\
block 0:
  persist %fc_0.w_0: float32[4, 1]
  persist %fc_0.b_0: float32[1]
  %listen_and_serv_0 = listen_and_serv(params=[%fc_0.w_0, %fc_0.b_0], \
dense=["fc_0.w_0", "fc_0.b_0"], dense_optimizer=["sgd", 0.1], tables=[{"name": "emb", \
"dim": 2, "initializer": ["constant", 0.5], "optimizer": ["sgd", 0.1], "entry": null}], \
trainers=2)  # int32[]"""


def test_printed_trainer_startup_and_server_programs():
    main, startup, _ = _model(dense_init=I.Constant(0.1))
    trainer, server = transpile(main, startup, SYNC, ROLE)
    assert trainer is main
    assert str(trainer) == GOLDEN_TRAINER.replace("  \\\n", "  ")
    assert str(startup) == GOLDEN_STARTUP
    assert str(server) == GOLDEN_SERVER
    trainer.verify()
    server.verify()


def test_async_strategy_and_no_role():
    main, startup, _ = _model()
    _, server = transpile(main, startup)   # Paddle's default DistributedStrategy: a_sync
    config = server_config(server)
    assert (config["mode"], config["trainers"]) == ("async", 1)


def _feeds(steps=6, n=8, vocab=50, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        ids = rng.integers(0, vocab, (n, 1)).astype("int64")
        x = rng.standard_normal((n, 2)).astype("float32")
        y = (ids % 3 == 0).astype("float32") + 0.1 * x[:, :1]
        yield {"ids": ids, "x": x, "y": y}


def _train(main, startup, loss, client=None, server=None, init=None):
    scope = paddle.static.Scope()
    exe = paddle.static.Executor()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for name, value in (init or {}).items():
            scope.set(name, value)
        if client is not None:
            ps_ops.set_ps_client(client)
            init_worker_program(client, server, scope)
        try:
            losses = [float(exe.run(main, feed=f, fetch_list=[loss])[0]) for f in _feeds()]
        finally:
            ps_ops.set_ps_client(None)
    return np.array(losses), scope


@pytest.mark.parametrize("make_opt", [lambda: paddle.optimizer.SGD(0.2),
                                      lambda: paddle.optimizer.Adagrad(0.3)],
                         ids=["sgd", "adagrad"])
def test_training_through_the_servers_equals_local_training(make_opt):
    """Same data, same initial values: the transpiled program on a LocalPS computes the
    losses and dense weights of the untranspiled program trained locally (SGD and Adagrad
    leave untouched rows alone, so the sparse rules agree with the dense ones)."""
    local = _model(vocab=50, make_opt=make_opt)
    want, local_scope = _train(*local, init={"fc_0.w_0": W0})
    main, startup, loss = _model(vocab=50, make_opt=make_opt)
    _, server = transpile(main, startup, SYNC)
    # (the pruned startup program draws other per-op seeds: start from the same weights)
    got, ps_scope = _train(main, startup, loss, LocalPS(sync=True), server, {"fc_0.w_0": W0})
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for name in ("fc_0.w_0", "fc_0.b_0"):
        np.testing.assert_allclose(ps_scope.get(name), local_scope.get(name), rtol=1e-5)
    assert "emb" in local_scope and "emb" not in ps_scope


def test_a_table_of_ten_million_rows_holds_only_touched_rows():
    main, startup, loss = _model(make_opt=lambda: paddle.optimizer.Adam(0.01))
    _, server = transpile(main, startup, SYNC)
    for program in (main, startup, server):
        assert all(max(v.shape, default=0) < 10 ** 6 for v in program.list_vars())
    assert not any(op.type == "adam" for op in main.global_block().ops)
    client = LocalPS(sync=True)
    _train(main, startup, loss, client, server)
    touched = {int(i) for f in _feeds() for i in f["ids"].ravel()}
    assert client.table_sizes() == {"emb": len(touched)}
    assert table_configs(server)[0]["optimizer"] == ["adam", 0.01, 0.9, 0.999, 1e-08]


def test_padding_rows_are_zero_and_not_pushed():
    main, startup, loss = _model(vocab=50, padding_idx=0)
    _, server = transpile(main, startup, SYNC)
    lookup = [op for op in main.global_block().ops if op.type == "distributed_lookup_table"]
    assert lookup[0].attrs["padding_idx"] == 0
    client = LocalPS(sync=True)
    _train(main, startup, loss, client, server)
    rows = client.pull_sparse("emb", [0, 3])
    np.testing.assert_allclose(rows[0], [0.5, 0.5])      # never trained
    assert not np.allclose(rows[1], [0.5, 0.5])


def test_entry_policy_reaches_the_table_config():
    entry = paddle.distributed.CountFilterEntry(3)
    main, startup, _ = _model(entry=entry)
    _, server = transpile(main, startup)
    assert table_configs(server)[0]["entry"] == "count_filter_entry:3"


def test_embedding_is_distributed_is_a_table_too():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), static_guard(main, startup):
        ids = paddle.static.data("ids", [None, 3], "int64")
        emb = paddle.static.nn.embedding(ids, [10 ** 7, 4], is_sparse=True,
                                         is_distributed=True)
        local = paddle.static.nn.embedding(ids, [10, 4])
        loss = paddle.mean(emb) + paddle.mean(local)
        paddle.optimizer.SGD(0.1).minimize(loss)
    _, server = transpile(main, startup)
    assert [t["name"] for t in table_configs(server)] == ["embedding_0.w_0"]
    assert server_config(server)["dense"] == ["embedding_1.w_0"]
    types_ = [op.type for op in main.global_block().ops]
    assert types_.count("distributed_lookup_table") == 1 and types_.count("embedding") == 1


def test_transpile_errors():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        ids = paddle.static.data("ids", [None, 1], "int64")
        emb = paddle.static.nn.sparse_embedding(ids, [100, 2])
    with pytest.raises(ValueError, match="transpile: the program has no optimizer update"):
        transpile(main, startup)
    main, startup, _ = _model(make_opt=lambda: paddle.optimizer.Momentum(0.1))
    with pytest.raises(NotImplementedError, match="SGD, Adagrad or Adam.*'momentum'"):
        transpile(main, startup)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        ids = paddle.static.data("ids", [None, 1], "int64")
        emb = paddle.static.nn.sparse_embedding(ids, [100, 2], param_attr="tbl")
        w = main.global_block().var("tbl")
        loss = paddle.mean(emb) + paddle.mean(w)   # the table read outside a lookup
        paddle.optimizer.SGD(0.1).minimize(loss)
    with pytest.raises(ValueError, match="table 'tbl' is read by an op other than"):
        transpile(main, startup)


def test_sparse_embedding_checks_its_arguments():
    with static_guard(paddle.static.Program(), paddle.static.Program()):
        ids = paddle.static.data("ids", [None, 3], "int64")
        with pytest.raises(ValueError, match="sparse_embedding: the last dim of input must"):
            paddle.static.nn.sparse_embedding(ids, [100, 2])
        ok = paddle.static.data("ok", [None, 1], "int64")
        with pytest.raises(TypeError, match="sparse_embedding: input must be int64"):
            paddle.static.nn.sparse_embedding(paddle.cast(ok, "int32"), [100, 2])
        with pytest.raises(ValueError, match="table_class must be in"):
            paddle.static.nn.sparse_embedding(ok, [100, 2], table_class="Disk")
        with pytest.raises(ValueError, match="entry must be a paddle.distributed"):
            paddle.static.nn.sparse_embedding(ok, [100, 2], entry="count_filter_entry:1")
        out = paddle.static.nn.sparse_embedding(ok, [100, 2], padding_idx=-1)
        assert out.shape == [-1, 2]
    with pytest.raises(RuntimeError):
        paddle.static.nn.sparse_embedding(paddle.to_tensor([[1]]), [100, 2])


def test_ops_without_a_client_or_server_say_what_to_call():
    with pytest.raises(RuntimeError, match="distributed_lookup_table: no parameter-server "
                                           "client.*fleet.init_worker"):
        ps_ops.get_ps_client("distributed_lookup_table")
    main, startup, _ = _model(dense_init=I.Constant(0.1))
    _, server = transpile(main, startup)
    exe = paddle.static.Executor()
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        with pytest.raises(RuntimeError, match="listen_and_serv: no parameter-server runtime"):
            exe.run(server)
        seen = []
        ps_ops.set_ps_server(lambda config, dense: seen.append((config, dense)))
        try:
            exe.run(server)
        finally:
            ps_ops.set_ps_server(None)
    config, dense = seen[0]
    assert config["tables"][0]["name"] == "emb" and config["mode"] == "async"
    np.testing.assert_allclose(dense["fc_0.w_0"], np.full((4, 1), 0.1))


def test_a_test_program_cloned_before_minimize_pulls_from_the_servers():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), static_guard(main, startup):
        ids = paddle.static.data("ids", [None, 1], "int64")
        emb = paddle.static.nn.sparse_embedding(
            ids, [10 ** 7, 2], param_attr=paddle.ParamAttr(name="emb",
                                                           initializer=I.Constant(0.5)))
        loss = paddle.mean(emb)
        test_program = main.clone(for_test=True)
        paddle.optimizer.SGD(1.0).minimize(loss)
    _, server = transpile(main, startup)
    transpile_for_test(test_program)
    assert "emb" not in test_program.global_block().vars
    client = LocalPS()
    feed = {"ids": np.array([[7], [9]], "int64")}
    scope = paddle.static.Scope()
    exe = paddle.static.Executor()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        ps_ops.set_ps_client(client)
        try:
            init_worker_program(client, server, scope)
            before = exe.run(test_program, feed=feed, fetch_list=[loss])[0]
            exe.run(main, feed=feed)
            after = exe.run(test_program, feed=feed, fetch_list=[loss])[0]
        finally:
            ps_ops.set_ps_client(None)
    np.testing.assert_allclose(before, 0.5)
    np.testing.assert_allclose(after, 0.5 - 1.0 / 4, rtol=1e-6)   # d mean / d row = 1/4

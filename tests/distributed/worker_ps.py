"""Run by the launcher as a parameter-server job (tests/distributed/test_ps.py):
`client sync|async OUT`: trainers pull/push through PSClient, trainer 0 replays the same
traffic on a LocalPS and both write what they saw to OUT; `model sync OUT`: a model with an
nn.Embedding(sparse=True) trained through fleet in dynamic mode; `kill_server`: server 0
dies while the trainers pull; `hang_trainer`: trainer 1 never stops (the servers give up
after SAMPAN_DIST_TIMEOUT naming it); `raise_trainer`: trainer 1 raises;
`reload sync DIR`: servers start from a saved folder; `uneven sync`: trainer 1 stops one step before trainer 0, whose last step still completes."""
import os
import signal
import sys
import time

import numpy as np

import sampan as paddle
import sampan.distributed.fleet as fleet
from sampan.distributed.ps.client import LocalPS, TableConfig, get_client

TABLES = [TableConfig("sgd_t", 4, ("uniform", -0.5, 0.5), ("sgd", 0.1)),
          TableConfig("ada_t", 3, ("normal", 0.0, 0.1), ("adagrad", 0.2)),
          TableConfig("adam_t", 5, ("constant", 0.25), ("adam", 0.05))]
BIG = 10 ** 7
PROBE_IDS = np.arange(0, 999, 37).reshape(-1, 3)
PROBE = np.concatenate([np.arange(80), np.arange(0, BIG, 250_000)])


def traffic(trainer, step, mode):
    """(table, ids, grads) this trainer pushes at `step`; in async mode the two trainers
    touch disjoint ids so the result does not depend on the interleaving."""
    rng = np.random.default_rng(100 * step + trainer)
    out = []
    for cfg in TABLES:
        ids = rng.integers(0, 40, size=12) * (2 if mode == "async" else 1)
        ids = ids + (trainer if mode == "async" else 0)
        if cfg.name == "sgd_t":
            ids = ids * 250_000 % BIG   # spread over a 10^7 id space
        out.append((cfg.name, ids, rng.standard_normal((12, cfg.dim)).astype(np.float32)))
    return out


def run_client(mode, out):
    client = get_client()
    client.create_tables(TABLES)
    me, n = fleet.worker_index(), fleet.worker_num()
    assert fleet.util.all_reduce(np.array([1.0, me]), "sum").tolist() == [n, n * (n - 1) / 2]
    assert fleet.util.all_gather(me) == list(range(n))
    client.init_dense("w", np.arange(6, dtype=np.float32).reshape(2, 3), ("sgd", 0.5))
    client.barrier()
    seen = []
    for step in range(4):
        for table, ids, grads in traffic(me, step, mode):
            seen.append(client.pull_sparse(table, ids))
            client.push_sparse(table, ids, grads)
        client.push_dense("w", np.full((2, 3), me + step, np.float32))
        client.step()
    client.barrier()
    final = {t.name: client.pull_sparse(t.name, PROBE) for t in TABLES}
    final["w"] = client.pull_dense("w")
    sizes = client.table_sizes()
    if me == 0:
        np.savez(out, sizes=np.array([sizes[t.name] for t in TABLES]), **final)
        client.save(out + ".tables")   # each server writes its shard
    if mode == "sync":   # every trainer saw what the reference shows at the same point
        ref = replay(mode, n)
        np.testing.assert_allclose(np.concatenate([s.ravel() for s in seen]),
                                   np.concatenate([s.ravel() for s in ref[me]]), atol=1e-6)
    print(f"PS-OK trainer {me}", flush=True)


def replay(mode, n):
    """The same pushes on a LocalPS: what each trainer pulled, step by step (sync)."""
    ps = LocalPS(sync=mode == "sync", trainer_num=n)
    ps.create_tables(TABLES)
    ps.init_dense("w", np.arange(6, dtype=np.float32).reshape(2, 3), ("sgd", 0.5))
    seen = {t: [] for t in range(n)}
    for step in range(4):
        for t in range(n):
            for table, ids, grads in traffic(t, step, mode):
                seen[t].append(ps.pull_sparse(table, ids))
        for t in range(n):
            for table, ids, grads in traffic(t, step, mode):
                ps.push_sparse(table, ids, grads)
            ps.push_dense("w", np.full((2, 3), t + step, np.float32))
        ps.step()
    return seen


def make_model():
    paddle.seed(0)
    return paddle.nn.Sequential(
        paddle.nn.Embedding(1000, 6, sparse=True, weight_attr=paddle.ParamAttr(name="emb")),
        paddle.nn.Flatten(), paddle.nn.Linear(18, 1))


def batches(trainer, trainers):
    rng = np.random.default_rng(7)
    for _ in range(5):
        ids = rng.integers(0, 1000, size=(8, 3))
        y = (ids.sum(1, keepdims=True) % 2).astype(np.float32)
        part = slice(trainer * 8 // trainers, (trainer + 1) * 8 // trainers)
        yield paddle.to_tensor(ids[part]), paddle.to_tensor(y[part])


def train_model(trainer, trainers):
    """Train the model through fleet; returns the losses of the whole batch per step."""
    model = fleet.distributed_model(make_model())
    opt = fleet.distributed_optimizer(paddle.optimizer.Adam(0.05,
                                                            parameters=model.parameters()))
    losses = []
    for x, y in batches(trainer, trainers):
        loss = paddle.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    probe = model(paddle.to_tensor(PROBE_IDS)).numpy()
    return np.array(losses), probe


def main(kind, mode="async", out=""):
    strategy = fleet.DistributedStrategy()
    strategy.a_sync = mode != "sync"
    fleet.init(is_collective=False, strategy=strategy)
    if fleet.is_server():
        if kind == "kill_server" and fleet.server_index() == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        if kind == "model":
            fleet.distributed_optimizer(paddle.optimizer.Adam(0.05, parameters=[]),
                                        strategy)
        if kind == "client":
            fleet.util.barrier("server")
        fleet.init_server(out if kind == "reload" else None)
        fleet.run_server()
        print(f"server {fleet.server_index()} left run_server", flush=True)
        return
    fleet.init_worker()
    if kind == "client":
        run_client(mode, out)
    elif kind == "model":
        losses, probe = train_model(fleet.worker_index(), fleet.worker_num())
        if fleet.is_first_worker():
            np.savez(out, losses=losses, probe=probe)
        print(f"PS-OK trainer {fleet.worker_index()}", flush=True)
    elif kind == "reload":   # the servers started from the folder OUT
        client = get_client()
        client.create_tables(TABLES)
        client.init_dense("w", np.zeros((2, 3), np.float32))
        got = {t.name: client.pull_sparse(t.name, PROBE) for t in TABLES}
        if fleet.is_first_worker():
            np.savez(out + ".got.npz", w=client.pull_dense("w"), **got)
        print(f"PS-OK trainer {fleet.worker_index()}", flush=True)
    elif kind == "uneven":   # sync mode: trainer 1 stops a step early, trainer 0 goes on
        client = get_client()
        client.create_tables(TABLES[:1])
        for step in range(3 - fleet.worker_index()):
            client.push_sparse("sgd_t", [5], np.ones((1, 4), np.float32))
            client.step()
        print(f"PS-OK trainer {fleet.worker_index()}", flush=True)
    elif kind in ("hang_trainer", "raise_trainer") and fleet.worker_index() == 1:
        if kind == "raise_trainer":
            raise ValueError("trainer 1 fails on purpose")
        time.sleep(60)
    elif kind == "kill_server":
        client = get_client()
        client.create_tables(TABLES)
        client.pull_sparse("sgd_t", [1, 2, 3])
    fleet.stop_worker()


if __name__ == "__main__":
    main(*sys.argv[1:])

"""Op database entries for sampan/ops/ps.py, run against a tiny in-memory client (rows are a
fixed function of the id plus the gradients pushed so far); tests/distributed/
test_ps_static*.py run them against the real parameter servers."""
import numpy as np

from sampan.ops import ps
from sampan.ops.dispatch import call
from tests.ops.op_db import OpEntry, Sample

DIM = 3


def base_rows(ids) -> np.ndarray:
    ids = np.asarray(ids, np.float64).reshape(-1, 1)
    return ids * 0.5 + np.arange(DIM) * 0.25


class FakeClient:
    """pull_sparse gives base_rows(id) + the gradients pushed for that id; pull_dense the
    last pushed dense gradient; step counts calls."""

    def __init__(self) -> None:
        self.pushed: dict = {}
        self.dense: dict = {}
        self.steps = 0

    def pull_sparse(self, table, ids):
        rows = base_rows(ids)
        for i, k in enumerate(np.asarray(ids).tolist()):
            rows[i] += self.pushed.get((table, k), 0.0)
        return rows

    def push_sparse(self, table, ids, grads):
        assert len(set(np.asarray(ids).tolist())) == len(ids), "push_sparse sums duplicates"
        for k, g in zip(np.asarray(ids).tolist(), np.asarray(grads)):
            self.pushed[(table, k)] = self.pushed.get((table, k), 0.0) + g

    def push_dense(self, name, grad):
        self.dense[name] = np.array(grad)

    def pull_dense(self, name):
        return self.dense[name]

    def step(self):
        self.steps += 1


def _fresh() -> FakeClient:
    client = FakeClient()
    ps.set_ps_client(client)
    return client


def _lookup(ids, padding_idx=-1, dtype="float64"):
    _fresh()
    return call("distributed_lookup_table", ids, table="t", dim=DIM, padding_idx=padding_idx,
                dtype=dtype)


def _lookup_ref(ids, padding_idx=-1, dtype="float64"):
    rows = base_rows(ids).reshape(np.shape(ids) + (DIM,))
    if padding_idx >= 0:
        rows[np.asarray(ids) == padding_idx] = 0
    return rows.astype(dtype)


def _lookup_samples(rng, dt):
    ids = rng.integers(0, 6, (4, 2)).astype("int64")
    return [Sample((ids,), {"dtype": dt}),
            Sample((np.asarray(3, "int64"),), {"dtype": dt}, "0-d"),
            Sample((np.zeros((0, 2), "int64"),), {"dtype": dt}, "empty"),
            Sample((np.array([[1, 2], [2, 5]], "int32"),), {"padding_idx": 2, "dtype": dt},
                   "padding")]


def _push(ids, grads, padding_idx=-1):
    _fresh()
    call("distributed_push_sparse", ids, grads, table="t", padding_idx=padding_idx)
    return call("distributed_lookup_table", ids, table="t", dim=DIM, dtype=grads.dtype.name)


def _push_ref(ids, grads, padding_idx=-1):
    ids = np.asarray(ids)
    flat, rows = ids.reshape(-1), grads.reshape(-1, DIM)
    summed = {}
    for k, g in zip(flat.tolist(), rows):
        if k != padding_idx:
            summed[k] = summed.get(k, 0.0) + g
    extra = np.array([summed.get(k, np.zeros(DIM)) for k in flat.tolist()]).reshape(-1, DIM)
    out = base_rows(flat) + extra
    return out.reshape(ids.shape + (DIM,)).astype(grads.dtype)


def _push_samples(rng, dt):
    ids = np.array([[1, 4], [4, 1], [0, 4]], "int64")
    return [Sample((ids, rng.standard_normal((3, 2, DIM)).astype(dt))),
            Sample((ids, rng.standard_normal((3, 2, DIM)).astype(dt)), {"padding_idx": 4},
                   "padding"),
            Sample((np.zeros((0,), "int64"), np.zeros((0, DIM), dt)), {}, "empty")]


def _dense_round_trip(grad):
    client = _fresh()
    token = call("distributed_push_dense", grad, param="fc.w")
    done = call("distributed_step", [token])
    out = call("distributed_pull_dense", [done], param="fc.w", shape=list(grad.shape),
               dtype=grad.dtype.name)
    assert client.steps <= 1
    return out


def _dense_samples(rng, dt):
    return [Sample((rng.standard_normal((3, 4)).astype(dt),)),
            Sample((np.asarray(1.5, dt),), {}, "0-d")]


class _FakeServer:
    def __init__(self):
        self.calls = []

    def __call__(self, config, dense):
        self.calls.append((config, {k: np.array(v) for k, v in dense.items()}))


def _serve(x):
    server = _FakeServer()
    ps.set_ps_server(server)
    table = {"name": "emb", "dim": 4, "initializer": ["uniform", -0.1, 0.1],
             "optimizer": ["sgd", 0.1], "entry": None}
    token = call("listen_and_serv", [x], tables=[table], dense=["fc.w"], mode="async",
                 trainers=2)
    return token + call("cast", x.sum() * 0, dtype="int32")


ENTRIES = [
    OpEntry("distributed_lookup_table", _lookup, _lookup_ref, _lookup_samples, grad=False,
            onnx=False),
    OpEntry("distributed_push_sparse", _push, _push_ref, _push_samples, grad=False,
            onnx=False),
    OpEntry("distributed_push_dense", _dense_round_trip, lambda g: g, _dense_samples,
            grad=False, onnx=False),
    OpEntry("distributed_step", _dense_round_trip, lambda g: g, _dense_samples, grad=False,
            onnx=False, name="distributed_step"),
    OpEntry("distributed_pull_dense", _dense_round_trip, lambda g: g, _dense_samples,
            grad=False, onnx=False, name="distributed_pull_dense"),
    OpEntry("listen_and_serv", _serve, lambda x: np.zeros((), "int32"), _dense_samples,
            grad=False, onnx=False),
]

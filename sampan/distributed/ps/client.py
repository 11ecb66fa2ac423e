"""The trainer's side of the parameter server: `PSClient` (over MPI, to the server ranks)
and `LocalPS` (the same methods in-process, no MPI: single-process runs, tests, and the
reference a distributed run is compared with). Sparse ids go to server id % server_num;
a dense parameter lives on one server (crc32 of its name % server_num).
"""
from __future__ import annotations

import zlib

import numpy as np

from .channel import REPLY, REQUEST
from .shard import Shard
from .table import TableConfig, check_optimizer, unique_sum

__all__ = ["TableConfig", "PSClient", "LocalPS", "get_client", "set_client"]

_CLIENT: dict = {"client": None}


def get_client():
    """The trainer's parameter-server client (after fleet.init_worker), with a clear error
    before it."""
    client = _CLIENT["client"]
    if client is None:
        raise RuntimeError("get_client: no parameter-server client in this process; call "
                           "fleet.init_worker() first")
    return client


def set_client(client) -> None:
    """Make `client` (a PSClient or LocalPS; None removes it) this process's client."""
    _CLIENT["client"] = client


def _ids(api: str, ids) -> np.ndarray:
    ids = np.asarray(ids.numpy() if hasattr(ids, "numpy") else ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{api}: ids must be integers, got dtype {ids.dtype}")
    ids = ids.reshape(-1).astype(np.int64, copy=False)
    if ids.size and ids.min() < 0:
        raise ValueError(f"{api}: ids must be >= 0, got {int(ids.min())}")
    return ids


def _grads(api: str, grads, n: int) -> np.ndarray:
    grads = np.asarray(grads.numpy() if hasattr(grads, "numpy") else grads, np.float32)
    if grads.ndim != 2 or grads.shape[0] != n:
        raise ValueError(f"{api}: grads must have shape [len(ids)={n}, dim], got "
                         f"{list(grads.shape)}")
    return grads


class _ClientBase:
    """Argument checks and duplicate handling shared by LocalPS and PSClient; subclasses
    implement _pull_unique/_push_unique and the dense calls."""

    default_optimizer = ("sgd", 0.01)

    def create_tables(self, configs) -> None:
        """Create the sparse tables (TableConfig or dict each) on the servers; calling it
        again with the same configs is a no-op."""
        dicts = [TableConfig.from_any(c).to_dict() for c in configs]
        self._create(dicts)
        self._dims.update({d["name"]: d["dim"] for d in dicts})

    def _dim(self, api: str, table: str) -> int:
        if not isinstance(table, str) or not table:
            raise ValueError(f"{api}: table must be a table name, got {table!r}")
        return self._dims.get(table, -1)

    def pull_sparse(self, table: str, ids) -> np.ndarray:
        """Rows of `ids` (any shape, flattened; duplicates allowed) as float32
        [len(ids), dim]; new ids get rows on the servers (per the table's entry)."""
        self._dim("pull_sparse", table)
        ids = _ids("pull_sparse", ids)
        uniq, inv, counts = np.unique(ids, return_inverse=True, return_counts=True)
        return self._pull_unique(table, uniq, counts)[inv.reshape(-1)]

    def push_sparse(self, table: str, ids, grads) -> None:
        """Push the gradient rows of `ids` (duplicates summed) to the servers."""
        dim = self._dim("push_sparse", table)
        ids = _ids("push_sparse", ids)
        grads = _grads("push_sparse", grads, len(ids))
        if dim > 0 and grads.shape[1] != dim:
            raise ValueError(f"push_sparse: table {table!r} has dim {dim}, got gradient "
                             f"rows of width {grads.shape[1]}")
        if len(ids):
            self._push_unique(table, *unique_sum(ids, grads))

    def save(self, dirname: str) -> None:
        """Every server writes its rows (with optimizer state) and dense values under
        `dirname` (a folder all servers can reach)."""
        self._everywhere("save", str(dirname))

    def load(self, dirname: str) -> None:
        """Every server reads back what save wrote (any former number of servers); the
        tables must exist (create_tables) and the dense parameters be initialized."""
        self._everywhere("load", str(dirname))

    def init_dense(self, name: str, value, optimizer=None) -> None:
        """Give dense parameter `name` its initial value on its server (the first trainer
        to call wins) and its server-side rule (default: `default_optimizer`)."""
        value = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
        rule = check_optimizer(optimizer or self.default_optimizer)
        self._dense_call(name, "init_dense", (name, value, rule))


class LocalPS(_ClientBase):
    """An in-process parameter server with PSClient's methods (one shard, no MPI).

    Args:
        sync (bool): sync mode: pushes apply at `step()`, averaged over `trainer_num`.
        trainer_num (int): trainers whose pushes one step() averages. Default 1.
        seed (int): seed of the row initializers. Default 0.

    Examples:
        >>> from sampan.distributed.ps.client import LocalPS, TableConfig
        >>> ps = LocalPS()
        >>> ps.create_tables([TableConfig("emb", 2, initializer=("constant", 1.0))])
        >>> ps.pull_sparse("emb", [3]).tolist()   # created at first touch
        [[1.0, 1.0]]
        >>> ps.push_sparse("emb", [3, 3], [[1.0, 1.0], [1.0, 1.0]])
        >>> ps.pull_sparse("emb", [3]).tolist()   # sgd, lr 0.01, duplicates summed
        [[0.9800000190734863, 0.9800000190734863]]
    """

    def __init__(self, sync: bool = False, trainer_num: int = 1, seed: int = 0) -> None:
        self.shard = Shard(sync, trainer_num, seed)
        self._dims: dict = {}

    def _create(self, dicts) -> None:
        self.shard.create_tables(dicts)

    def _pull_unique(self, table, uniq, counts):
        return self.shard.pull_sparse(table, uniq, counts)

    def _push_unique(self, table, uniq, grads) -> None:
        self.shard.push_sparse(table, uniq, grads)

    def _dense_call(self, name, op, args):
        return self.shard.handle(op, args)

    def _everywhere(self, op, dirname):
        self.shard.handle(op, (dirname,))

    def pull_dense(self, name: str) -> np.ndarray:
        """The current value of dense parameter `name`."""
        return self.shard.pull_dense(name)

    def push_dense(self, name: str, grad) -> None:
        """Push the gradient of dense parameter `name`."""
        self.shard.push_dense(name, np.asarray(grad))

    def barrier(self) -> None:
        """Wait for every trainer (one here)."""

    def step(self) -> None:
        """End of a trainer step: sync mode applies the pending gradients."""
        if self.shard.sync:
            self.shard.apply_pending()

    def table_sizes(self) -> dict:
        """{table: rows that exist}."""
        return self.shard.stats()

    def stop(self) -> None:
        """Nothing to stop in-process."""


def dense_server(name: str, server_num: int) -> int:
    """The server index holding dense parameter `name`."""
    return zlib.crc32(name.encode()) % server_num


class PSClient(_ClientBase):
    """A trainer's client of the server ranks 0..server_num-1 over a Channel."""

    def __init__(self, channel, server_num: int) -> None:
        self.channel, self.server_num = channel, server_num
        self._dims: dict = {}

    def _ask(self, server: int, op: str, args: tuple):
        self.channel.send((op, args), server, REQUEST)

    def _answer(self, server: int, op: str):
        status, value = self.channel.recv(server, REPLY, f"{op} on parameter server "
                                                         f"{server}")
        if status != "ok":
            raise RuntimeError(f"{op}: parameter server {server} failed: {value}")
        return value

    def _all(self, op: str, args: tuple = ()) -> list:
        for s in range(self.server_num):
            self._ask(s, op, args)
        return [self._answer(s, op) for s in range(self.server_num)]

    def _create(self, dicts) -> None:
        self._all("create_tables", (dicts,))

    def _everywhere(self, op, dirname):
        self._all(op, (dirname,))

    def _pull_unique(self, table, uniq, counts):
        out = np.empty((len(uniq), max(self._dims.get(table, 0), 0)), np.float32)
        if self.server_num == 1:
            self._ask(0, "pull_sparse", (table, uniq, counts))
            return self._answer(0, "pull_sparse")
        shard = uniq % self.server_num
        parts = [np.flatnonzero(shard == s) for s in range(self.server_num)]
        asked = [s for s, p in enumerate(parts) if len(p)]
        for s in asked:
            self._ask(s, "pull_sparse", (table, uniq[parts[s]], counts[parts[s]]))
        for s in asked:
            rows = self._answer(s, "pull_sparse")
            if out.shape[1] != rows.shape[1]:
                out = np.empty((len(uniq), rows.shape[1]), np.float32)
            out[parts[s]] = rows
        return out

    def _push_unique(self, table, uniq, grads) -> None:
        if self.server_num == 1:
            self._ask(0, "push_sparse", (table, uniq, grads))
            return
        shard = uniq % self.server_num
        for s in range(self.server_num):
            part = np.flatnonzero(shard == s)
            if len(part):
                self._ask(s, "push_sparse", (table, uniq[part], grads[part]))

    def _dense_call(self, name, op, args):
        server = dense_server(name, self.server_num)
        self._ask(server, op, args)
        return self._answer(server, op)

    def pull_dense(self, name: str) -> np.ndarray:
        """The current value of dense parameter `name` from its server."""
        return self._dense_call(name, "pull_dense", (name,))

    def push_dense(self, name: str, grad) -> None:
        """Push the gradient of dense parameter `name` to its server."""
        grad = np.asarray(grad.numpy() if hasattr(grad, "numpy") else grad)
        self._ask(dense_server(name, self.server_num), "push_dense", (name, grad))

    def barrier(self) -> None:
        """Wait until every trainer reached barrier() (and every server processed what the
        trainers pushed before it)."""
        self._all("barrier")

    def step(self) -> None:
        """End of a trainer step. Sync mode: wait until every trainer ended it and the
        servers applied the averaged gradients. Async: only flush this trainer's sends."""
        self._all("step")

    def table_sizes(self) -> dict:
        """{table: rows that exist on all servers together}."""
        total: dict = {}
        for part in self._all("stats"):
            for name, n in part.items():
                total[name] = total.get(name, 0) + n
        return total

    def stop(self) -> None:
        """Tell every server this trainer is done (fleet.stop_worker)."""
        self._all("stop")
        self.channel.flush("stop_worker")


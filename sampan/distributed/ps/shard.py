"""One server's share of the parameters (a `Shard`): the request handlers every parameter
server runs (and LocalPS runs in-process), including sync mode, where pushed gradients are
summed until every trainer has ended its step and then applied once, averaged.
"""
from __future__ import annotations

import glob
import os

import numpy as np

from .table import DenseTable, SparseTable, TableConfig, unique_sum


class Shard:
    """Tables and dense parameters of one server.

    Args:
        sync (bool): sync mode (apply at `apply_pending`) or async (apply each push).
        trainer_num (int): trainers whose pushes are averaged in sync mode.
        seed (int): seed of the row initializers (same on every server).
    """

    def __init__(self, sync: bool = False, trainer_num: int = 1, seed: int = 0,
                 index: int = 0, server_num: int = 1) -> None:
        self.sync, self.trainer_num, self.seed = sync, trainer_num, seed
        self.index, self.server_num = index, server_num
        self.load_dir = None   # fleet.init_server(dirname): tables and dense load from it
        self.tables: dict = {}
        self.dense: dict = {}
        self._pending_sparse: dict = {}
        self._pending_dense: dict = {}

    def create_tables(self, configs) -> None:
        for cfg in configs:
            cfg = TableConfig.from_any(cfg)
            old = self.tables.get(cfg.name)
            if old is None:
                self.tables[cfg.name] = SparseTable(cfg, self.seed)
                if self.load_dir:
                    self._load_table(cfg.name, self.load_dir)
            elif old.config != cfg:
                raise ValueError(f"create_tables: table {cfg.name!r} exists with "
                                 f"{old.config.to_dict()}, asked for {cfg.to_dict()}")

    def table(self, name: str) -> SparseTable:
        if name not in self.tables:
            raise KeyError(f"parameter server: no sparse table {name!r} (create_tables "
                           f"first); tables: {sorted(self.tables)}")
        return self.tables[name]

    def _dense(self, name: str) -> DenseTable:
        if name not in self.dense:
            raise KeyError(f"parameter server: no dense parameter {name!r} (init_dense "
                           f"first); dense: {sorted(self.dense)}")
        return self.dense[name]

    def pull_sparse(self, name: str, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
        return self.table(name).pull(ids, counts)

    def push_sparse(self, name: str, ids: np.ndarray, grads: np.ndarray) -> None:
        table = self.table(name)
        if grads.ndim != 2 or grads.shape != (len(ids), table.config.dim):
            raise ValueError(f"push_sparse: table {name!r} takes gradients of shape "
                             f"[{len(ids)}, {table.config.dim}], got {list(grads.shape)}")
        if self.sync:
            self._pending_sparse.setdefault(name, []).append((ids, grads))
        else:
            table.push(ids, grads)

    def init_dense(self, name: str, value: np.ndarray, optimizer) -> None:
        """First writer wins: every trainer may call it, all then read the same value."""
        old = self.dense.get(name)
        if old is None:
            self.dense[name] = DenseTable(name, value, optimizer)
            if self.load_dir:
                self._load_dense(name, self.load_dir)
        elif old.value.shape != np.shape(value):
            raise ValueError(f"init_dense: {name!r} exists with shape "
                             f"{list(old.value.shape)}, got {list(np.shape(value))}")

    def pull_dense(self, name: str) -> np.ndarray:
        return self._dense(name).value.copy()

    def push_dense(self, name: str, grad: np.ndarray) -> None:
        table = self._dense(name)
        if not self.sync:
            table.push(grad)
            return
        if grad.shape != table.value.shape:
            table.push(grad)   # raises the shape error
        acc = self._pending_dense.get(name)
        self._pending_dense[name] = grad.astype(np.float64) if acc is None else acc + grad

    def apply_pending(self) -> None:
        """Sync mode, after every trainer ended the step: apply the summed gradients
        divided by the number of trainers."""
        scale = 1.0 / self.trainer_num
        for name, parts in self._pending_sparse.items():
            ids = np.concatenate([p[0] for p in parts])
            grads = np.concatenate([p[1] for p in parts])
            uniq, summed = unique_sum(ids, grads.astype(np.float32, copy=False))
            self.tables[name].push(uniq, summed * np.float32(scale))
        for name, acc in self._pending_dense.items():
            self.dense[name].push(acc * scale)
        self._pending_sparse.clear()
        self._pending_dense.clear()

    def save(self, dirname: str) -> None:
        """Write this shard's rows of every table (with their optimizer state) and the
        dense parameters it holds to `dirname` (one .npz per table and shard)."""
        os.makedirs(dirname, exist_ok=True)
        for name, table in self.tables.items():
            np.savez(os.path.join(dirname, f"{name}.shard{self.index}.npz"), **table.state())
        for name, table in self.dense.items():
            np.savez(os.path.join(dirname, f"{name}.dense.npz"), value=table.value)

    def load(self, dirname: str) -> None:
        """Read what save wrote (by any number of servers): this shard keeps the rows whose
        id % server_num is its index, and the dense values of parameters it holds."""
        if not os.path.isdir(dirname):
            raise FileNotFoundError(f"load: no saved tables in {dirname!r}")
        for name in self.tables:
            self._load_table(name, dirname)
        for name in self.dense:
            self._load_dense(name, dirname)

    def _load_table(self, name: str, dirname: str) -> None:
        table = self.tables[name]
        for path in glob.glob(os.path.join(glob.escape(dirname), f"{name}.shard*.npz")):
            with np.load(path) as saved:
                mine = saved["ids"] % self.server_num == self.index
                table.restore({key: saved[key][mine] for key in saved.files})

    def _load_dense(self, name: str, dirname: str) -> None:
        path = os.path.join(dirname, f"{name}.dense.npz")
        if os.path.exists(path):
            with np.load(path) as saved:
                self.dense[name].value[...] = saved["value"]

    def handle(self, op: str, args: tuple):
        """Run request `op` (a method name) with `args`; what the servers dispatch to."""
        if op not in _OPS:
            raise ValueError(f"parameter server: unknown request {op!r}")
        return getattr(self, op)(*args)

    def stats(self) -> dict:
        return {name: len(t) for name, t in self.tables.items()}


_OPS = {"create_tables", "pull_sparse", "push_sparse", "init_dense", "pull_dense",
        "push_dense", "stats", "save", "load"}

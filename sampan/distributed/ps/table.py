"""The state of one parameter-server shard: sparse tables (rows created on first touch,
subject to the table's entry policy, each with its optimizer state) and dense parameters,
plus the sync-mode accumulation of pushed gradients. Pure NumPy; used in-process by LocalPS
and by every server rank. Imports nothing of sampan above this package.
"""
from __future__ import annotations

import numpy as np

from .entry import parse_entry
from .rules import INITIALIZERS, OPTIMIZERS, apply_rule, init_rows, state_names

_OPT_DEFAULTS = {"sgd": (), "adagrad": (1e-6,), "adam": (0.9, 0.999, 1e-8)}


def _check_tuple(what: str, value, table: dict, defaults: dict) -> tuple:
    if isinstance(value, str):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not value or value[0] not in table:
        raise ValueError(f"TableConfig: {what} must be a tuple starting with one of "
                         f"{sorted(table)}, got {value!r}")
    kind, args = value[0], tuple(value[1:])
    names = table[kind]
    extra = defaults.get(kind, ())
    if len(args) < len(names) - len(extra):
        raise ValueError(f"TableConfig: {what} {kind!r} takes ({', '.join(names)}), got "
                         f"{value!r}")
    args = args + extra[len(args) - (len(names) - len(extra)):]
    if len(args) != len(names) or not all(isinstance(a, (int, float)) and
                                          not isinstance(a, bool) for a in args):
        raise ValueError(f"TableConfig: {what} {kind!r} takes numbers ({', '.join(names)}), "
                         f"got {value!r}")
    return (kind,) + tuple(float(a) for a in args)


def check_optimizer(value) -> tuple:
    """A server optimizer tuple with defaults filled in: ("sgd", lr), ("adagrad", lr, eps),
    ("adam", lr, beta1, beta2, eps)."""
    return _check_tuple("optimizer", value, OPTIMIZERS, _OPT_DEFAULTS)


class TableConfig:
    """A sparse table held by the parameter servers (shard of id: id % server_num).

    Args:
        name (str): the table's name (in static programs, the embedding parameter's name).
        dim (int): row width.
        initializer (tuple): ("uniform", low, high), ("normal", mean, std) or
            ("constant", value). Default ("uniform", -0.01, 0.01). A row is a function of
            (table, id) only, whichever server creates it.
        optimizer (tuple): ("sgd", lr), ("adagrad", lr[, eps]) or
            ("adam", lr[, beta1, beta2, eps]), applied on the server. Default ("sgd", 0.01).
        entry: None (rows at first touch) or a CountFilterEntry / ProbabilityEntry /
            ShowClickEntry (or its string).

    Examples:
        >>> from sampan.distributed.ps.client import TableConfig
        >>> TableConfig("emb", 8, optimizer=("adagrad", 0.1)).to_dict()["optimizer"]
        ['adagrad', 0.1, 1e-06]
    """

    def __init__(self, name: str, dim: int, initializer=("uniform", -0.01, 0.01),
                 optimizer=("sgd", 0.01), entry=None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"TableConfig: name must be a non-empty str, got {name!r}")
        if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool) or dim < 1:
            raise ValueError(f"TableConfig: dim must be a positive int, got {dim!r}")
        self.name, self.dim = name, int(dim)
        self.initializer = _check_tuple("initializer", initializer, INITIALIZERS, {})
        self.optimizer = check_optimizer(optimizer)
        kind, _ = parse_entry(entry)
        self.entry = None if kind == "none" else (entry if isinstance(entry, str)
                                                  else entry._to_attr())

    def to_dict(self) -> dict:
        """JSON-ready form (what travels to the servers and sits in program attrs)."""
        return {"name": self.name, "dim": self.dim, "initializer": list(self.initializer),
                "optimizer": list(self.optimizer), "entry": self.entry}

    @classmethod
    def from_any(cls, value) -> "TableConfig":
        """A TableConfig from itself or its dict form."""
        if isinstance(value, cls):
            return value
        if isinstance(value, dict):
            return cls(**value)
        raise TypeError(f"create_tables: a table config must be a TableConfig or its dict, "
                        f"got {type(value).__name__}")

    def __eq__(self, other) -> bool:
        return isinstance(other, TableConfig) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return f"TableConfig({self.to_dict()})"


def unique_sum(ids: np.ndarray, grads: np.ndarray) -> tuple:
    """(unique ids, the gradient rows of each id summed)."""
    uniq, inv = np.unique(ids, return_inverse=True)
    if len(uniq) == len(ids):
        order = np.argsort(ids, kind="stable")
        return uniq, grads[order]
    out = np.zeros((len(uniq), grads.shape[1]), grads.dtype)
    np.add.at(out, inv.reshape(-1), grads)
    return uniq, out


class _Index:
    """id -> slot, vectorized: a large sorted run of ids plus a small sorted run of recent
    ones, merged into the large run when it grows past a quarter of it (amortized O(1)
    sorting work per new id; lookups are two binary searches per id)."""

    def __init__(self) -> None:
        empty = np.empty(0, np.int64)
        self._runs = [(empty, empty), (empty, empty)]

    def __len__(self) -> int:
        return sum(len(keys) for keys, _ in self._runs)

    def lookup(self, ids: np.ndarray) -> np.ndarray:
        """The slot of each id, -1 where it has none."""
        out = np.full(len(ids), -1, np.int64)
        for keys, slots in self._runs:
            if len(keys):
                pos = np.minimum(np.searchsorted(keys, ids), len(keys) - 1)
                hit = keys[pos] == ids
                out[hit] = slots[pos[hit]]
        return out

    def add(self, ids: np.ndarray, slots: np.ndarray) -> None:
        """Enter distinct new `ids` with their `slots`."""
        big, small = self._runs
        small = _merge(small, (ids, slots))
        if len(small[0]) > max(1024, len(big[0]) // 4):
            big, small = _merge(big, small), (small[0][:0], small[1][:0])
        self._runs = [big, small]


def _merge(a: tuple, b: tuple) -> tuple:
    keys = np.concatenate([a[0], b[0]])
    order = np.argsort(keys, kind="stable")
    return keys[order], np.concatenate([a[1], b[1]])[order]


class SparseTable:
    """Rows of one table on one shard: id -> slot in growing weight/state arrays."""

    def __init__(self, config: TableConfig, seed: int = 0) -> None:
        self.config, self.seed = config, seed
        self._entry = parse_entry(config.entry)
        self._index = _Index()
        self._seen: dict = {}
        self._rng = np.random.default_rng(seed)
        self._w = np.empty((0, config.dim), np.float32)
        self._state = {n: self._w.copy() for n in state_names(config.optimizer)}
        self._steps = np.zeros(0, np.int64)

    def __len__(self) -> int:
        return len(self._index)

    def _lookup(self, ids: np.ndarray) -> np.ndarray:
        return self._index.lookup(ids)

    def _admit(self, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
        kind, value = self._entry
        if kind == "count":
            seen = self._seen
            out = np.empty(len(ids), bool)
            for i, (k, c) in enumerate(zip(ids.tolist(), counts.tolist())):
                seen[k] = seen.get(k, 0) + c
                out[i] = seen[k] >= value
            for k in ids[out].tolist():
                del seen[k]
            return out
        if kind == "probability":   # each lookup admits with probability p
            return self._rng.random(len(ids)) < 1.0 - (1.0 - value) ** counts
        return np.ones(len(ids), bool)

    def _grow(self, extra: int) -> None:
        need = len(self._index) + extra
        if need <= len(self._w):
            return
        cap = max(need, 2 * len(self._w), 64)
        def bigger(a):
            b = np.zeros((cap,) + a.shape[1:], a.dtype)
            b[:len(a)] = a
            return b
        self._w = bigger(self._w)
        self._state = {n: bigger(a) for n, a in self._state.items()}
        self._steps = bigger(self._steps)

    def _create(self, ids: np.ndarray, slots: np.ndarray, which: np.ndarray) -> None:
        """Give ids[which] new rows (their initial values) and note their slots."""
        self._grow(len(which))
        start = len(self._index)
        new = np.arange(start, start + len(which))
        self._w[new] = init_rows(self.config.initializer, self.seed, self.config.name,
                                 ids[which], self.config.dim)
        self._index.add(ids[which], new)
        slots[which] = new

    def pull(self, ids: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Rows of the distinct `ids` (each looked up counts[i] times); new ids get rows as
        the entry policy admits them; ids without a row read as zeros."""
        slots = self._lookup(ids)
        missing = np.flatnonzero(slots < 0)
        if len(missing):
            admit = missing[self._admit(ids[missing], counts[missing])]
            if len(admit):
                self._create(ids, slots, admit)
        out = np.zeros((len(ids), self.config.dim), np.float32)
        have = slots >= 0
        out[have] = self._w[slots[have]]
        return out

    def state(self) -> dict:
        """Every row: {"ids", "rows", "steps", <optimizer state>} (what save writes)."""
        ids = np.concatenate([keys for keys, _ in self._index._runs])
        slots = np.concatenate([s for _, s in self._index._runs])
        out = {"ids": ids, "rows": self._w[slots], "steps": self._steps[slots]}
        out.update({f"state_{n}": a[slots] for n, a in self._state.items()})
        return out

    def restore(self, state: dict) -> None:
        """Set the rows in `state` (as state() gives), creating those that are missing."""
        ids = np.asarray(state["ids"], np.int64)
        if state["rows"].shape[1:] != (self.config.dim,):
            raise ValueError(f"load: table {self.config.name!r} has dim {self.config.dim}, "
                             f"the saved rows {list(state['rows'].shape[1:])}")
        slots = self._lookup(ids)
        missing = np.flatnonzero(slots < 0)
        if len(missing):
            self._create(ids, slots, missing)
        self._w[slots] = state["rows"]
        self._steps[slots] = state["steps"]
        for n, a in self._state.items():
            a[slots] = state[f"state_{n}"]

    def push(self, ids: np.ndarray, grads: np.ndarray) -> None:
        """Apply the optimizer rule to the rows of the distinct `ids`. A push touches too:
        without a filtering entry a missing row is created first; ids an entry has not
        admitted yet are skipped."""
        slots = self._lookup(ids)
        if self._entry[0] in ("none", "show_click"):
            missing = np.flatnonzero(slots < 0)
            if len(missing):
                self._create(ids, slots, missing)
        keep = slots >= 0
        slots, g = slots[keep], grads[keep].astype(np.float32, copy=False)
        if not len(slots):
            return
        w = self._w[slots]
        state = {n: a[slots] for n, a in self._state.items()}
        self._steps[slots] += 1
        apply_rule(self.config.optimizer, w, g, state, self._steps[slots][:, None])
        self._w[slots] = w
        for n, a in state.items():
            self._state[n][slots] = a


class DenseTable:
    """One dense parameter held by a server, with its optimizer state."""

    def __init__(self, name: str, value: np.ndarray, optimizer: tuple) -> None:
        self.name, self.optimizer = name, check_optimizer(optimizer)
        self.value = np.array(value, copy=True)
        self._state = {n: np.zeros_like(self.value) for n in state_names(self.optimizer)}
        self._step = 0

    def push(self, grad: np.ndarray) -> None:
        grad = np.asarray(grad)
        if grad.shape != self.value.shape:
            raise ValueError(f"push_dense: gradient of {self.name!r} has shape "
                             f"{list(grad.shape)}, the parameter {list(self.value.shape)}")
        self._step += 1
        apply_rule(self.optimizer, self.value, grad.astype(self.value.dtype, copy=False),
                   self._state, np.float64(self._step))

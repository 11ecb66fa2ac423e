"""paddle.distributed.InMemoryDataset and QueueDataset: read MultiSlot text files (one
sample per line; per used variable, in use_var order: a count followed by that many values)
into feeds for Executor.train_from_dataset. Dense slots only: each slot's count must equal
the variable's per-sample size (LoD / variable-length slots are not supported).
"""
from __future__ import annotations

import os
import subprocess

import numpy as np

from ..framework.random import next_seed, rng

__all__ = ["InMemoryDataset", "QueueDataset"]

_BASE_KEYS = {"batch_size": 1, "thread_num": 1, "use_var": None, "pipe_command": "cat",
              "input_type": 0, "fs_name": "", "fs_ugi": "", "download_cmd": "cat",
              "data_feed_type": "MultiSlotDataFeed"}
_MEMORY_KEYS = {"queue_num": -1, "merge_size": -1, "parse_ins_id": False,
                "parse_content": False, "fleet_send_batch_size": 1024,
                "fleet_send_sleep_seconds": 0, "fea_eval": False, "candidate_size": 10000}


class _DatasetBase:
    _keys = _BASE_KEYS

    def __init__(self) -> None:
        self._settings = {k: v for k, v in self._keys.items()}
        self._filelist: list = []

    def _configure(self, api: str, kwargs: dict) -> None:
        for key, value in kwargs.items():
            if key not in self._keys:
                raise ValueError(f"{type(self).__name__}.{api}: unknown setting {key!r} "
                                 f"(known: {sorted(self._keys)})")
            self._settings[key] = value
        if int(self._settings["batch_size"]) <= 0:
            raise ValueError(f"{type(self).__name__}.{api}: batch_size must be > 0, got "
                             f"{self._settings['batch_size']}")

    def init(self, **kwargs) -> None:
        """Set batch_size, thread_num, use_var (the feed Variables, in slot order),
        pipe_command (a shell filter each file goes through; "cat" reads it as is) ..."""
        self._configure("init", kwargs)

    def set_filelist(self, filelist: list) -> None:
        """The slot files to read."""
        missing = [f for f in filelist if not os.path.isfile(f)]
        if missing:
            raise FileNotFoundError(f"{type(self).__name__}.set_filelist: no such file(s) "
                                    f"{missing}")
        self._filelist = list(filelist)

    def _vars(self) -> list:
        use_var = self._settings["use_var"]
        if not use_var:
            raise ValueError(f"{type(self).__name__}: init(use_var=[...]) must name the feed "
                             "Variables before reading")
        return list(use_var)

    def _lines(self, path: str) -> list:
        cmd = self._settings["pipe_command"]
        if cmd in (None, "", "cat"):
            with open(path) as f:
                return f.read().splitlines()
        with open(path, "rb") as f:
            done = subprocess.run(cmd, shell=True, stdin=f, capture_output=True, check=False)
        if done.returncode:
            raise RuntimeError(f"{type(self).__name__}: pipe_command {cmd!r} failed on {path}: "
                               f"{done.stderr.decode(errors='replace').strip()}")
        return done.stdout.decode().splitlines()

    def _parse(self, path: str, lineno: int, line: str, variables: list) -> list:
        tokens, pos, sample = line.split(), 0, []
        for var in variables:
            size = int(np.prod([d for d in var.shape[1:]])) if len(var.shape) > 1 else 1
            if pos >= len(tokens):
                raise ValueError(f"{path}:{lineno}: slot {var.name!r} is missing")
            count = int(tokens[pos])
            if count != size:
                raise ValueError(f"{path}:{lineno}: slot {var.name!r} has {count} values, its "
                                 f"variable (shape {list(var.shape)}) takes {size}")
            vals = tokens[pos + 1:pos + 1 + count]
            sample.append(np.asarray(vals, dtype=var.dtype.np))
            pos += 1 + count
        if pos != len(tokens):
            raise ValueError(f"{path}:{lineno}: {len(tokens) - pos} values after the last slot")
        return sample

    def _samples(self):
        variables = self._vars()
        for path in self._filelist:
            for i, line in enumerate(self._lines(path), 1):
                if line.strip():
                    yield self._parse(path, i, line, variables)

    def _batch(self, samples: list) -> dict:
        feed = {}
        for k, var in enumerate(self._vars()):
            shape = [len(samples)] + [d for d in var.shape[1:]]
            feed[var.name] = np.stack([s[k] for s in samples]).reshape(shape)
        return feed

    def _group(self, samples):
        size, buf = int(self._settings["batch_size"]), []
        for s in samples:
            buf.append(s)
            if len(buf) == size:
                yield self._batch(buf)
                buf = []
        if buf:
            yield self._batch(buf)


class QueueDataset(_DatasetBase):
    """Streams the slot files batch by batch (no loading into memory, no shuffle).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distributed.fleet_dataset import QueueDataset
        >>> dataset = QueueDataset()
        >>> dataset.init(batch_size=2, thread_num=1, pipe_command="cat")
    """

    def _batches(self):
        return self._group(self._samples())


class InMemoryDataset(_DatasetBase):
    """Loads the slot files into memory (load_into_memory), can shuffle them
    (local_shuffle / global_shuffle, one process here) and yields batches from memory.

    Examples:
        >>> from sampan.distributed.fleet_dataset import InMemoryDataset
        >>> dataset = InMemoryDataset()
        >>> dataset.init(batch_size=2, thread_num=1, pipe_command="cat")
        >>> dataset.get_memory_data_size()
        0
    """

    _keys = {**_BASE_KEYS, **_MEMORY_KEYS}

    def __init__(self) -> None:
        super().__init__()
        self._memory: list = []
        self._shuffled = 0

    def update_settings(self, **kwargs) -> None:
        """Change settings given to init()."""
        self._configure("update_settings", kwargs)

    def load_into_memory(self, is_shuffle: bool = False) -> None:
        """Read every file of the filelist into memory."""
        self._memory = list(self._samples())
        if is_shuffle:
            self.local_shuffle()

    def preload_into_memory(self, thread_num=None) -> None:
        """Start loading (synchronous here; wait_preload_done returns at once)."""
        self.load_into_memory()

    def wait_preload_done(self) -> None:
        """Loading is synchronous: nothing to wait for."""

    def local_shuffle(self) -> None:
        """Shuffle the samples in memory (paddle.seed makes it repeatable)."""
        order = rng(next_seed()).permutation(len(self._memory))
        self._memory = [self._memory[i] for i in order]
        self._shuffled = len(self._memory)

    def global_shuffle(self, fleet=None, thread_num: int = 12) -> None:
        """Shuffle across trainers; with one process it is a local shuffle."""
        self.local_shuffle()

    def release_memory(self) -> None:
        """Drop the loaded samples."""
        self._memory, self._shuffled = [], 0

    def get_memory_data_size(self, fleet=None) -> int:
        """Number of samples in memory."""
        return len(self._memory)

    def get_shuffle_data_size(self, fleet=None) -> int:
        """Number of samples shuffled by the last shuffle."""
        return self._shuffled

    def slots_shuffle(self, slots) -> None:
        """Shuffle the values of the named slots across samples (feature importance tests)."""
        names = [v.name for v in self._vars()]
        for slot in slots:
            if slot not in names:
                raise ValueError(f"InMemoryDataset.slots_shuffle: unknown slot {slot!r}, "
                                 f"slots are {names}")
            k = names.index(slot)
            order = rng(next_seed()).permutation(len(self._memory))
            column = [self._memory[i][k] for i in order]
            for s, v in zip(self._memory, column):
                s[k] = v

    def _batches(self):
        return self._group(iter(self._memory))

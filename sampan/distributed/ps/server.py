"""A parameter-server rank's loop: receive the trainers' requests over MPI (channel.py),
run them on this server's Shard, reply. Barriers and sync-mode steps complete once every
trainer that has not stopped joined them; the loop ends when every trainer called
stop_worker. Every wait has a deadline (a silent trainer becomes a TimeoutError).
"""
from __future__ import annotations

import time

import numpy as np

from .channel import REPLY, REQUEST
from .client import dense_server
from .shard import Shard

_PUSHES = ("push_sparse", "push_dense")


class PSServer:
    """Server `index` of `server_num` (MPI ranks 0..server_num-1) for `trainer_num`
    trainers (MPI ranks server_num..)."""

    def __init__(self, channel, index: int, server_num: int, trainer_num: int,
                 sync: bool, seed: int = 0) -> None:
        self.channel, self.index = channel, index
        self.server_num, self.trainer_num = server_num, trainer_num
        self.shard = Shard(sync, trainer_num, seed, index, server_num)
        self.dense_optimizer = ("sgd", 0.01)
        self._stopped: set = set()
        self._waiting = {"step": [], "barrier": []}
        self._since = {"step": None, "barrier": None}
        self._deferred: dict = {}

    def load(self, config: dict, dense: dict) -> None:
        """Tables and dense values of a server program (listen_and_serv's attrs/inputs);
        this server keeps the dense parameters that hash to it."""
        self.shard.create_tables(config.get("tables", ()))
        rule = config.get("dense_optimizer") or self.dense_optimizer
        for name, value in dense.items():
            if dense_server(name, self.server_num) == self.index:
                self.shard.init_dense(name, np.asarray(value), rule)

    def serve_program(self, config: dict, dense: dict) -> None:
        """The loop listen_and_serv enters (ops.ps.set_ps_server)."""
        self.load(config, dense)
        self.run()

    def run(self) -> None:
        """Serve until every trainer has stopped."""
        who = f"parameter server {self.index}"
        while len(self._stopped) < self.trainer_num:
            try:
                source, (op, args) = self.channel.recv_any(REQUEST, "waiting for requests")
            except TimeoutError as exc:
                live = sorted(set(range(self.trainer_num)) - self._stopped)
                raise TimeoutError(f"{who}: no request from any trainer within "
                                   f"{self.channel.timeout:g} s; trainers {live} have not "
                                   f"called fleet.stop_worker()") from exc
            self._serve(source, op, args)
            self._check_waits()
        self.channel.flush(f"{who} shutting down")

    def _reply(self, source: int, value) -> None:
        if source in self._deferred:
            self.channel.send(("err", self._deferred.pop(source)), source, REPLY)
        else:
            self.channel.send(("ok", value), source, REPLY)

    def _serve(self, source: int, op: str, args: tuple) -> None:
        if op in self._waiting:
            self._join(op, source)
        elif op == "stop":
            self._stopped.add(source - self.server_num)
            self._reply(source, None)
            for kind in self._waiting:
                self._release(kind)
        elif op in _PUSHES:   # not answered: an error waits for the trainer's next reply
            try:
                self.shard.handle(op, args)
            except Exception as exc:  # noqa: BLE001 - reported to the trainer
                self._deferred.setdefault(source, f"{op}: {type(exc).__name__}: {exc}")
        else:
            try:
                result = self.shard.handle(op, args)
            except Exception as exc:  # noqa: BLE001 - reported to the trainer
                self.channel.send(("err", f"{type(exc).__name__}: {exc}"), source, REPLY)
                return
            self._reply(source, result)

    def _join(self, kind: str, source: int) -> None:
        if kind == "step" and not self.shard.sync:
            self._reply(source, None)
            return
        if not self._waiting[kind]:
            self._since[kind] = time.monotonic()
        self._waiting[kind].append(source)
        self._release(kind)

    def _release(self, kind: str) -> None:
        """Complete a barrier/step once every trainer still running joined it."""
        waiting = self._waiting[kind]
        if not waiting or len(waiting) < self.trainer_num - len(self._stopped):
            return
        if kind == "step":
            self.shard.apply_pending()
        for source in waiting:
            self._reply(source, None)
        waiting.clear()

    def _check_waits(self) -> None:
        for kind, waiting in self._waiting.items():
            if waiting and time.monotonic() - self._since[kind] > self.channel.timeout:
                joined = {s - self.server_num for s in waiting}
                missing = sorted(set(range(self.trainer_num)) - joined - self._stopped)
                raise TimeoutError(f"parameter server {self.index}: trainers {missing} did "
                                   f"not reach {kind} within {self.channel.timeout:g} s")

"""The heterogeneous parameter server's transports: how a trainer's `send_and_recv` op
reaches the heter worker serving its section (Executor.start_heter_trainer) and how the
answer comes back. `LocalHeter` is in-process (threads: tests, single-machine runs);
`MPIHeterClient` / `MPIHeterServer` go over MPI (channel.py). Every wait has a deadline: a
worker that does not answer, or trainers that never stop, become a TimeoutError naming them.
"""
from __future__ import annotations

import os
import queue
import threading

from ...framework.place import is_compiled_with_cuda
from ...ops import heter as heter_ops
from .channel import Channel

__all__ = ["LocalHeter", "MPIHeterClient", "MPIHeterServer", "HETER_REQUEST", "HETER_REPLY"]

HETER_REQUEST, HETER_REPLY = 7311, 7312


def _answer(who: str, reply):
    status, value = reply
    if status != "ok":
        raise RuntimeError(f"{who}: {value}")
    return value


class LocalHeter:
    """One heter worker and `trainer_num` trainers in one process (threads). `enter()`
    makes it this process's heter client and server; trainers call `stop_worker(rank)` when
    done, and the worker's start_heter_trainer returns once all of them did.

    Args:
        trainer_num (int): how many trainers the worker waits for.
        timeout (float): seconds any wait may take.
    """

    def __init__(self, trainer_num: int = 1, timeout: float = 60.0) -> None:
        if isinstance(trainer_num, bool) or not isinstance(trainer_num, int) \
                or trainer_num < 1:
            raise ValueError(f"LocalHeter: trainer_num must be a positive int, got "
                             f"{trainer_num!r}")
        self.trainer_num = trainer_num
        self.timeout = float(timeout)
        self._requests: queue.Queue = queue.Queue()
        self._lock = threading.Lock()
        self._stopped: set = set()

    def enter(self) -> "LocalHeter":
        heter_ops.set_heter_client(self)
        heter_ops.set_heter_server(self)
        return self

    # --- the trainers' side -----------------------------------------------------------
    def _call(self, request, what: str):
        reply_box: queue.Queue = queue.Queue(maxsize=1)
        self._requests.put((reply_box, request))
        try:
            return reply_box.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(f"heter trainer: {what} got no answer from the heter worker "
                               f"within {self.timeout:g} s (is start_heter_trainer "
                               f"running?)") from None

    def send_and_recv(self, message_name: str, feed: dict, names: list) -> list:
        """Run section `message_name` on the worker with `feed`; the values of `names`."""
        reply = self._call(("run", message_name, feed, list(names)), "send_and_recv")
        return _answer("send_and_recv", reply)

    def stop_worker(self, rank: int = 0) -> None:
        """Trainer `rank` is done (the worker stops once every trainer is)."""
        with self._lock:
            if rank in self._stopped:
                return
            self._stopped.add(rank)
        _answer("stop_worker", self._call(("stop", rank), "stop_worker"))

    # --- the worker's side ------------------------------------------------------------
    def recv(self) -> tuple:
        """(reply box, request) of the next request."""
        try:
            return self._requests.get(timeout=self.timeout)
        except queue.Empty:
            raise TimeoutError(f"heter worker: no request from any trainer within "
                               f"{self.timeout:g} s; trainers "
                               f"{sorted(set(range(self.trainer_num)) - self._stopped)} have "
                               f"not called stop_worker()") from None

    def reply(self, source, status: str, value) -> None:
        source.put((status, value))


class MPIHeterClient:
    """A trainer's heter client over MPI: requests go to MPI rank `worker_rank`."""

    def __init__(self, comm, worker_rank: int, rank: int, timeout: float) -> None:
        self.channel = Channel(comm, f"heter trainer {rank}", timeout)
        self.worker_rank, self.rank = worker_rank, rank
        self._stopped = False

    def send_and_recv(self, message_name: str, feed: dict, names: list) -> list:
        self.channel.send(("run", message_name, feed, list(names)), self.worker_rank,
                          HETER_REQUEST)
        reply = self.channel.recv(self.worker_rank, HETER_REPLY,
                                  f"send_and_recv to heter worker rank {self.worker_rank}")
        return _answer("send_and_recv", reply)

    def stop_worker(self, rank: int | None = None) -> None:
        if self._stopped:
            return
        self._stopped = True
        self.channel.send(("stop", self.rank), self.worker_rank, HETER_REQUEST)
        _answer("stop_worker", self.channel.recv(self.worker_rank, HETER_REPLY,
                                                 "stop_worker at the heter worker"))
        self.channel.flush("stop_worker")


class MPIHeterServer:
    """A heter worker's server over MPI: requests from any rank, answers to the sender."""

    def __init__(self, comm, trainer_num: int, timeout: float) -> None:
        self.channel = Channel(comm, "heter worker", timeout)
        self.trainer_num = trainer_num

    def recv(self) -> tuple:
        return self.channel.recv_any(HETER_REQUEST, "waiting for trainers' requests")

    def reply(self, source: int, status: str, value) -> None:
        self.channel.send((status, value), source, HETER_REPLY)


def trainers_of(worker: int, trainer_num: int, heter_num: int) -> list:
    """The trainers heter worker `worker` serves (trainer t goes to worker t % heter_num)."""
    return [t for t in range(trainer_num) if t % heter_num == worker]


def _one_heter_worker(api: str, role) -> None:
    # NOTE: a heter worker keeps its section's parameters itself; several workers would
    # train diverging copies (Paddle keeps them on the servers), so one is allowed
    if role._heter_worker_num() != 1:
        raise ValueError(f"{api}: the job has {role._heter_worker_num()} heter workers; "
                         f"sampan's heterogeneous PS runs exactly one (it holds the heter "
                         f"section's parameters), start it with --heter_worker_num 1")


def enter_trainer(world, role, timeout: float) -> MPIHeterClient:
    """A launched trainer's heter client (to MPI rank servers + trainers + t % heter_num),
    entered for its send_and_recv ops."""
    _one_heter_worker("fleet.init_worker", role)
    heter_num = role._heter_worker_num()
    worker = role._worker_index() % heter_num
    client = MPIHeterClient(world, role._server_num() + role._worker_num() + worker,
                            role._worker_index(), timeout)
    heter_ops.set_heter_client(client)
    return client


def enter_worker(world, role, timeout: float) -> MPIHeterServer:
    """A launched heter worker's server, entered for start_heter_trainer."""
    _one_heter_worker("fleet.init_server", role)
    served = trainers_of(role._role_id(), role._worker_num(), role._heter_worker_num())
    if not served:
        raise ValueError(f"heter worker {role._role_id()}: no trainer to serve (the job has "
                         f"{role._worker_num()} trainers for {role._heter_worker_num()} heter "
                         f"workers)")
    server = MPIHeterServer(world, len(served), timeout)
    heter_ops.set_heter_server(server)
    return server


def stop_trainer() -> None:
    """fleet.stop_worker on a trainer: tell its heter worker (if any) it is done."""
    client = heter_ops._RUNTIME["client"]
    if isinstance(client, MPIHeterClient):
        client.stop_worker()
        heter_ops.set_heter_client(None)


def worker_place(role):
    """The place a launched heter worker computes on: its GPU (FLAGS_selected_gpus) when
    HETER_DEVICE_TYPE is gpu and a GPU is usable, else the current device (as Paddle's
    heter worker Executor)."""
    if role._heter_device_type() == "gpu" and is_compiled_with_cuda():
        return f"gpu:{int(os.environ.get('FLAGS_selected_gpus', '0').split(',')[0])}"
    return None

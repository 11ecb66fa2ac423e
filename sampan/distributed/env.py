"""Process groups and the parallel environment: init_parallel_env, ParallelEnv, Group,
new_group/get_group/destroy_process_group, get_rank/get_world_size/is_initialized.

Each group's MpiComm is entered in the collective OpDefs' communicator table
(`sampan.ops.collective`) under the group id, which the ops carry as `ring_id`.
"""
from __future__ import annotations

import faulthandler
import os
import sys

from ..ops import collective as _coll
from .comm import DEFAULT_TIMEOUT, MpiComm, mpi
from .status import status_path

_STATE = {"initialized": False, "next_id": 1, "timeout": DEFAULT_TIMEOUT}
_GROUPS: dict = {}


def _env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


class ParallelEnv:
    """The trainer environment the launcher sets (PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM,
    PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT, PADDLE_RANK_IN_NODE).

    Examples:
        >>> import sampan as paddle
        >>> env = paddle.distributed.ParallelEnv()
        >>> (env.rank, env.world_size) if env.world_size == 1 else (0, 1)
        (0, 1)
    """

    def __init__(self) -> None:
        self._rank = _env_int("PADDLE_TRAINER_ID", 0)
        self._world_size = _env_int("PADDLE_TRAINERS_NUM", 1)
        self._local_rank = _env_int("PADDLE_RANK_IN_NODE", self._rank)
        eps = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "")
        self._trainer_endpoints = [e for e in eps.split(",") if e]
        self._current_endpoint = os.environ.get("PADDLE_CURRENT_ENDPOINT", "")
        self._device_id = _env_int("FLAGS_selected_gpus", 0)

    rank = property(lambda self: self._rank, doc="This trainer's rank.")
    world_size = property(lambda self: self._world_size, doc="Number of trainers.")
    local_rank = property(lambda self: self._local_rank, doc="Rank on this node.")
    nranks = world_size
    device_id = property(lambda self: self._device_id)
    dev_id = device_id
    current_endpoint = property(lambda self: self._current_endpoint)
    trainer_endpoints = property(lambda self: list(self._trainer_endpoints))
    nrings = property(lambda self: 1)


class Group:
    """A process group: `rank` (this process's rank in it, -1 if not a member), `nranks`,
    `id` and `ranks` (global ranks of the members)."""

    def __init__(self, rank: int, nranks: int, gid: int, ranks: list, comm=None) -> None:
        self.rank, self.nranks, self.id, self.ranks = rank, nranks, gid, list(ranks)
        self.comm = comm

    world_size = property(lambda self: self.nranks)

    def is_member(self) -> bool:
        return self.rank >= 0

    def get_group_rank(self, rank: int) -> int:
        return self.ranks.index(rank) if rank in self.ranks else -1

    def __repr__(self) -> str:
        return f"rank: {self.rank}, nranks: {self.nranks}, id: {self.id}, ranks: {self.ranks}"


def _init_mpi_with_watchdog(timeout: float):
    """Import (and so initialise) MPI. MPI_Init waits for every rank while holding the GIL,
    so the watchdog is faulthandler's C thread: past `timeout` it writes the stack to the
    rank's `watchdog` status file (stderr outside the launcher) and exits the process."""
    path = status_path("watchdog")
    out = open(path, "w") if path else sys.stderr
    out.write(f"TimeoutError: paddle.distributed.init_parallel_env: rank "
              f"{os.environ.get('PADDLE_TRAINER_ID', '?')} could not start MPI within "
              f"{timeout:g} s; another rank has not called init_parallel_env\n")
    out.flush()
    faulthandler.dump_traceback_later(timeout, exit=True, file=out)
    try:
        return mpi()
    finally:
        faulthandler.cancel_dump_traceback_later()
        if path:
            out.close()
            os.unlink(path)


def init_parallel_env(nccl_config=None, timeout: float | None = None) -> Group:
    """Start the collective environment of the ranks the launcher started (a no-op group of
    one process otherwise). Every rank must call it; a rank that never joins makes the
    others raise within `timeout` seconds. Returns the global Group.

    Args:
        nccl_config: accepted for Paddle compatibility and ignored (the backend is MPI).
        timeout (float, optional): seconds any collective may wait for the other ranks
            (sampan extension). Default: SAMPAN_DIST_TIMEOUT or 300.

    Examples:
        >>> import sampan as paddle
        >>> group = paddle.distributed.init_parallel_env()
        >>> group.nranks == paddle.distributed.get_world_size()
        True
    """
    if timeout is not None:
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValueError(f"init_parallel_env: timeout must be a positive number of "
                             f"seconds, got {timeout!r}")
        _STATE["timeout"] = float(timeout)
    if _STATE["initialized"]:
        return _GROUPS[0]
    env = ParallelEnv()
    if env.world_size > 1 or _env_int("PMI_SIZE", 1) > 1:
        MPI = _init_mpi_with_watchdog(_STATE["timeout"])
        comm = MpiComm(MPI.COMM_WORLD, 0, _STATE["timeout"])
        if env.world_size > 1 and comm.nranks != env.world_size:
            raise RuntimeError(f"init_parallel_env: PADDLE_TRAINERS_NUM is {env.world_size} "
                               f"but MPI started {comm.nranks} processes")
        _coll.set_comm(0, comm)
        comm.barrier()  # every rank has joined, or TimeoutError naming this rank
    comm = _coll.get_comm("init_parallel_env", 0)
    _GROUPS[0] = Group(comm.rank, comm.nranks, 0, range(comm.nranks), comm)
    _STATE["initialized"] = True
    return _GROUPS[0]


def is_initialized() -> bool:
    """Whether init_parallel_env has run (and the default group not been destroyed)."""
    return _STATE["initialized"]


def _group(api: str, group) -> Group:
    if group is None:
        if not _STATE["initialized"]:
            comm = _coll.get_comm(api, 0)
            return Group(comm.rank, comm.nranks, 0, range(comm.nranks), comm)
        return _GROUPS[0]
    if not isinstance(group, Group):
        raise TypeError(f"{api}: group must be a paddle.distributed Group or None, got "
                        f"{type(group).__name__}")
    if group.id not in _GROUPS:
        raise ValueError(f"{api}: group {group.id} has been destroyed")
    return group


def get_rank(group=None) -> int:
    """This process's rank in `group` (default: all processes); before init_parallel_env,
    PADDLE_TRAINER_ID."""
    if group is None and not _STATE["initialized"]:
        return ParallelEnv().rank
    return _group("get_rank", group).rank


def get_world_size(group=None) -> int:
    """Number of processes in `group`; before init_parallel_env, PADDLE_TRAINERS_NUM."""
    if group is None and not _STATE["initialized"]:
        return ParallelEnv().world_size
    return _group("get_world_size", group).nranks


def new_group(ranks=None, backend=None, timeout=None) -> Group:
    """A new group of the global `ranks` (default all). Every rank must call it, members or
    not, in the same order.

    Args:
        ranks (list[int], optional): global ranks of the members.
        backend (str, optional): ignored ('mpi' is the only backend).
        timeout (float, optional): seconds its collectives may wait. Default: the global one.
    """
    world = _group("new_group", None)
    ranks = list(range(world.nranks)) if ranks is None else [int(r) for r in ranks]
    bad = [r for r in ranks if not 0 <= r < world.nranks]
    if bad or len(set(ranks)) != len(ranks) or not ranks:
        raise ValueError(f"new_group: ranks must be distinct ranks in [0, {world.nranks}), "
                         f"got {ranks}")
    gid = _STATE["next_id"]
    _STATE["next_id"] += 1
    member = world.rank in ranks
    limit = _STATE["timeout"] if timeout is None else float(timeout)
    comm = None
    if isinstance(world.comm, MpiComm):
        MPI = mpi()
        sub = world.comm.comm.Split(0 if member else MPI.UNDEFINED,
                                    ranks.index(world.rank) if member else 0)
        comm = MpiComm(sub, gid, limit) if member else None
    elif member:
        comm = _coll.LocalComm()
    if comm is not None:
        _coll.set_comm(gid, comm)
    group = Group(ranks.index(world.rank) if member else -1, len(ranks), gid, ranks, comm)
    _GROUPS[gid] = group
    return group


def get_group(id: int = 0) -> Group:  # noqa: A002 (Paddle's argument name)
    """The group with this id (0: the global group)."""
    if id == 0:
        return _group("get_group", None)
    if id not in _GROUPS:
        raise ValueError(f"get_group: no group with id {id}")
    return _GROUPS[id]


def destroy_process_group(group=None) -> None:
    """Destroy `group`, or every group (and the parallel environment) when None."""
    ids = list(_GROUPS) if group is None else [_group("destroy_process_group", group).id]
    for gid in ids:
        g = _GROUPS.pop(gid)
        if gid != 0 and g.comm is not None and isinstance(g.comm, MpiComm):
            g.comm.comm.Free()
        _coll.set_comm(gid, None)
    if group is None or 0 in ids:
        _STATE["initialized"] = False

"""fleet.util: small collectives between the processes of a fleet job (trainers, servers or
all of them) on NumPy values, and the file split of a trainer's data."""
from __future__ import annotations

import numpy as np

_WORLDS = ("worker", "server", "all")


class UtilBase:
    """`fleet.util`: all_reduce / all_gather / barrier over `comm_world` ('worker',
    'server' or 'all') and get_file_shard. In a job without MPI they act on this process
    alone.

    Examples:
        >>> import sampan.distributed.fleet as fleet
        >>> fleet.init(is_collective=False)
        >>> fleet.util.all_reduce([1.0, 2.0], mode="sum").tolist()
        [1.0, 2.0]
        >>> fleet.util.get_file_shard(["a", "b", "c"])
        ['a', 'b', 'c']
    """

    def __init__(self, fleet) -> None:
        self._fleet = fleet

    def _comm(self, api: str, comm_world: str):
        if comm_world not in _WORLDS:
            raise ValueError(f"fleet.util.{api}: comm_world must be one of {_WORLDS}, got "
                             f"{comm_world!r}")
        return self._fleet._comm_of(api, comm_world)

    def all_reduce(self, input, mode: str = "sum", comm_world: str = "worker"):
        """The elementwise sum / min / max of `input` over the processes (a NumPy array)."""
        if mode not in ("sum", "min", "max"):
            raise ValueError(f"fleet.util.all_reduce: mode must be 'sum', 'min' or 'max', "
                             f"got {mode!r}")
        comm = self._comm("all_reduce", comm_world)
        value = np.asarray(input)
        return value.copy() if comm is None else comm.all_reduce(value, mode)

    def all_gather(self, input, comm_world: str = "worker") -> list:
        """Every process's `input`, in rank order."""
        comm = self._comm("all_gather", comm_world)
        if comm is None:
            return [input]
        value = np.asarray(input)
        out = comm.all_gather(np.atleast_1d(value).copy())
        return (out[:, 0] if value.ndim == 0 else out).tolist()

    def barrier(self, comm_world: str = "worker") -> None:
        """Wait for every process of `comm_world` (within the timeout)."""
        comm = self._comm("barrier", comm_world)
        if comm is not None:
            comm.barrier()

    def get_file_shard(self, files: list) -> list:
        """This trainer's contiguous share of `files` (the first len % n trainers get one
        more), as Paddle splits them."""
        if not isinstance(files, list):
            raise TypeError(f"fleet.util.get_file_shard: files must be a list, got "
                            f"{type(files).__name__}")
        n, k = self._fleet.worker_num(), max(self._fleet.worker_index(), 0)
        base, extra = divmod(len(files), n)
        start = k * base + min(k, extra)
        return files[start:start + base + (1 if k < extra else 0)]

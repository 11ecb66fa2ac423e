"""paddle.distributed over MPI (mpi4py): process groups, collectives (OpDefs in
sampan.ops.collective), DataParallel, spawn and the launcher (`python -m
sampan.distributed.launch`). mpi4py is imported only when several ranks run.
"""
from .collective import *  # noqa: F401,F403
from .collective import __all__ as _coll_all
from . import io  # noqa: F401  (paddle.distributed.io)
from .checkpoint import load_state_dict, save_state_dict  # noqa: F401
from .fleet_dataset import InMemoryDataset, QueueDataset  # noqa: F401
from .env import (Group, ParallelEnv, destroy_process_group, get_group, get_rank,  # noqa: F401
                  get_world_size, init_parallel_env, is_initialized, new_group)
from .more import *  # noqa: F401,F403
from .auto_parallel import *  # noqa: F401,F403  (semi-automatic parallelism)
from .auto_parallel import __all__ as _auto_all
from .more import __all__ as _more_all
from .parallel import DataParallel  # noqa: F401
from .ps.entry import CountFilterEntry, ProbabilityEntry, ShowClickEntry  # noqa: F401
from .spawn import spawn  # noqa: F401
from .split import split  # noqa: F401

__all__ = list(_coll_all) + ["Group", "ParallelEnv", "destroy_process_group", "get_group",
                             "get_rank", "get_world_size", "init_parallel_env",
                             "is_initialized", "new_group", "DataParallel", "spawn", "split",
                             "InMemoryDataset", "QueueDataset", "io", "launch",
                             "save_state_dict", "load_state_dict", "CountFilterEntry",
                             "ProbabilityEntry", "ShowClickEntry"] + list(_more_all) \
    + list(_auto_all)


def __getattr__(name: str):
    """`paddle.distributed.launch` (the launcher module), imported on first use so that
    `python -m sampan.distributed.launch` does not find it imported already."""
    if name in ("launch", "fleet"):   # paddle.distributed.fleet too, imported on first use
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

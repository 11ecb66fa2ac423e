"""paddle.distributed over MPI (mpi4py): process groups, collectives (OpDefs in
sampan.ops.collective), DataParallel, spawn and the launcher (`python -m
sampan.distributed.launch`). mpi4py is imported only when several ranks run.
"""
from .collective import *  # noqa: F401,F403
from .collective import __all__ as _coll_all
from .fleet_dataset import InMemoryDataset, QueueDataset  # noqa: F401
from .env import (Group, ParallelEnv, destroy_process_group, get_group, get_rank,  # noqa: F401
                  get_world_size, init_parallel_env, is_initialized, new_group)
from .parallel import DataParallel  # noqa: F401
from .spawn import spawn  # noqa: F401
from .split import split  # noqa: F401

__all__ = list(_coll_all) + ["Group", "ParallelEnv", "destroy_process_group", "get_group",
                             "get_rank", "get_world_size", "init_parallel_env",
                             "is_initialized", "new_group", "DataParallel", "spawn", "split",
                             "InMemoryDataset", "QueueDataset"]

"""paddle.distributed.fleet: one API for collective (DataParallel over MPI) and
parameter-server training (sampan.distributed.ps), driven by role makers and a
DistributedStrategy. The functions are methods of the process's one Fleet object.
"""
from ..fleet_dataset import InMemoryDataset, QueueDataset  # noqa: F401
from .data_generator import MultiSlotDataGenerator, MultiSlotStringDataGenerator  # noqa: F401
from .fleet_base import Fleet, fleet
from .ps_dygraph import DistributedEmbedding, PSOptimizer  # noqa: F401
from .role_maker import PaddleCloudRoleMaker, Role, UserDefinedRoleMaker  # noqa: F401
from .strategy import DistributedStrategy  # noqa: F401
from .util_base import UtilBase  # noqa: F401

init = fleet.init
is_worker = fleet.is_worker
is_server = fleet.is_server
is_first_worker = fleet.is_first_worker
worker_index = fleet.worker_index
worker_num = fleet.worker_num
server_index = fleet.server_index
server_num = fleet.server_num
worker_endpoints = fleet.worker_endpoints
server_endpoints = fleet.server_endpoints
barrier_worker = fleet.barrier_worker
init_worker = fleet.init_worker
stop_worker = fleet.stop_worker
init_server = fleet.init_server
run_server = fleet.run_server
distributed_optimizer = fleet.distributed_optimizer
distributed_model = fleet.distributed_model
util = fleet.util
save_persistables = fleet.save_persistables
load_model = fleet.load_model

__all__ = ["Fleet", "fleet", "init", "is_worker", "is_server", "is_first_worker",
           "worker_index", "worker_num", "server_index", "server_num", "worker_endpoints",
           "server_endpoints", "barrier_worker", "init_worker", "stop_worker", "init_server",
           "run_server", "distributed_optimizer", "distributed_model", "util",
           "save_persistables", "load_model", "DistributedStrategy",
           "PaddleCloudRoleMaker", "UserDefinedRoleMaker", "Role", "DistributedEmbedding",
           "InMemoryDataset", "QueueDataset", "MultiSlotDataGenerator",
           "MultiSlotStringDataGenerator"]

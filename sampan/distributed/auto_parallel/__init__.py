"""Semi-automatic parallelism (paddle.distributed's auto-parallel names): ProcessMesh,
placements, distributed tensors (shard_tensor, reshard, dtensor_from_fn), shard_layer,
shard_optimizer, Strategy and to_static. A distributed tensor holds this rank's piece; see
api.py for the model. Imports tensor, nn, jit and distributed."""
from .api import dtensor_from_fn, reshard, shard_layer, shard_tensor
from .model import DistModel, Strategy, shard_optimizer, to_static
from .placement import DistAttr, Partial, Placement, ReduceType, Replicate, Shard
from .process_mesh import ProcessMesh

__all__ = ["ProcessMesh", "Placement", "Shard", "Replicate", "Partial", "ReduceType",
           "DistAttr", "shard_tensor", "dtensor_from_fn", "reshard", "shard_layer",
           "shard_optimizer", "Strategy", "to_static", "DistModel"]

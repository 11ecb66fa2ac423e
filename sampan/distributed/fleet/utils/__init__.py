"""paddle.distributed.fleet.utils: recompute (activation recomputation) and the
hybrid_parallel_util helpers (fused_allreduce_gradients)."""
from . import hybrid_parallel_util  # noqa: F401
from .recompute import recompute

__all__ = ["recompute"]

"""fleet.utils.hybrid_parallel_util: fused_allreduce_gradients, the gradient all-reduce a
data-parallel model skips under `no_sync()` (e.g. with recompute) and the user then runs."""
from __future__ import annotations

from ....autograd import no_grad
from ... import collective, env

__all__ = ["fused_allreduce_gradients"]


def fused_allreduce_gradients(parameter_list, hcg) -> None:
    """Average the gradients of `parameter_list` over the data-parallel group (`hcg`'s, or
    all processes when hcg is None): each .grad becomes the mean of the ranks' grads.

    Args:
        parameter_list (list[Tensor]): the parameters whose .grad to reduce.
        hcg (HybridCommunicateGroup|None): its data-parallel group is used; None: all ranks.
    """
    group = hcg.get_data_parallel_group() if hcg is not None else None
    n = env.get_world_size(group)
    if n <= 1:
        return
    with no_grad():
        for p in parameter_list:
            if p.grad is not None:
                collective.all_reduce(p.grad, group=group)
                p.grad.scale_(1.0 / n)

"""More of paddle.distributed over the same MPI groups: alltoall_single, gather,
scatter_object_list, get_backend, is_available, ParallelMode and the gloo_* helpers
(mapped onto the MPI communicator: sampan has one backend, MPI)."""
from __future__ import annotations

from ..tensor.creation import to_tensor, zeros
from ..tensor.manipulation_join import concat
from .collective import (ReduceOp, _DoneTask, _check_tensor, _inplace, _peer, all_gather,
                         all_reduce, alltoall, barrier, broadcast_object_list)
from .env import _STATE, _group, get_rank, get_world_size, init_parallel_env

__all__ = ["alltoall_single", "gather", "scatter_object_list", "get_backend", "is_available",
           "ParallelMode", "gloo_init_parallel_env", "gloo_barrier", "gloo_release"]


class ParallelMode:
    """The parallel modes (values as Paddle's): DATA_PARALLEL 0, TENSOR_PARALLEL 1,
    PIPELINE_PARALLEL 2, SHARDING_PARALLEL 3, SEGMENT_PARALLEL 4.

    Examples:
        >>> import sampan as paddle
        >>> paddle.distributed.ParallelMode.DATA_PARALLEL
        0
    """
    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3
    SEGMENT_PARALLEL = 4


def _splits(api: str, arg: str, sizes, total: int, n: int) -> list:
    if sizes is None:
        if total % n:
            raise ValueError(f"{api}: dim 0 of the tensor ({total}) must divide by the "
                             f"number of ranks ({n}) when {arg} is None")
        return [total // n] * n
    sizes = list(sizes)
    if len(sizes) != n or any(not isinstance(s, int) or s < 0 for s in sizes) \
            or sum(sizes) != total:
        raise ValueError(f"{api}: {arg} must be {n} non-negative ints summing to dim 0 of "
                         f"the tensor ({total}), got {sizes}")
    return sizes


def alltoall_single(out_tensor, in_tensor, in_split_sizes=None, out_split_sizes=None,
                    group=None, sync_op=True):
    """Split `in_tensor` along dim 0 (by `in_split_sizes`, default equal parts), send part j
    to rank j, and concatenate what every rank sent here into `out_tensor` (in place).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed as dist
        >>> out = paddle.zeros([2])
        >>> _ = dist.alltoall_single(out, paddle.to_tensor([1.0, 2.0]))
        >>> out.numpy().tolist()
        [1.0, 2.0]
    """
    api = "alltoall_single"
    _check_tensor(api, "in_tensor", in_tensor)
    _check_tensor(api, "out_tensor", out_tensor)
    g = _group(api, group)
    if not g.is_member():
        return _DoneTask()
    ins = _splits(api, "in_split_sizes", in_split_sizes, in_tensor.shape[0], g.nranks)
    outs = _splits(api, "out_split_sizes", out_split_sizes, out_tensor.shape[0], g.nranks)
    # pad every part to the largest part of any rank, exchange, then cut to out_split_sizes
    width = to_tensor([max(ins + outs)], dtype="int64")
    all_reduce(width, op=ReduceOp.MAX, group=group)
    m = int(width.numpy()[0])
    parts, start = [], 0
    for s in ins:
        part = in_tensor[start:start + s]
        if m > s:
            part = concat([part, _zeros_like_rows(in_tensor, m - s)])
        parts.append(part)
        start += s
    got = []
    alltoall(got, parts, group=group)
    pieces = [got[j][:outs[j]] for j in range(g.nranks)]
    return _inplace(out_tensor, concat(pieces).astype(out_tensor.dtype))


def _zeros_like_rows(like, rows: int):
    return zeros([rows] + list(like.shape[1:]), dtype=like.dtype)


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True):
    """Gather `tensor` of every rank of `group` into `gather_list` (emptied first) on global
    rank `dst`; the other ranks' lists are left alone. (sampan gathers on every rank and
    keeps the result on `dst` only.)

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed as dist
        >>> got = []
        >>> _ = dist.gather(paddle.to_tensor([3, 4]), got, dst=0)
        >>> [t.numpy().tolist() for t in got]
        [[3, 4]]
    """
    _check_tensor("gather", "tensor", tensor)
    g = _group("gather", group)
    if not g.is_member():
        return _DoneTask()
    local = _peer("gather", "dst", g, dst)
    if g.rank == local and not isinstance(gather_list, list):
        raise TypeError(f"gather: gather_list must be a list on the dst rank, got "
                        f"{type(gather_list).__name__}")
    got = []
    all_gather(got, tensor, group=group)
    if g.rank == local:
        gather_list.clear()
        gather_list.extend(got)
    return _DoneTask()


def scatter_object_list(out_object_list, in_object_list=None, src=0, group=None) -> None:
    """Rank r of `group` gets in_object_list[r] of global rank `src` as the one item of
    `out_object_list` (emptied first). Objects must be picklable.

    Examples:
        >>> import sampan.distributed as dist
        >>> out = []
        >>> dist.scatter_object_list(out, [{"k": 1}], src=0)
        >>> out
        [{'k': 1}]
    """
    if not isinstance(out_object_list, list):
        raise TypeError(f"scatter_object_list: out_object_list must be a list, got "
                        f"{type(out_object_list).__name__}")
    g = _group("scatter_object_list", group)
    local = _peer("scatter_object_list", "src", g, src)
    items = [None]
    if g.rank == local:
        if in_object_list is None or len(in_object_list) != g.nranks:
            got = None if in_object_list is None else len(in_object_list)
            raise ValueError(f"scatter_object_list: in_object_list must hold one object per "
                             f"rank ({g.nranks}), got {got}")
        items = [list(in_object_list)]
    broadcast_object_list(items, src=src, group=group)
    out_object_list.clear()
    out_object_list.append(items[0][g.rank])


def get_backend(group=None) -> str:
    """The backend name of `group` (default the global group). sampan's only backend is
    MPI (Paddle answers NCCL, GLOO, XCCL or BKCL), so this is always "MPI"; like Paddle it
    raises before init_parallel_env when no group is given.

    Examples:
        >>> import sampan as paddle
        >>> _ = paddle.distributed.init_parallel_env()
        >>> paddle.distributed.get_backend()
        'MPI'
    """
    if group is None and not _STATE["initialized"]:
        raise RuntimeError("get_backend: the global group is not initialized; call "
                           "paddle.distributed.init_parallel_env() first")
    _group("get_backend", group)
    return "MPI"


def is_available() -> bool:
    """Whether the distributed package is available: always True in sampan (one process
    needs nothing; several ranks need mpi4py, imported when they start)."""
    return True


_GLOO = {"ready": False}


def gloo_init_parallel_env(rank_id: int, rank_num: int, server_endpoint: str) -> None:
    """Paddle's CPU (gloo) environment, mapped onto sampan's MPI one: it runs
    init_parallel_env and checks that `rank_id`/`rank_num` are this process's rank and the
    world size; `server_endpoint` ("ip:port") is checked for form only."""
    api = "gloo_init_parallel_env"
    for arg, v in (("rank_id", rank_id), ("rank_num", rank_num)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ValueError(f"{api}: {arg} must be a non-negative int, got {v!r}")
    if rank_id >= rank_num:
        raise ValueError(f"{api}: rank_id ({rank_id}) must be < rank_num ({rank_num})")
    if not isinstance(server_endpoint, str) or ":" not in server_endpoint:
        raise ValueError(f"{api}: server_endpoint must be 'ip:port', got {server_endpoint!r}")
    init_parallel_env()
    if (get_rank(), get_world_size()) != (rank_id, rank_num):
        raise ValueError(f"{api}: rank_id={rank_id}, rank_num={rank_num} do not match this "
                         f"process (rank {get_rank()} of {get_world_size()})")
    _GLOO["ready"] = True


def gloo_barrier() -> None:
    """Barrier over all ranks (after gloo_init_parallel_env), on the MPI communicator."""
    if not _GLOO["ready"]:
        raise RuntimeError("gloo_barrier: call gloo_init_parallel_env first")
    barrier()


def gloo_release() -> None:
    """Release the gloo environment (the MPI group stays: destroy_process_group ends it)."""
    _GLOO["ready"] = False

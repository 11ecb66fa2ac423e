"""The public collective API (paddle.distributed.all_reduce, broadcast, ...): Paddle's
in-place signatures over the collective OpDefs, so each call also works while a static
Program is built. Object collectives pickle into uint8 tensors.
"""
from __future__ import annotations

import pickle

import numpy as np

from ..framework.flags import in_dynamic_mode
from ..framework.tensor import wrap
from ..ops.collective import run_inplace
from ..ops.dispatch import call
from ..tensor.manipulation_join import stack, unbind
from .comm import MpiComm
from .env import _group

__all__ = ["ReduceOp", "all_reduce", "broadcast", "all_gather", "all_gather_object",
           "broadcast_object_list", "reduce", "scatter", "reduce_scatter", "alltoall",
           "send", "recv", "isend", "irecv", "barrier", "wait"]


class ReduceOp:
    """Elementwise reductions of all_reduce, reduce and reduce_scatter."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_OP_NAMES = {0: "sum", 1: "max", 2: "min", 3: "prod", 4: "avg"}


class _DoneTask:
    """The task of a call that has already completed (sync_op=False gives one)."""

    def wait(self, timeout=None) -> bool:
        return True

    def is_completed(self) -> bool:
        return True


_DONE = _DoneTask()


def _op_name(api: str, op) -> str:
    if op.__class__ is int and op in _OP_NAMES:
        return _OP_NAMES[op]
    if op not in _OP_NAMES or isinstance(op, bool):
        raise ValueError(f"{api}: op must be a paddle.distributed.ReduceOp (SUM, MAX, MIN, "
                         f"PROD, AVG), got {op!r}")
    return _OP_NAMES[op]


def _peer(api: str, arg: str, group, rank: int) -> int:
    """The group rank of global rank `rank`, with a clear error."""
    local = group.get_group_rank(rank) if isinstance(rank, int) else -1
    if local < 0:
        raise ValueError(f"{api}: {arg}={rank!r} is not a rank of the group {group.ranks}")
    return local


def _inplace(tensor, result):
    tensor._rebind(result)
    return _DONE


def _rows(stacked) -> list:
    """The per-rank tensors of a [nranks, ...] collective result: views of its rows in
    dynamic mode when it carries no gradient (all_gather and alltoall have none), else
    unbind ops (a static Program records them)."""
    if in_dynamic_mode() and stacked.stop_gradient and stacked._node is None:
        return [wrap(row) for row in stacked._data]
    return unbind(stacked, axis=0)


def _check_tensor(api: str, arg: str, value) -> None:
    if not hasattr(value, "_rebind"):
        raise TypeError(f"{api}: {arg} must be a Tensor, got {type(value).__name__}")


def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce `tensor` over the ranks of `group`, in place, on every rank.

    Args:
        tensor (Tensor): input and output.
        op (ReduceOp): SUM (default), MAX, MIN, PROD or AVG.
        group (Group, optional): default all processes.
        sync_op (bool): accepted; the call always completes before it returns.

    Returns:
        A task (its `wait()` returns at once).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed as dist
        >>> x = paddle.to_tensor([1.0, 2.0])
        >>> _ = dist.all_reduce(x)   # one process: unchanged
        >>> x.numpy().tolist()
        [1.0, 2.0]
    """
    _check_tensor("all_reduce", "tensor", tensor)
    name = _op_name("all_reduce", op)
    g = _group("all_reduce", group)
    if not g.is_member() or run_inplace("all_reduce", tensor, name, g.id):
        return _DONE
    return _inplace(tensor, call("all_reduce", tensor._alias(), op=name, ring_id=g.id))


def broadcast(tensor, src, group=None, sync_op=True):
    """Copy `tensor` of global rank `src` into `tensor` on every rank of `group`."""
    _check_tensor("broadcast", "tensor", tensor)
    g = _group("broadcast", group)
    if not g.is_member():
        return _DoneTask()
    src = _peer("broadcast", "src", g, src)
    if run_inplace("broadcast", tensor, src, g.id):
        return _DONE
    return _inplace(tensor, call("broadcast", tensor._alias(), src=src, ring_id=g.id))


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Fill `tensor_list` (emptied first) with `tensor` of every rank, in rank order."""
    _check_tensor("all_gather", "tensor", tensor)
    if not isinstance(tensor_list, list):
        raise TypeError(f"all_gather: tensor_list must be a list, got "
                        f"{type(tensor_list).__name__}")
    g = _group("all_gather", group)
    if not g.is_member():
        return _DoneTask()
    stacked = call("all_gather", tensor, ring_id=g.id)
    tensor_list.clear()
    tensor_list.extend(_rows(stacked))
    return _DoneTask()


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True):
    """Reduce `tensor` over `group` into `tensor` of global rank `dst` (in place there)."""
    _check_tensor("reduce", "tensor", tensor)
    name = _op_name("reduce", op)
    g = _group("reduce", group)
    if not g.is_member():
        return _DoneTask()
    dst = _peer("reduce", "dst", g, dst)
    if run_inplace("reduce", tensor, name, dst, g.id):
        return _DONE
    return _inplace(tensor, call("reduce", tensor._alias(), op=name, dst=dst, ring_id=g.id))


def _stack(api: str, tensors, n: int):
    if tensors is None or len(tensors) != n:
        got = None if tensors is None else len(tensors)
        raise ValueError(f"{api}: the tensor list must hold one tensor per rank ({n}), got "
                         f"{got}")
    return stack(list(tensors), axis=0)


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    """Rank r of `group` receives tensor_list[r] of global rank `src` into `tensor`."""
    _check_tensor("scatter", "tensor", tensor)
    g = _group("scatter", group)
    if not g.is_member():
        return _DoneTask()
    local = _peer("scatter", "src", g, src)
    if g.rank == local:
        stacked = _stack("scatter", tensor_list, g.nranks)
    else:   # only the source's list is read; the others send a buffer of the right shape
        stacked = stack([tensor] * g.nranks, axis=0)
    return _inplace(tensor, call("c_scatter", stacked, src=local, ring_id=g.id))


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """`tensor` on rank r = the reduction over ranks of their tensor_list[r]."""
    _check_tensor("reduce_scatter", "tensor", tensor)
    name = _op_name("reduce_scatter", op)
    g = _group("reduce_scatter", group)
    if not g.is_member():
        return _DoneTask()
    stacked = _stack("reduce_scatter", tensor_list, g.nranks)
    return _inplace(tensor, call("reduce_scatter", stacked, op=name, ring_id=g.id))


def alltoall(out_tensor_list, in_tensor_list, group=None, sync_op=True):
    """out_tensor_list[j] = in_tensor_list[rank] of rank j (out list is emptied first)."""
    g = _group("alltoall", group)
    if not g.is_member():
        return _DoneTask()
    stacked = _stack("alltoall", in_tensor_list, g.nranks)
    out = call("alltoall", stacked, ring_id=g.id)
    out_tensor_list.clear()
    out_tensor_list.extend(_rows(out))
    return _DoneTask()


def send(tensor, dst=0, group=None, sync_op=True):
    """Send `tensor` to global rank `dst`."""
    _check_tensor("send", "tensor", tensor)
    g = _group("send", group)
    call("send", tensor, peer=_peer("send", "dst", g, dst), ring_id=g.id)
    return _DoneTask()


def recv(tensor, src=0, group=None, sync_op=True):
    """Receive into `tensor` (its shape and dtype) what global rank `src` sends."""
    _check_tensor("recv", "tensor", tensor)
    g = _group("recv", group)
    out = call("recv", shape=list(tensor.shape), dtype=tensor.dtype.name,
               peer=_peer("recv", "src", g, src), ring_id=g.id)
    return _inplace(tensor, out)


def isend(tensor, dst, group=None):
    """Start sending `tensor` to `dst`; returns a task whose `wait()` completes it."""
    _check_tensor("isend", "tensor", tensor)
    g = _group("isend", group)
    peer = _peer("isend", "dst", g, dst)
    if not isinstance(g.comm, MpiComm):
        return send(tensor, dst, group)
    return g.comm.isend(np.ascontiguousarray(tensor.numpy()), peer)


def irecv(tensor, src=None, group=None):
    """Start receiving into `tensor` from `src`; the data lands when `wait()` returns."""
    _check_tensor("irecv", "tensor", tensor)
    g = _group("irecv", group)
    peer = _peer("irecv", "src", g, 0 if src is None else src)
    if not isinstance(g.comm, MpiComm):
        return recv(tensor, 0 if src is None else src, group)
    buf = np.empty(tensor.shape, tensor._data.dtype)
    return g.comm.irecv(buf, peer, on_done=lambda: tensor._rebind(wrap(buf)))


def barrier(group=None) -> None:
    """Block until every rank of `group` has called barrier."""
    g = _group("barrier", group)
    if g.is_member():
        call("barrier", ring_id=g.id)


def wait(tensor, group=None, use_calc_stream=True) -> None:
    """Wait for pending collectives on `tensor`; sampan's complete before returning."""
    _check_tensor("wait", "tensor", tensor)


def _object_bytes(obj):
    return np.frombuffer(pickle.dumps(obj), dtype=np.uint8)


def all_gather_object(object_list, obj, group=None) -> None:
    """Fill `object_list` (emptied first) with the picklable `obj` of every rank."""
    if not isinstance(object_list, list):
        raise TypeError(f"all_gather_object: object_list must be a list, got "
                        f"{type(object_list).__name__}")
    g = _group("all_gather_object", group)
    data = _object_bytes(obj)
    sizes = g.comm.all_gather(np.array([data.size], np.int64))[:, 0]
    padded = np.zeros(int(sizes.max()), np.uint8)
    padded[:data.size] = data
    rows = g.comm.all_gather(padded)
    object_list.clear()
    object_list.extend(pickle.loads(rows[i, :sizes[i]].tobytes()) for i in range(g.nranks))


def broadcast_object_list(object_list, src, group=None) -> None:
    """Replace the items of `object_list` on every rank by those of global rank `src`."""
    if not isinstance(object_list, list):
        raise TypeError(f"broadcast_object_list: object_list must be a list, got "
                        f"{type(object_list).__name__}")
    g = _group("broadcast_object_list", group)
    local = _peer("broadcast_object_list", "src", g, src)
    data = _object_bytes(object_list) if g.rank == local else np.zeros(0, np.uint8)
    size = int(g.comm.broadcast(np.array([data.size], np.int64), local)[0])
    buf = data if g.rank == local else np.zeros(size, np.uint8)
    items = pickle.loads(g.comm.broadcast(buf, local).tobytes())
    object_list[:] = items

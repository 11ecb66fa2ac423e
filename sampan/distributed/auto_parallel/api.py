"""Distributed tensors over a ProcessMesh: shard_tensor, dtensor_from_fn, reshard and
shard_layer.

A distributed tensor is an ordinary Tensor holding this rank's local piece, with a
`_dist_attr` record (mesh, placements, global shape) that Tensor.process_mesh / placements /
dist_attr / is_dist() read. Its `shape` is the local shape (NOTE: Paddle reports the global
shape there; here ops run on the local piece, so the shape they see is the local one; the
global shape is `t._dist_attr.global_shape`). Ops on a distributed tensor compute on the
local piece and return plain tensors; reshard moves between placements with the collectives
of paddle.distributed (every rank of the world calls it, as in Paddle).
Imports tensor, nn and distributed.
"""
from __future__ import annotations

import math

import numpy as np

from ... import tensor as T
from ...framework.tensor import Parameter, Tensor
from .. import collective, env
from .placement import Placement, ReduceType, Replicate, Shard, dist_attr_of
from .process_mesh import ProcessMesh

_REDUCE_OPS = {ReduceType.kRedSum: collective.ReduceOp.SUM,
               ReduceType.kRedMax: collective.ReduceOp.MAX,
               ReduceType.kRedMin: collective.ReduceOp.MIN,
               ReduceType.kRedProd: collective.ReduceOp.PROD,
               ReduceType.kRedAvg: collective.ReduceOp.AVG}
_GROUPS: dict = {}  # (mesh, mesh dim) -> {tuple of ranks: Group}


class DistRecord:
    """What makes a Tensor distributed: its mesh, placements and global shape."""

    def __init__(self, mesh: ProcessMesh, placements: list, global_shape: list) -> None:
        self.process_mesh = mesh
        self.placements = list(placements)
        self.global_shape = list(global_shape)

    @property
    def dist_attr(self):
        return dist_attr_of(self.process_mesh, self.placements, len(self.global_shape))

    def __repr__(self) -> str:
        return (f"DistRecord(mesh=({self.process_mesh}), placements={self.placements}, "
                f"global_shape={self.global_shape})")

    def print_fields(self) -> str | None:
        """The fields a printed distributed tensor adds (Paddle's text), or None when the
        local piece is not the global value (a Shard or Partial placement: one process
        cannot print the global value)."""
        if not all(isinstance(p, Replicate) for p in self.placements):
            return None
        m = self.process_mesh
        ids = ",".join(str(i) for i in m.process_ids)
        mesh = (f"{{shape: [{','.join(str(n) for n in m.shape)}], process_ids: [{ids}], "
                f"dim_names: [{','.join(m.dim_names)}]}}")
        return f"process_mesh={mesh}, placements={self.placements}, GlobalDenseTensor="


def _check_mesh_placements(api: str, mesh, placements, ndim: int) -> list:
    if not isinstance(mesh, ProcessMesh):
        raise TypeError(f"{api}: mesh must be a paddle.distributed.ProcessMesh, got "
                        f"{type(mesh).__name__}")
    if not isinstance(placements, (list, tuple)) or len(placements) != mesh.ndim:
        raise ValueError(f"{api}: placements must be a list of {mesh.ndim} Placement(s), one "
                         f"per mesh dim {mesh.dim_names}, got {placements!r}")
    out = []
    for p in placements:
        if not isinstance(p, Placement):
            raise TypeError(f"{api}: placements must hold Shard/Replicate/Partial, got "
                            f"{type(p).__name__}")
        if p.is_shard():
            d = p.get_dim()
            if not -ndim <= d < ndim:
                raise ValueError(f"{api}: {p} is out of range for a {ndim}-D tensor")
            p = Shard(d % ndim)
        out.append(p)
    return out


def _rank() -> int:
    return env.get_rank()


def _chunk(size: int, n: int, i: int) -> tuple:
    """[start, end) of piece i of n of a dim of `size` (ceil-sized pieces, the last short)."""
    step = math.ceil(size / n) if n else size
    start = min(i * step, size)
    return start, min(start + step, size)


def _local_slices(global_shape: list, mesh: ProcessMesh, placements: list, coord: list,
                  upto: int | None = None) -> list:
    """Per tensor dim, the (start, end) this coordinate holds after the Shard placements of
    mesh dims [0, upto) are applied in order."""
    spans = [(0, s) for s in global_shape]
    for mesh_dim, p in enumerate(placements[:upto]):
        if p.is_shard():
            d = p.get_dim()
            lo, hi = spans[d]
            a, b = _chunk(hi - lo, mesh.shape[mesh_dim], coord[mesh_dim])
            spans[d] = (lo + a, lo + b)
    return spans


def _slice(x: Tensor, spans: list) -> Tensor:
    if all(lo == 0 and hi == s for (lo, hi), s in zip(spans, x.shape)):
        return x
    return x[tuple(slice(lo, hi) for lo, hi in spans)]


def _partial_local(x: Tensor, placements: list, coord: list) -> Tensor:
    """Turn a replicated value into Partial pieces whose reduction is the value: the first
    rank of each Partial(sum) dim keeps it, the others hold zeros (ones for prod)."""
    for mesh_dim, p in enumerate(placements):
        if p.is_partial() and coord[mesh_dim] != 0:
            kind = p.reduce_type()
            if kind == ReduceType.kRedSum:
                x = x * 0
            elif kind == ReduceType.kRedProd:
                x = x * 0 + 1
    return x


def _attach(x: Tensor, mesh, placements, global_shape) -> Tensor:
    x._dist_attr = DistRecord(mesh, placements, global_shape)
    return x


def _as_tensor(data, dtype, place) -> Tensor:
    if isinstance(data, Tensor):
        return data if dtype is None else T.cast(data, dtype)
    return T.to_tensor(data, dtype=dtype, place=place)


def shard_tensor(data, mesh: ProcessMesh, placements, dtype=None, place=None,
                 stop_gradient=None) -> Tensor:
    """A distributed tensor of the global value `data` (every rank passes the same value):
    this rank keeps the piece its mesh coordinate selects.

    Shard(d) on a mesh dim splits tensor dim d into ceil-sized pieces over that dim's ranks;
    Replicate keeps the whole; Partial(sum) keeps the value on the first rank of the mesh dim
    and zeros on the others (their sum is the value). A rank outside the mesh holds an empty
    piece. A Parameter stays a Parameter (name, trainable and optimize attributes kept).

    Args:
        data (Tensor|ndarray|list): the global value.
        mesh (ProcessMesh): the processes the tensor lives on.
        placements (list[Placement]): one per mesh dim.
        dtype, place (optional): as paddle.to_tensor, for non-Tensor data.
        stop_gradient (bool, optional): default: data's (True for non-Tensor data).

    Returns:
        Tensor: the local piece, with process_mesh, placements and is_dist() set.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=['x'])
        >>> d = dist.shard_tensor(paddle.arange(6.0).reshape([3, 2]), mesh, [dist.Shard(0)])
        >>> d.is_dist(), d.placements, d.shape
        (True, [Shard(dim=0)], paddle.Size([3, 2]))
    """
    api = "shard_tensor"
    t = _as_tensor(data, dtype, place)
    placements = _check_mesh_placements(api, mesh, placements, t.ndim)
    global_shape = list(t.shape)
    coord = mesh.coordinate(_rank())
    if coord is None:
        local = T.zeros([0] + global_shape[1:] if global_shape else [0], dtype=t.dtype)
    else:
        local = _slice(t, _local_slices(global_shape, mesh, placements, coord))
        local = _partial_local(local, placements, coord)
    if isinstance(t, Parameter):
        local = _as_parameter(t, local)
    elif local is t:
        local = T.assign(t) if t.stop_gradient else t * 1
    if stop_gradient is not None:
        local.stop_gradient = bool(stop_gradient)
    return _attach(local, mesh, placements, global_shape)


def _as_parameter(param: Parameter, local: Tensor) -> Parameter:
    out = Parameter(np.array(local.numpy(), copy=True), name=param.name,
                    trainable=param.trainable)
    for key in ("optimize_attr", "regularizer", "need_clip", "is_distributed"):
        if key in param.__dict__:
            setattr(out, key, param.__dict__[key])
    out.stop_gradient = param.stop_gradient
    return out


def dtensor_from_fn(fn, mesh: ProcessMesh, placements, *args, **kwargs) -> Tensor:
    """shard_tensor(fn(*args, **kwargs), mesh, placements).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=['x'])
        >>> dist.dtensor_from_fn(paddle.ones, mesh, [dist.Replicate()], shape=[2]).is_dist()
        True
    """
    if not callable(fn):
        raise TypeError(f"dtensor_from_fn: fn must be callable, got {type(fn).__name__}")
    return shard_tensor(fn(*args, **kwargs), mesh, placements)


def dtensor_from_local(local_tensor: Tensor, mesh: ProcessMesh, placements) -> Tensor:
    """Mark this rank's `local_tensor` as its piece of a distributed tensor (no data moves;
    the global shape assumes equal pieces: a Shard dim is the local size times the ranks)."""
    api = "dtensor_from_local"
    if not isinstance(local_tensor, Tensor):
        raise TypeError(f"{api}: local_tensor must be a Tensor, got "
                        f"{type(local_tensor).__name__}")
    if getattr(local_tensor, "_dist_attr", None) is not None:
        raise ValueError(f"{api}: the input should be a local tensor, got a distributed one")
    placements = _check_mesh_placements(api, mesh, placements, local_tensor.ndim)
    global_shape = list(local_tensor.shape)
    for mesh_dim, p in enumerate(placements):
        if p.is_shard():
            global_shape[p.get_dim()] *= mesh.shape[mesh_dim]
    return _attach(local_tensor * 1, mesh, placements, global_shape)


def dtensor_to_local(dist_tensor: Tensor, mesh: ProcessMesh = None, placements=None) -> Tensor:
    """This rank's piece of `dist_tensor` as a plain (non-distributed) tensor."""
    if getattr(dist_tensor, "_dist_attr", None) is None:
        raise ValueError("dtensor_to_local: the input should be a distributed tensor")
    return dist_tensor * 1


def _mesh_groups(mesh: ProcessMesh, mesh_dim: int) -> dict:
    """The process groups along `mesh_dim` (all created collectively, in one fixed order)."""
    key = (mesh, mesh_dim)
    if key not in _GROUPS:
        world = env.get_world_size()
        if max(mesh.process_ids) >= world:
            raise ValueError(f"reshard: the mesh ({mesh}) names process ids beyond the world "
                             f"size {world}")
        moved = np.moveaxis(mesh.mesh, mesh_dim, -1).reshape(-1, mesh.shape[mesh_dim])
        _GROUPS[key] = {tuple(int(r) for r in row): env.new_group([int(r) for r in row])
                        for row in moved}
    return _GROUPS[key]


def _group_of(mesh: ProcessMesh, mesh_dim: int, rank: int):
    ranks = tuple(mesh.group_ranks(mesh_dim, rank))
    return _mesh_groups(mesh, mesh_dim)[ranks], len(ranks)


def _gather_dim(x: Tensor, mesh, placements, record, mesh_dim: int, coord) -> Tensor:
    """Undo the Shard on `mesh_dim`: all_gather the (padded) pieces and concatenate."""
    d = placements[mesh_dim].get_dim()
    n = mesh.shape[mesh_dim]
    lo, hi = _local_slices(record.global_shape, mesh, placements, coord, mesh_dim)[d]
    parent = hi - lo
    step = math.ceil(parent / n)
    group, _ = _group_of(mesh, mesh_dim, _rank())
    pad = step - x.shape[d]
    if pad:
        shape = list(x.shape)
        shape[d] = pad
        x = T.concat([x, T.zeros(shape, dtype=x.dtype)], axis=d)
    pieces: list = []
    collective.all_gather(pieces, x, group=group)
    full = T.concat(pieces, axis=d)
    return _slice(full, [(0, s) if i != d else (0, parent) for i, s in enumerate(full.shape)])


def _to_replicated(x: Tensor, record: DistRecord, coord) -> Tensor:
    """The global value on every rank of the mesh (mesh dims undone innermost first)."""
    mesh, placements = record.process_mesh, record.placements
    for mesh_dim in reversed(range(mesh.ndim)):
        p = placements[mesh_dim]
        if p.is_replicated() or mesh.shape[mesh_dim] == 1:
            continue
        if p.is_shard():
            x = _gather_dim(x, mesh, placements, record, mesh_dim, coord)
        else:
            group, _ = _group_of(mesh, mesh_dim, _rank())
            x = x * 1  # all_reduce works in place: leave the caller's tensor alone
            collective.all_reduce(x, _REDUCE_OPS[p.reduce_type()], group=group)
    return x


def reshard(dist_tensor: Tensor, mesh: ProcessMesh, placements) -> Tensor:
    """The same global value with new placements on the same mesh (Shard, Replicate and
    Partial in any combination), through all_gather / all_reduce along the mesh dims.

    Args:
        dist_tensor (Tensor): a distributed tensor (from shard_tensor or reshard).
        mesh (ProcessMesh): its mesh (moving to another mesh is not supported).
        placements (list[Placement]): the new placements, one per mesh dim.

    Returns:
        Tensor: the new local piece, distributed with `placements`.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=['x'])
        >>> d = dist.shard_tensor(paddle.ones([4]), mesh, [dist.Shard(0)])
        >>> dist.reshard(d, mesh, [dist.Replicate()]).placements
        [Replicate()]
    """
    api = "reshard"
    record = getattr(dist_tensor, "_dist_attr", None)
    if not isinstance(dist_tensor, Tensor) or record is None:
        raise ValueError(f"{api}: dist_tensor must be a distributed tensor (made by "
                         f"shard_tensor), got {type(dist_tensor).__name__}")
    placements = _check_mesh_placements(api, mesh, placements, len(record.global_shape))
    if mesh != record.process_mesh:
        raise NotImplementedError(f"{api}: moving from mesh ({record.process_mesh}) to "
                                  f"another mesh ({mesh}) is not supported")
    coord = mesh.coordinate(_rank())
    if coord is None:
        return _attach(dist_tensor * 1, mesh, placements, record.global_shape)
    if placements == record.placements:
        return _attach(dist_tensor * 1, mesh, placements, record.global_shape)
    full = _to_replicated(dist_tensor, record, coord)
    local = _slice(full, _local_slices(record.global_shape, mesh, placements, coord))
    local = _partial_local(local, placements, coord)
    if local is dist_tensor:
        local = local * 1
    return _attach(local, mesh, placements, record.global_shape)


def _replicate_rest(layer, mesh: ProcessMesh) -> None:
    """Every parameter and buffer not yet distributed becomes a replicated one."""
    for sub in [layer] + list(layer.sublayers()):
        for name, p in list(sub._parameters.items()):
            if p is not None and getattr(p, "_dist_attr", None) is None:
                sub._parameters[name] = shard_tensor(p, mesh, [Replicate()] * mesh.ndim)
        for name, b in list(sub._buffers.items()):
            if b is not None and getattr(b, "_dist_attr", None) is None:
                sub._buffers[name] = shard_tensor(b, mesh, [Replicate()] * mesh.ndim)


def shard_layer(layer, process_mesh: ProcessMesh, shard_fn=None, input_fn=None,
                output_fn=None):
    """Distribute a Layer's parameters over `process_mesh`.

    shard_fn(name, sublayer, process_mesh) is called for the layer and every sublayer and may
    replace parameters with shard_tensor(...) results; every parameter and buffer still not
    distributed afterwards is replicated. input_fn(inputs, mesh) and output_fn(outputs,
    mesh), when given, become forward pre/post hooks of `layer`.

    Args:
        layer (paddle.nn.Layer): the layer (changed in place and returned).
        process_mesh (ProcessMesh): the mesh.
        shard_fn, input_fn, output_fn (callable, optional): see above.

    Returns:
        paddle.nn.Layer: `layer`.

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=['x'])
        >>> def shard_fn(name, sub, mesh):
        ...     if isinstance(sub, paddle.nn.Linear):
        ...         sub.weight = dist.shard_tensor(sub.weight, mesh, [dist.Shard(1)])
        >>> net = dist.shard_layer(paddle.nn.Linear(2, 4), mesh, shard_fn)
        >>> net.weight.placements, net.bias.placements
        ([Shard(dim=1)], [Replicate()])
    """
    from ...nn import Layer
    if not isinstance(layer, Layer):
        raise TypeError(f"shard_layer: layer must be a paddle.nn.Layer, got "
                        f"{type(layer).__name__}")
    if not isinstance(process_mesh, ProcessMesh):
        raise TypeError(f"shard_layer: process_mesh must be a ProcessMesh, got "
                        f"{type(process_mesh).__name__}")
    for arg, fn in (("shard_fn", shard_fn), ("input_fn", input_fn), ("output_fn", output_fn)):
        if fn is not None and not callable(fn):
            raise TypeError(f"shard_layer: {arg} must be callable, got {type(fn).__name__}")
    if shard_fn is not None:
        for name, sub in layer.named_sublayers(include_self=True):
            shard_fn(name, sub, process_mesh)
    _replicate_rest(layer, process_mesh)
    if input_fn is not None:
        layer.register_forward_pre_hook(lambda _, inputs: input_fn(inputs, process_mesh))
    if output_fn is not None:
        layer.register_forward_post_hook(
            lambda _, inputs, outputs: output_fn(outputs, process_mesh))
    return layer


__all__ = ["shard_tensor", "dtensor_from_fn", "reshard", "shard_layer", "DistRecord",
           "dtensor_from_local", "dtensor_to_local"]

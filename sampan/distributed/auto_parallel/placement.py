"""Placements of a distributed tensor over one ProcessMesh dimension each (Shard, Replicate,
Partial with its ReduceType) and DistAttr (a mesh plus per-tensor-dim sharding specs).
Imports the standard library only."""
from __future__ import annotations

import enum


class ReduceType(enum.IntEnum):
    """How the per-rank values of a Partial placement combine (Paddle's names and values)."""
    kRedSum = 0
    kRedMax = 1
    kRedMin = 2
    kRedProd = 3
    kRedAvg = 4
    kRedAny = 5
    kRedAll = 6


_REDUCE_NAMES = {ReduceType.kRedSum: "SUM", ReduceType.kRedMax: "MAX",
                 ReduceType.kRedMin: "MIN", ReduceType.kRedProd: "PROD",
                 ReduceType.kRedAvg: "AVG", ReduceType.kRedAny: "ANY",
                 ReduceType.kRedAll: "ALL"}


class Placement:
    """How a tensor lies along one mesh dimension; see Shard, Replicate and Partial."""

    def is_shard(self, dim: int | None = None) -> bool:
        return False

    def is_replicated(self) -> bool:
        return False

    def is_partial(self) -> bool:
        return False

    def __ne__(self, other) -> bool:
        return not self == other


class Shard(Placement):
    """The tensor is split along tensor dim `dim` across the ranks of the mesh dimension.

    Examples:
        >>> import sampan.distributed as dist
        >>> dist.Shard(0), dist.Shard(0).is_shard(), dist.Shard(0).get_dim()
        (Shard(dim=0), True, 0)
    """

    def __init__(self, dim: int) -> None:
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise TypeError(f"Shard: dim must be an int, got {type(dim).__name__}")
        self._dim = dim

    def get_dim(self) -> int:
        return self._dim

    def is_shard(self, dim: int | None = None) -> bool:
        return dim is None or dim == self._dim

    def __eq__(self, other) -> bool:
        return isinstance(other, Shard) and other._dim == self._dim

    def __hash__(self) -> int:
        return hash(("Shard", self._dim))

    def __repr__(self) -> str:
        return f"Shard(dim={self._dim})"


class Replicate(Placement):
    """Every rank of the mesh dimension holds the whole tensor."""

    def is_replicated(self) -> bool:
        return True

    def __eq__(self, other) -> bool:
        return isinstance(other, Replicate)

    def __hash__(self) -> int:
        return hash("Replicate")

    def __repr__(self) -> str:
        return "Replicate()"


class Partial(Placement):
    """Each rank holds a partial value; the tensor is their reduction (`reduce_type`)."""

    def __init__(self, reduce_type: ReduceType = ReduceType.kRedSum) -> None:
        if not isinstance(reduce_type, ReduceType):
            try:
                reduce_type = ReduceType(reduce_type)
            except ValueError:
                raise ValueError(f"Partial: reduce_type must be a ReduceType, got "
                                 f"{reduce_type!r}") from None
        if reduce_type in (ReduceType.kRedAny, ReduceType.kRedAll):
            raise ValueError(f"Partial: reduce_type {reduce_type.name} is not supported "
                             f"(sum, max, min, prod or avg)")
        self._reduce_type = reduce_type

    def reduce_type(self) -> ReduceType:
        return self._reduce_type

    def is_partial(self) -> bool:
        return True

    def __eq__(self, other) -> bool:
        return isinstance(other, Partial) and other._reduce_type == self._reduce_type

    def __hash__(self) -> int:
        return hash(("Partial", int(self._reduce_type)))

    def __repr__(self) -> str:
        return f"Partial(reduce_type={_REDUCE_NAMES[self._reduce_type]})"


class DistAttr:
    """A tensor's distribution in Paddle's older spelling: the mesh plus, per tensor dim, the
    mesh dim name it is split over (None: not split).

    Args:
        mesh (ProcessMesh): the mesh.
        sharding_specs (list[str|None]): one entry per tensor dim.

    Examples:
        >>> import sampan.distributed as dist
        >>> mesh = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=['x', 'y'])
        >>> attr = dist.DistAttr(mesh=mesh, sharding_specs=['x', None])
        >>> attr.dims_mapping
        [0, -1]
    """

    def __init__(self, mesh, sharding_specs) -> None:
        from .process_mesh import ProcessMesh
        if not isinstance(mesh, ProcessMesh):
            raise ValueError(f"DistAttr: mesh must be a ProcessMesh, got "
                             f"{type(mesh).__name__}")
        if not isinstance(sharding_specs, (list, tuple)):
            raise ValueError(f"DistAttr: sharding_specs must be a list, got "
                             f"{type(sharding_specs).__name__}")
        for spec in sharding_specs:
            if spec is not None and spec not in mesh.dim_names:
                raise ValueError(f"DistAttr: sharding spec {spec!r} is not a dim name of the "
                                 f"mesh {mesh.dim_names}")
        self.process_mesh = mesh
        self.sharding_specs = list(sharding_specs)
        self.dims_mapping = [-1 if s is None else mesh.dim_names.index(s)
                             for s in self.sharding_specs]

    def placements(self) -> list:
        """The equivalent placements, one per mesh dim."""
        out = [Replicate() for _ in range(self.process_mesh.ndim)]
        for tensor_dim, mesh_dim in enumerate(self.dims_mapping):
            if mesh_dim >= 0:
                out[mesh_dim] = Shard(tensor_dim)
        return out

    def __repr__(self) -> str:
        return (f"DistAttr(process_mesh={self.process_mesh}, "
                f"sharding_specs={self.sharding_specs})")


def dist_attr_of(mesh, placements: list, ndim: int) -> DistAttr:
    """The DistAttr of `placements` (a tensor dim split over several mesh dims keeps the
    first; Partial is not expressible there and reads as not split)."""
    specs = [None] * ndim
    for mesh_dim, p in enumerate(placements):
        if p.is_shard() and specs[p.get_dim()] is None:
            specs[p.get_dim()] = mesh.dim_names[mesh_dim]
    return DistAttr(mesh, specs)

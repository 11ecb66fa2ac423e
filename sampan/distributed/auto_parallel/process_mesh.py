"""ProcessMesh: an n-d array of process ids (global MPI ranks) with named dimensions, and the
process groups along one of its dimensions. Imports NumPy and distributed.env."""
from __future__ import annotations

import numpy as np


class ProcessMesh:
    """A logical n-d arrangement of processes (global ranks), each dimension named.

    Args:
        mesh (list|ndarray, optional): nested list / array of distinct process ids.
        dim_names (list[str], optional): one name per dim; default 'd0', 'd1', ...
        shape (list[int], optional): with process_ids, an alternative to `mesh`.
        process_ids (list[int], optional): with shape, the ids in row-major order.

    Examples:
        >>> import sampan.distributed as dist
        >>> mesh = dist.ProcessMesh([[0, 1], [2, 3]], dim_names=['x', 'y'])
        >>> mesh.shape, mesh.process_ids, mesh.get_dim_size('y')
        ([2, 2], [0, 1, 2, 3], 2)
        >>> mesh.get_mesh_with_dim('y').process_ids
        [0, 2, 1, 3]
    """

    def __init__(self, mesh=None, dim_names=None, shape=None, process_ids=None) -> None:
        if mesh is None:
            if shape is None or process_ids is None:
                raise ValueError("ProcessMesh: give mesh, or both shape and process_ids")
            mesh = np.asarray(process_ids).reshape(shape)
        if isinstance(mesh, ProcessMesh):
            mesh = mesh.mesh
        arr = np.asarray(mesh)
        if arr.ndim == 0 or arr.size == 0 or arr.dtype.kind not in "iu":
            raise ValueError(f"ProcessMesh: mesh must be a non-empty nested list of ints, got "
                             f"{mesh!r}")
        if len(np.unique(arr)) != arr.size or arr.min() < 0:
            raise ValueError(f"ProcessMesh: process ids must be distinct and >= 0, got "
                             f"{arr.tolist()}")
        if dim_names is None:
            dim_names = [f"d{i}" for i in range(arr.ndim)]
        dim_names = list(dim_names)
        if len(dim_names) != arr.ndim or len(set(dim_names)) != arr.ndim:
            raise ValueError(f"ProcessMesh: dim_names must be {arr.ndim} distinct names, got "
                             f"{dim_names}")
        self._mesh = arr.astype(np.int64)
        self._dim_names = dim_names

    mesh = property(lambda self: self._mesh.copy(), doc="The ids as an ndarray.")
    shape = property(lambda self: list(self._mesh.shape), doc="The mesh shape.")
    ndim = property(lambda self: self._mesh.ndim, doc="The number of mesh dims.")
    dim_names = property(lambda self: list(self._dim_names), doc="The dim names.")
    process_ids = property(lambda self: self._mesh.ravel().tolist(),
                           doc="The ids in row-major order.")

    def _dim(self, dim) -> int:
        if isinstance(dim, str):
            if dim not in self._dim_names:
                raise ValueError(f"ProcessMesh: no dim named {dim!r} (dims "
                                 f"{self._dim_names})")
            return self._dim_names.index(dim)
        if not isinstance(dim, int) or not -self.ndim <= dim < self.ndim:
            raise ValueError(f"ProcessMesh: dim must be a name or an int in "
                             f"[{-self.ndim}, {self.ndim}), got {dim!r}")
        return dim % self.ndim

    def get_dim_size(self, dim) -> int:
        """The size of mesh dim `dim` (a name or an index)."""
        return self._mesh.shape[self._dim(dim)]

    def get_mesh_with_dim(self, dim_name, index: int | None = None) -> "ProcessMesh":
        """The mesh with `dim_name` moved first (and, given `index`, only that slice)."""
        d = self._dim(dim_name)
        order = [d] + [i for i in range(self.ndim) if i != d]
        arr = np.transpose(self._mesh, order)
        names = [self._dim_names[i] for i in order]
        if index is None:
            return ProcessMesh(arr, names)
        return ProcessMesh(arr[index], names[1:]) if arr.ndim > 1 else \
            ProcessMesh([int(arr[index])], names)

    def contains(self, process_id: int) -> bool:
        return int(process_id) in self.process_ids

    def coordinate(self, process_id: int) -> list | None:
        """The position of `process_id` in the mesh, or None if it is not a member."""
        where = np.argwhere(self._mesh == int(process_id))
        return None if len(where) == 0 else [int(i) for i in where[0]]

    def group_ranks(self, dim: int, process_id: int) -> list:
        """The process ids that share every coordinate of `process_id` but the one on `dim`."""
        coord = self.coordinate(process_id)
        index = tuple(slice(None) if i == dim else c for i, c in enumerate(coord))
        return [int(v) for v in self._mesh[index].ravel()]

    def __getitem__(self, index) -> "ProcessMesh":
        if isinstance(index, str):
            return self.get_mesh_with_dim(index)
        sub = self._mesh[index]
        if np.ndim(sub) == 0:
            return ProcessMesh([int(sub)], [self._dim_names[-1]])
        kept = _kept_dims(index, self.ndim)
        return ProcessMesh(sub, [self._dim_names[i] for i in kept])

    def __eq__(self, other) -> bool:
        return (isinstance(other, ProcessMesh) and other._dim_names == self._dim_names
                and np.array_equal(other._mesh, self._mesh))

    def __ne__(self, other) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((tuple(self._mesh.shape), tuple(self.process_ids), tuple(self._dim_names)))

    def __repr__(self) -> str:
        return (f"shape {list(self.shape)}, process_ids {self.process_ids}, dim_names "
                f"{self._dim_names}")

    __str__ = __repr__


def _kept_dims(index, ndim: int) -> list:
    """Which dims survive numpy basic indexing with `index` (ints drop a dim)."""
    index = index if isinstance(index, tuple) else (index,)
    kept = [i for i, ix in enumerate(index) if not isinstance(ix, (int, np.integer))]
    return kept + list(range(len(index), ndim))

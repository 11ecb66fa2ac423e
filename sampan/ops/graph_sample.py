"""Graph neighbour sampling operators (paddle.geometric): weighted_sample_neighbors.

The graph is in CSC form: the in-neighbours of node v are row[colptr[v]:colptr[v + 1]].
Sampling without replacement with probability proportional to the edge weight uses weighted
reservoir keys u ** (1 / w) (the largest `sample_size` keys win), drawn from `rng(seed)` so
the result is a function of the inputs and the seed attr. Imports `framework` and `ops.opdef`.
"""
from __future__ import annotations

from ..framework import dtype as _dt
from ..framework.random import rng
from .opdef import OpDef, TensorSpec, register

_INTS = ("int32", "int64")


@register
class WeightedSampleNeighbors(OpDef):
    """Per input node, up to `sample_size` distinct in-edges (all when -1 or fewer exist),
    chosen with probability proportional to edge_weight; outputs the sampled neighbours
    (concatenated), the count per node (int32) and, with return_eids, the edges' eids."""

    name = "weighted_sample_neighbors"
    inputs = ("row", "colptr", "edge_weight", "input_nodes", "eids?")
    outputs = ("out_neighbors", "out_count", "out_eids")
    attrs = {"sample_size": -1, "return_eids": False, "seed": 0}
    random = True
    check = True     # infer's dtype checks run eagerly too

    def infer(self, row, colptr, edge_weight, input_nodes, eids=None, sample_size=-1,
              return_eids=False, seed=0):
        api = self.name
        for arg, t in (("row", row), ("colptr", colptr), ("input_nodes", input_nodes)):
            if t.dtype.name not in _INTS:
                raise TypeError(f"{api}: {arg} must be int32 or int64, got {t.dtype.name}")
        if row.dtype != colptr.dtype or row.dtype != input_nodes.dtype:
            raise TypeError(f"{api}: row, colptr and input_nodes must share one dtype, got "
                            f"{row.dtype.name}, {colptr.dtype.name}, {input_nodes.dtype.name}")
        if edge_weight.dtype.kind != "f":
            raise TypeError(f"{api}: edge_weight must be a float tensor, got "
                            f"{edge_weight.dtype.name}")
        if return_eids and eids is None:
            raise ValueError(f"{api}: eids must be given when return_eids is True")
        n = input_nodes.shape[0] if input_nodes.ndim else 1
        return (TensorSpec((-1,), row.dtype), TensorSpec((n,), _dt.int32),
                TensorSpec((-1,), row.dtype))

    def compute(self, xp, row, colptr, edge_weight, input_nodes, eids=None, sample_size=-1,
                return_eids=False, seed=0):
        gen = rng(seed)
        picked, counts = [], []
        for v in xp.asarray(input_nodes).reshape(-1):
            lo, hi = int(colptr[v]), int(colptr[v + 1])
            edges = xp.arange(lo, hi)
            if 0 <= sample_size < edges.size:
                w = xp.asarray(edge_weight[lo:hi], dtype=xp.float64)
                keys = gen.random(edges.size) ** (1.0 / xp.maximum(w, 1e-300))
                keys[w <= 0] = -1.0
                edges = edges[xp.sort(xp.argsort(-keys, kind="stable")[:sample_size])]
            picked.append(edges)
            counts.append(edges.size)
        index = xp.concatenate(picked) if picked else xp.zeros(0, xp.int64)
        out_eids = (xp.asarray(eids)[index] if eids is not None
                    else xp.zeros(0, dtype=row.dtype))
        return (xp.asarray(row)[index].astype(row.dtype), xp.asarray(counts, dtype=xp.int32),
                out_eids.astype(row.dtype))

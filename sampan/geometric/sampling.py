"""paddle.geometric sampling: weighted_sample_neighbors (the OpDef is in ops/graph_sample.py).
Imports `framework` and `ops`."""
from __future__ import annotations

from ..framework.random import op_seed
from ..framework.tensor import Tensor, is_variable
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY


def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size: int = -1,
                              eids=None, return_eids: bool = False, name=None):
    """Sample up to `sample_size` in-neighbours of each of `input_nodes`, without
    replacement, with probability proportional to `edge_weight` (a CSC graph: the
    in-neighbours of node v are row[colptr[v]:colptr[v + 1]]).

    Args:
        row (Tensor): int32/int64 source node of each edge, grouped by destination.
        colptr (Tensor): the CSC offsets, one more than the number of nodes (row's dtype).
        edge_weight (Tensor): float weight of each edge.
        input_nodes (Tensor): the nodes to sample for (row's dtype).
        sample_size (int, optional): neighbours per node; -1 takes all. Default -1.
        eids (Tensor, optional): each edge's id; needed when return_eids is True.
        return_eids (bool, optional): also return the sampled edges' ids. Default False.
        name (str, optional): unused.

    Returns:
        tuple: out_neighbors (the sampled neighbours, node after node), out_count (int32,
        how many per input node) and, with return_eids, out_eids.

    Examples:
        >>> import sampan as paddle
        >>> row = paddle.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7])
        >>> colptr = paddle.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13])
        >>> weight = paddle.ones([13])
        >>> nodes = paddle.to_tensor([0, 8, 1, 2])
        >>> _, count = paddle.geometric.weighted_sample_neighbors(row, colptr, weight, nodes,
        ...                                                       sample_size=2)
        >>> count.numpy().tolist()
        [2, 2, 2, 1]
    """
    for arg, t in (("row", row), ("colptr", colptr), ("edge_weight", edge_weight),
                   ("input_nodes", input_nodes)):
        if not isinstance(t, Tensor) and not is_variable(t):
            raise TypeError(f"weighted_sample_neighbors: {arg} must be a Tensor, got "
                            f"{type(t).__name__}")
    if return_eids and eids is None:
        raise ValueError("weighted_sample_neighbors: eids must be given when return_eids "
                         "is True")
    outs = dispatch(REGISTRY["weighted_sample_neighbors"],
                    (row, colptr, edge_weight, input_nodes, eids),
                    {"sample_size": int(sample_size), "return_eids": bool(return_eids),
                     "seed": op_seed()})
    return tuple(outs) if return_eids else (outs[0], outs[1])

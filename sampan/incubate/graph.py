"""paddle.incubate graph sampling helpers (graph_reindex, graph_sample_neighbors,
graph_khop_sampler): integer index bookkeeping on the host, no gradients. Graphs are CSC:
the neighbours of node n are row[colptr[n]:colptr[n + 1]].
"""
from __future__ import annotations

import numpy as np

from ..framework.random import next_seed, rng
from ..framework.tensor import Tensor
from .. import tensor as T


def _int1d(api: str, arg: str, t) -> np.ndarray:
    if not isinstance(t, Tensor):
        raise TypeError(f"{api}: {arg} must be a Tensor, got {type(t).__name__}")
    arr = np.asarray(t.numpy())
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{api}: {arg} must be an integer Tensor, got {t.dtype}")
    return arr.reshape(-1)


def _reindex(x: np.ndarray, neighbors: np.ndarray, count: np.ndarray):
    """(reindexed src, reindexed dst, out nodes): x first, then new neighbours in order."""
    index = {int(v): i for i, v in enumerate(x)}
    out_nodes = list(x)
    for v in neighbors:
        if int(v) not in index:
            index[int(v)] = len(out_nodes)
            out_nodes.append(v)
    src = np.array([index[int(v)] for v in neighbors], dtype=x.dtype)
    # count holds one block of len(x) entries per edge type: entry i belongs to x[i % len(x)]
    dst = np.repeat(np.arange(len(count), dtype=x.dtype) % max(len(x), 1), count)
    return src, dst, np.array(out_nodes, dtype=x.dtype)


def graph_reindex(x: Tensor, neighbors: Tensor, count: Tensor, value_buffer=None,
                  index_buffer=None, flag_buffer_hashtable: bool = False, name=None):
    """Renumber a sampled subgraph's nodes from 0: the input nodes first, then new neighbours.

    Args:
        x (Tensor): the input (center) nodes, int32/int64.
        neighbors (Tensor): their sampled neighbours, concatenated.
        count (Tensor): number of neighbours of each input node (sums to len(neighbors));
            for several edge types, one block of len(x) counts per type, concatenated (as
            `neighbors` is).
        value_buffer, index_buffer, flag_buffer_hashtable: GPU hashtable options, unused.

    Returns:
        (reindex_src, reindex_dst, out_nodes).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([0, 1, 2], dtype='int64')
        >>> nb = paddle.to_tensor([8, 9, 0, 4, 7, 6, 7], dtype='int64')
        >>> cnt = paddle.to_tensor([2, 3, 2], dtype='int32')
        >>> src, dst, nodes = paddle.incubate.graph_reindex(x, nb, cnt)
        >>> src.numpy().tolist(), dst.numpy().tolist(), nodes.numpy().tolist()
        ([3, 4, 0, 5, 6, 7, 6], [0, 0, 1, 1, 1, 2, 2], [0, 1, 2, 8, 9, 4, 7, 6])
    """
    api = "graph_reindex"
    xs, nb, cnt = (_int1d(api, "x", x), _int1d(api, "neighbors", neighbors),
                   _int1d(api, "count", count))
    n = xs.shape[0]
    if cnt.shape[0] % max(n, 1) or int(cnt.sum()) != nb.shape[0]:
        raise ValueError(f"{api}: count (len {cnt.shape[0]}, sum {int(cnt.sum())}) must have "
                         f"one entry per x ({n}) for each edge type, summing to "
                         f"len(neighbors) ({nb.shape[0]})")
    return tuple(T.to_tensor(a) for a in _reindex(xs, nb, cnt))


def _sample(api: str, row, colptr, nodes, sample_size: int, eids):
    out, counts, out_eids = [], [], []
    for n in nodes:
        if n < 0 or n + 1 >= colptr.shape[0]:
            raise ValueError(f"{api}: input node {int(n)} is out of range [0, "
                             f"{colptr.shape[0] - 1})")
        lo, hi = int(colptr[n]), int(colptr[n + 1])
        pick = np.arange(lo, hi)
        if 0 <= sample_size < pick.size:
            pick = np.sort(rng(next_seed()).choice(pick, sample_size, replace=False))
        out.append(row[pick])
        counts.append(pick.size)
        if eids is not None:
            out_eids.append(eids[pick])
    cat = (lambda parts, dt: np.concatenate(parts).astype(dt) if parts
           else np.zeros([0], dt))
    return (cat(out, row.dtype), np.array(counts, dtype="int32"),
            cat(out_eids, row.dtype) if eids is not None else None)


def graph_sample_neighbors(row: Tensor, colptr: Tensor, input_nodes: Tensor, eids=None,
                           perm_buffer=None, sample_size: int = -1, return_eids: bool = False,
                           flag_perm_buffer: bool = False, name=None):
    """Sample up to `sample_size` neighbours (all when -1) of each input node, without
    replacement, from a CSC graph.

    Returns:
        (out_neighbors, out_count) or, with return_eids, (out_neighbors, out_count, out_eids).

    Examples:
        >>> import sampan as paddle
        >>> row = paddle.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], dtype='int64')
        >>> colptr = paddle.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], dtype='int64')
        >>> nodes = paddle.to_tensor([0, 8, 1, 2], dtype='int64')
        >>> nb, cnt = paddle.incubate.graph_sample_neighbors(row, colptr, nodes)
        >>> nb.numpy().tolist(), cnt.numpy().tolist()
        ([3, 7, 9, 7, 0, 9, 1], [2, 2, 2, 1])
    """
    api = "graph_sample_neighbors"
    if return_eids and eids is None:
        raise ValueError(f"{api}: eids must be given when return_eids is True")
    e = _int1d(api, "eids", eids) if return_eids else None
    nb, cnt, out_e = _sample(api, _int1d(api, "row", row), _int1d(api, "colptr", colptr),
                             _int1d(api, "input_nodes", input_nodes), int(sample_size), e)
    res = (T.to_tensor(nb), T.to_tensor(cnt))
    return res + (T.to_tensor(out_e),) if return_eids else res


def graph_khop_sampler(row: Tensor, colptr: Tensor, input_nodes: Tensor, sample_sizes,
                       sorted_eids=None, return_eids: bool = False, name=None):
    """Multi-hop neighbour sampling: hop i samples `sample_sizes[i]` neighbours of the nodes
    reached so far; the edges come back renumbered over the sampled node set.

    Returns:
        (edge_src, edge_dst, sample_index, reindex_nodes[, edge_eids]): edges as [E, 1]
        indices into sample_index (the sampled nodes, input nodes first), and the positions
        of the input nodes in sample_index.

    Examples:
        >>> import sampan as paddle
        >>> row = paddle.to_tensor([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], dtype='int64')
        >>> colptr = paddle.to_tensor([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], dtype='int64')
        >>> nodes = paddle.to_tensor([0, 8], dtype='int64')
        >>> src, dst, idx, re = paddle.incubate.graph_khop_sampler(row, colptr, nodes, [-1])
        >>> idx.numpy().tolist(), re.numpy().tolist()
        ([0, 8, 3, 7, 9], [0, 1])
    """
    api = "graph_khop_sampler"
    r, cp, x = (_int1d(api, "row", row), _int1d(api, "colptr", colptr),
                _int1d(api, "input_nodes", input_nodes))
    if return_eids and sorted_eids is None:
        raise ValueError(f"{api}: sorted_eids must be given when return_eids is True")
    e = _int1d(api, "sorted_eids", sorted_eids) if return_eids else None
    frontier, all_nb, all_dst, all_e = x, [], [], []
    for size in list(sample_sizes):
        nb, cnt, oe = _sample(api, r, cp, frontier, int(size), e)
        all_nb.append(nb)
        all_dst.append(np.repeat(frontier, cnt))
        if e is not None:
            all_e.append(oe)
        frontier = np.unique(nb)
    nb = np.concatenate(all_nb) if all_nb else np.zeros([0], r.dtype)
    dst_nodes = np.concatenate(all_dst) if all_dst else np.zeros([0], r.dtype)
    _, _, nodes = _reindex(x, np.concatenate([nb, dst_nodes]), np.zeros([len(x)], "int64"))
    pos = {int(v): i for i, v in enumerate(nodes)}
    to_idx = lambda a: np.array([pos[int(v)] for v in a], dtype=r.dtype).reshape(-1, 1)  # noqa
    res = (T.to_tensor(to_idx(nb)), T.to_tensor(to_idx(dst_nodes)), T.to_tensor(nodes),
           T.to_tensor(np.arange(len(x), dtype=r.dtype)))
    if return_eids:
        res += (T.to_tensor(np.concatenate(all_e) if all_e else np.zeros([0], r.dtype)),)
    return res

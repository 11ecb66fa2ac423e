"""Op database entries for sampan/ops/graph_sample.py.

With sample_size -1 (every in-neighbour) or a sample_size no node exceeds, the op draws
nothing, so the NumPy reference is exact: each node's CSC slice of row, in order, and the
counts. The weighted draws themselves are checked in tests/geometric/test_sampling.py.
"""
import numpy as np

import sampan as paddle
from tests.ops.op_db import OpEntry, Sample


def _ref(row, colptr, weight, nodes, sample_size=-1):
    parts = [row[colptr[v]:colptr[v + 1]] for v in nodes]
    return (np.concatenate(parts) if parts else row[:0],
            np.array([len(p) for p in parts], np.int32))


def _samples(rng_, dtype):
    row = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], "int64")
    colptr = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], "int64")
    weight = rng_.uniform(0.1, 1.0, 13).astype(dtype)
    nodes = np.array([0, 8, 1, 2, 7], "int64")
    return [Sample((row, colptr, weight, nodes), name="all"),
            Sample((row, colptr, weight, nodes), {"sample_size": 2}, name="no-draw"),
            Sample((row, colptr, weight, nodes[:0]), name="no-nodes")]


ENTRIES = [
    OpEntry("weighted_sample_neighbors", paddle.geometric.weighted_sample_neighbors, _ref,
            _samples, grad=False, onnx=False),   # data-dependent output size: no ONNX rule
]

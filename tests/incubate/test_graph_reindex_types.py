"""incubate.graph_reindex over several edge types: count is one block of len(x) per type."""
import pytest

import sampan as paddle

# Paddle 3.3.1, the graph_reindex docstring example (second call: two edge types)
REF_SRC = [3, 4, 0, 5, 6, 7, 6, 0, 2, 8, 9, 1]
REF_DST = [0, 0, 1, 1, 1, 2, 2, 0, 1, 1, 1, 2]
REF_NODES = [0, 1, 2, 8, 9, 4, 7, 6, 3, 5]


def _t(v, dtype="int64"):
    return paddle.to_tensor(v, dtype=dtype)


def test_two_edge_types_concatenated():
    x = _t([0, 1, 2])
    nb = _t([8, 9, 0, 4, 7, 6, 7] + [0, 2, 3, 5, 1])
    cnt = _t([2, 3, 2] + [1, 3, 1], "int32")
    src, dst, nodes = paddle.incubate.graph_reindex(x, nb, cnt)
    assert src.numpy().tolist() == REF_SRC
    assert dst.numpy().tolist() == REF_DST
    assert nodes.numpy().tolist() == REF_NODES


def test_count_not_a_whole_number_of_blocks_is_refused():
    with pytest.raises(ValueError, match=r"graph_reindex: count \(len 4, sum 4\)"):
        paddle.incubate.graph_reindex(_t([0, 1, 2]), _t([8, 9, 0, 4]), _t([1, 1, 1, 1], "int32"))

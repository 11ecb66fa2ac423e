"""paddle.geometric.weighted_sample_neighbors: distinct in-neighbours per node, counts, eids,
weights steer the draws, seeded runs repeat, static mode, argument errors."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard

ROW = np.array([3, 7, 0, 9, 1, 4, 2, 9, 3, 9, 1, 9, 7], "int64")
COLPTR = np.array([0, 2, 4, 5, 6, 7, 9, 11, 11, 13, 13], "int64")
NODES = np.array([0, 8, 1, 2], "int64")


def _args(weight=None):
    w = np.ones(13, "float32") if weight is None else weight
    return [paddle.to_tensor(a) for a in (ROW, COLPTR, w, NODES)]


def test_all_and_sampled_neighbours():
    n, c = paddle.geometric.weighted_sample_neighbors(*_args())
    assert n.numpy().tolist() == [3, 7, 9, 7, 0, 9, 1] and c.numpy().tolist() == [2, 2, 2, 1]
    assert c.dtype == paddle.int32 and n.dtype == paddle.int64
    n, c, e = paddle.geometric.weighted_sample_neighbors(
        *_args(), sample_size=1, eids=paddle.arange(13), return_eids=True)
    assert c.numpy().tolist() == [1, 1, 1, 1]
    np.testing.assert_array_equal(ROW[e.numpy()], n.numpy())     # eids name the edges


def test_weights_steer_and_seed_repeats():
    w = np.ones(13, "float32")
    w[1] = 1000.0                       # node 0: neighbour 7 (edge 1) outweighs 3 (edge 0)
    hits = sum(paddle.geometric.weighted_sample_neighbors(*_args(w), sample_size=1)[0]
               .numpy()[0] == 7 for _ in range(40))
    assert hits >= 36
    paddle.seed(5)
    a = paddle.geometric.weighted_sample_neighbors(*_args(), sample_size=1)[0].numpy()
    paddle.seed(5)
    b = paddle.geometric.weighted_sample_neighbors(*_args(), sample_size=1)[0].numpy()
    np.testing.assert_array_equal(a, b)


def test_static_mode():
    main = paddle.static.Program()
    with static_guard(main, paddle.static.Program()):
        vs = [paddle.static.data(k, list(a.shape), str(a.dtype)) for k, a in
              (("row", ROW), ("colptr", COLPTR), ("w", np.ones(13, "float32")),
               ("nodes", NODES))]
        n, c = paddle.geometric.weighted_sample_neighbors(*vs, sample_size=2)
        got = paddle.static.Executor().run(
            main, feed={"row": ROW, "colptr": COLPTR, "w": np.ones(13, "float32"),
                        "nodes": NODES}, fetch_list=[n, c])
    assert got[1].tolist() == [2, 2, 2, 1] and len(got[0]) == 7


def test_errors():
    with pytest.raises(ValueError, match="eids must be given"):
        paddle.geometric.weighted_sample_neighbors(*_args(), return_eids=True)
    with pytest.raises(TypeError, match="row must be a Tensor"):
        paddle.geometric.weighted_sample_neighbors(ROW, *_args()[1:])
    args = _args()
    args[3] = args[3].astype("int32")
    with pytest.raises(TypeError, match="share one dtype"):
        paddle.geometric.weighted_sample_neighbors(*args)

"""paddle.static.ctr_metric_bundle against numbers recorded from PaddlePaddle 3.3.1 (legacy
static graph, FLAGS_enable_pir_api=0) on the same feeds."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard

P = np.array([[0.2], [0.9], [0.6]], "float32")
Y = np.array([[0.0], [1.0], [1.0]], "float32")
W = np.array([[0.0], [1.0], [1.0]], "float32")

# Paddle 3.3.1, first run: sqrerr, abserr, prob, q, pos_num, ins_num (and with weight W)
PADDLE_RUN1 = [[0.21], [0.7], [1.7], [[1.9064397811889648]], [2.0], [[3.0]]]
PADDLE_RUN1_W = [[0.21], [0.7], [1.7], [[0.0]], [2.0], [[0.0]]]


def _build():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        p = paddle.static.data("p", [-1, 1], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        w = paddle.static.data("w", [-1, 1], "float32")
        plain = paddle.static.ctr_metric_bundle(p, y)
        weighted = paddle.static.ctr_metric_bundle(p, y, ins_tag_weight=w)
    return main, startup, list(plain) + list(weighted)


def test_sums_match_paddle_and_accumulate_over_runs():
    main, startup, outs = _build()
    assert [o.shape for o in outs[:6]] == [[1], [1], [1], [1, 1], [1], [1, 1]]
    assert all(o.persistable for o in outs)
    exe = paddle.static.Executor()
    exe.run(startup)
    feed = {"p": P, "y": Y, "w": W}
    for run in (1, 2):
        got = exe.run(main, feed=feed, fetch_list=outs)
        for g, want in zip(got, PADDLE_RUN1 + PADDLE_RUN1_W):
            np.testing.assert_allclose(g, run * np.array(want, "float32"), rtol=1e-6)


def test_integer_labels_are_cast():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        p = paddle.static.data("p", [-1, 1], "float32")
        y = paddle.static.data("y", [-1, 1], "int64")
        sums = paddle.static.ctr_metric_bundle(p, y)
    exe = paddle.static.Executor()
    exe.run(startup)
    got = exe.run(main, feed={"p": P, "y": Y.astype("int64")}, fetch_list=list(sums))
    np.testing.assert_allclose(got[0], [0.21], rtol=1e-6)
    np.testing.assert_allclose(got[4], [2.0])


def test_bad_input_is_refused():
    main = paddle.static.Program()
    with static_guard(main, paddle.static.Program()):
        p = paddle.static.data("p", [-1, 2], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        with pytest.raises(ValueError, match="ctr_metric_bundle: input and label"):
            paddle.static.ctr_metric_bundle(p, y)
    with pytest.raises(TypeError, match="ctr_metric_bundle: input must be a static"):
        paddle.static.ctr_metric_bundle(paddle.to_tensor(P), paddle.to_tensor(Y))

"""Random ops in a static Program draw their seeds when the Program runs, and building one
consumes nothing: `paddle.seed(s)`, build, run gives what an eager call after `paddle.seed(s)`
gives (Paddle 3.3.1 does; docs/guides/advanced/auto_type_promotion_cn.md compares them)."""
import numpy as np

import sampan as paddle
from sampan.framework import random as fr
from tests.static_util import static_guard


def _eager(seed):
    paddle.seed(seed)
    return paddle.rand([3]).numpy(), paddle.randn([2]).numpy()


def test_seed_build_run_equals_eager():
    ref = _eager(2024)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        paddle.seed(2024)
        a = paddle.rand([3])
        b = paddle.randn([2])
        exe = paddle.static.Executor()
        first = exe.run(main, fetch_list=[a, b])
        second = exe.run(main, fetch_list=[a, b])
    np.testing.assert_array_equal(first[0], ref[0])
    np.testing.assert_array_equal(first[1], ref[1])
    assert not np.array_equal(second[0], first[0])  # each run draws anew


def test_building_leaves_the_global_stream_alone():
    paddle.seed(7)
    state = fr.get_rng_state()[0]["state"]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        paddle.rand([2])
        paddle.nn.functional.dropout(paddle.static.data("x", [2, 2], "float32"), 0.5)
        s1, s2 = fr.next_seed(), fr.next_seed()
    assert fr.get_rng_state()[0]["state"] == state
    assert s1 != s2 and s1 > 0 and s2 > 0


def test_eager_draws_advance_the_stream():
    paddle.seed(7)
    a = fr.next_seed()
    paddle.seed(7)
    assert fr.next_seed() == a
    assert fr.next_seed() != a

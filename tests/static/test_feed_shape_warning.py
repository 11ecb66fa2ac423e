"""Executor.run with a fed value whose shape differs from static.data's: Paddle 3.3.1 runs the
Program with the fed shape; sampan does too, with a warning. A dtype mismatch stays an error."""
import warnings

import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard


def test_shape_mismatch_warns_and_runs():
    main = paddle.static.Program()
    with static_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [-1, 1], "float32")
        y = paddle.static.data("y", [-1, 1], "float32")
        out = x != y
        exe = paddle.static.Executor()
        feed = {"x": np.array([3, 4, 10], "float32"), "y": np.array([3, 5, 10], "float32")}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got, = exe.run(main, feed=feed, fetch_list=[out])
    assert got.tolist() == [False, True, False]
    texts = sorted(str(w.message) for w in caught)
    assert len(texts) == 2 and all("declares shape [-1, 1]" in t for t in texts)
    assert "fed value of 'x' has shape [3]" in texts[0] and "'y'" in texts[1]


def test_dtype_mismatch_is_still_an_error():
    main = paddle.static.Program()
    with static_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2], "float32")
        out = x * 2.0
        with pytest.raises(TypeError, match="has dtype float64"):
            paddle.static.Executor().run(main, feed={"x": np.ones(2)}, fetch_list=[out])

"""Attribute-like arguments given as static Variables whose value the Program fixes when it
is built (paddle.full): squeeze/unsqueeze axes, interpolate size/scale_factor; a Variable
computed at run time is refused clearly. Also prelu with a 0-D weight."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F

from ..static_util import static_guard


def test_build_value_of_full_and_of_run_time_variables():
    main = paddle.static.Program()
    with static_guard(main):
        c = paddle.full([2], 3, dtype="int32")
        d = paddle.static.data("d", shape=[1], dtype="int32")
        e = c + 1
    np.testing.assert_array_equal(c._build_value(), np.array([3, 3], "int32"))
    assert d._build_value() is None and e._build_value() is None


def test_squeeze_axis_and_interpolate_scale_as_variables():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.full([], 2.0)
        x.stop_gradient = False
        out1 = paddle.squeeze(x, axis=paddle.full([], 0, dtype="int32"))
        img = paddle.static.data("img", shape=[2, 3, 6, 6], dtype="float32")
        size = [paddle.full([], 12, dtype="int32"), paddle.full([], 12, dtype="int32")]
        out2 = F.interpolate(img, size=size, mode="bilinear")
        out3 = F.interpolate(img, scale_factor=paddle.full([], 2), mode="bilinear")
        out4 = paddle.unsqueeze(x, axis=[paddle.full([1], 0, dtype="int64")])
        exe = paddle.static.Executor()
    feed = {"img": np.random.default_rng(0).random((2, 3, 6, 6)).astype("float32")}
    res = exe.run(main, feed=feed, fetch_list=[out1, out2, out3, out4])
    assert res[0].shape == () and res[0] == 2.0
    assert res[1].shape == (2, 3, 12, 12) and res[2].shape == (2, 3, 12, 12)
    np.testing.assert_allclose(res[1], res[2], rtol=1e-6)
    assert res[3].shape == (1,)


def test_run_time_variable_is_refused():
    main = paddle.static.Program()
    with static_guard(main):
        x = paddle.static.data("x", shape=[1, 3], dtype="float32")
        axis = paddle.static.data("axis", shape=[], dtype="int32")
        with pytest.raises(TypeError, match="squeeze: axis given as a Variable must have a "
                                            "value fixed when the Program is built"):
            paddle.squeeze(x, axis=axis)


def test_prelu_zero_d_weight():
    x = paddle.to_tensor([[1.0, -2.0], [3.0, -4.0]])
    out = F.prelu(x, paddle.full([], 0.25))
    np.testing.assert_allclose(out.numpy(), [[1.0, -0.5], [3.0, -1.0]])   # Paddle 3.3.1
    assert float(F.prelu(paddle.full([], -1.0), paddle.full([], 0.25))) == -0.25
    with pytest.raises(AssertionError, match="dim count of weight shape should be 0 or 1"):
        F.prelu(x, paddle.full([1, 1], 0.25))


def test_static_group_norm_checks_rank_before_mode():
    with pytest.raises(ValueError, match="group_norm: the dimensions of input should be more"):
        paddle.static.nn.group_norm(paddle.to_tensor([], dtype="float32"), 3)
    with pytest.raises(AssertionError, match="group_norm"):   # StaticModeError
        paddle.static.nn.group_norm(paddle.rand([2, 6, 4, 4]), 3)

"""Static parameters shared by ParamAttr name (Paddle's weight sharing in static mode): the
second layer reuses the first one's parameter, gradients add up; a mismatched shape or a
non-parameter of that name is a clear error."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard


def test_embeddings_share_w2v():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 1], "int64")
        y = paddle.static.data("y", [-1, 1], "int64")
        attr = paddle.ParamAttr(name="s4_w2v")
        e1 = paddle.static.nn.embedding(x, size=[10, 4], param_attr=attr)
        e2 = paddle.static.nn.embedding(y, size=[10, 4], param_attr=attr)
        _, pairs = paddle.optimizer.SGD(0.1).minimize(paddle.mean(e1 + e2))
        assert [p.name for p, _ in pairs] == ["s4_w2v"]
        assert sum(v.is_parameter for v in main.global_block().vars.values()) == 1
        exe = paddle.static.Executor()
        exe.run(startup)
        grad, = exe.run(main, feed={"x": np.array([[1]]), "y": np.array([[1]])},
                        fetch_list=["s4_w2v@GRAD"])
    np.testing.assert_allclose(grad[1], np.full(4, 2 / 4))   # two uses of row 1
    assert not grad[0].any()


def test_mismatched_shared_parameter():
    with static_guard(paddle.static.Program(), paddle.static.Program()):
        paddle.static.create_parameter([3, 2], "float32", name="s4_shared")
        assert paddle.static.create_parameter([3, 2], "float32", name="s4_shared") is not None
        with pytest.raises(ValueError, match="already has a parameter named 's4_shared'"):
            paddle.static.create_parameter([4, 2], "float32", name="s4_shared")

"""paddle.create_parameter is paddle.static.create_parameter: eager Parameter in dynamic
mode, a Parameter of the main Program (initialised by the startup one) while building, so
it can be fetched by name and trained by minimize."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard


def test_dynamic_mode_gives_an_eager_parameter():
    w = paddle.create_parameter([2, 3], "float32", is_bias=True)
    assert isinstance(w, paddle.Tensor) and float(w.sum()) == 0.0
    assert paddle.tensor.create_parameter is paddle.create_parameter


def test_static_mode_builds_into_the_main_program():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        px = paddle.create_parameter(
            [2], "float32", attr=paddle.ParamAttr(name="s4_px"),
            default_initializer=paddle.nn.initializer.Assign(np.ones(2, "float32")))
        assert "s4_px" in main.global_block().vars
        loss = paddle.mean(px * 3.0)
        paddle.optimizer.SGD(0.1).minimize(loss)
        exe = paddle.static.Executor()
        exe.run(startup)
        got = exe.run(main, fetch_list=["s4_px", "s4_px@GRAD"])
    np.testing.assert_allclose(got[1], [1.5, 1.5])
    np.testing.assert_allclose(got[0], [0.85, 0.85])      # fetched after the SGD step


def test_static_argument_errors():
    with static_guard(paddle.static.Program(), paddle.static.Program()):
        with pytest.raises(TypeError, match="cannot make a parameter attribute from ndarray"):
            paddle.create_parameter([1, 2, 3], np.float32, attr=np.arange(6))
        with pytest.raises(TypeError, match="default_initializer must be an Initializer"):
            paddle.create_parameter([1, 2, 3], np.float32, default_initializer=np.arange(6))
        with pytest.raises(TypeError):
            paddle.create_parameter([1.0, 2.0], "float32")
        assert paddle.create_parameter([2], "float32", attr="s4_by_str").name == "s4_by_str"

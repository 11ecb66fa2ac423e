"""Variable.grad_name and append_backward's gradients for Variables the user marked
stop_gradient=False (Paddle names them `<name>@GRAD` and computes them too)."""
import numpy as np

import sampan as paddle
from tests.static_util import static_guard


def test_grad_name_of_a_marked_variable_is_fetchable():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.full(shape=[], dtype="float32", fill_value=-2.0)
        x.stop_gradient = False
        pred = paddle.full(shape=[], dtype="bool", fill_value=False)
        out = paddle.static.nn.control_flow.case(pred_fn_pairs=[(pred, lambda: x * 3)],
                                                 default=lambda: -x)
        paddle.static.append_backward(out)
        assert x.grad_name == x.name + "@GRAD"
        res = paddle.static.Executor().run(main, fetch_list=[out.name, x.grad_name])
    np.testing.assert_allclose(res[0], 2.0)
    np.testing.assert_allclose(res[1], -1.0)


def test_unmarked_intermediates_get_no_gradient_variable():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [2], "float32")
        x.stop_gradient = False
        y = x * 2
        loss = (y * y).sum()
        paddle.static.append_backward(loss)
        names = set(main.global_block().vars)
    assert "x@GRAD" in names

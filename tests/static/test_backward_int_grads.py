"""append_backward through an integer Variable the user marked stop_gradient=False: as in
eager mode (and Paddle), every output of an op it feeds is differentiable, so the integer
input and the outputs get gradients of their own dtype. Also: no_grad_set's type checks."""
import numpy as np
import pytest

import sampan as paddle
from tests.static_util import static_guard


def test_int_getitem_gradients_match_eager():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.arange(2 * 3 * 4 * 5).reshape((2, 3, 4, 5))
        x.stop_gradient = False
        out = x[1, 2, 3, 4]
        pairs = paddle.static.append_backward(out.sum(), parameter_list=[x, out])
        assert [g is not None for _, g in pairs] == [True, True]
        res = paddle.static.Executor().run(main, fetch_list=[out] + [g for _, g in pairs])
    want = np.zeros((2, 3, 4, 5))
    want[1, 2, 3, 4] = 1
    assert res[0] == 119 and res[2].shape == () and res[2] == 1
    np.testing.assert_array_equal(res[1], want)
    xe = paddle.arange(120).reshape((2, 3, 4, 5))
    xe.stop_gradient = False
    xe[1, 2, 3, 4].sum().backward()
    np.testing.assert_array_equal(xe.grad.numpy(), res[1])


def test_float_programs_keep_int_outputs_without_gradients():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [3], "float32")
        x.stop_gradient = False
        idx = paddle.argmax(x)  # int64 output of a float input: no gradient flows there
        loss = (x * 2.0).sum() + paddle.cast(idx, "float32")
        grads = paddle.static.gradients([loss], [x])
        res, = paddle.static.Executor().run(
            main, feed={"x": np.array([1.0, 3.0, 2.0], "float32")}, fetch_list=grads)
    np.testing.assert_array_equal(res, [2.0, 2.0, 2.0])


def test_no_grad_set_must_be_a_collection_of_variables_or_names():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 3], "float32")
        x.stop_gradient = False
        loss = paddle.static.nn.fc(x, 2).mean()
        with pytest.raises(TypeError, match="append_backward: no_grad_set must be a set, "
                                            "list or tuple .* got str"):
            paddle.static.append_backward(loss, no_grad_set="x")
        with pytest.raises(TypeError, match="no_grad_set members must be Variables or "
                                            "names, got int 3"):
            paddle.optimizer.SGD(0.1).minimize(loss, no_grad_set=[x, "x", 3])
        with pytest.raises(TypeError, match="gradients: no_grad_set must be"):
            paddle.static.gradients([loss], [x], no_grad_set=1)
        assert len(main.global_block().ops) == 3  # the refused calls appended nothing
        grads = paddle.static.gradients([loss], [x], no_grad_set={"x"})
        assert grads == [None]

"""static.nn.static_pylayer and static.nn.nce against numbers recorded from Paddle 3.3.1
(static_pylayer under PIR; nce under FLAGS_enable_pir_api=0, the legacy static graph)."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from tests.static_util import static_guard

PYLAYER_OUT = [[3.0, 4.946163654327393, 1.1036384105682373],
               [8.154845237731934, 22.16716766357422, 3.3155128955841064]]
PYLAYER_GRAD = [[5.436563491821289, 14.778112411499023, 40.17107391357422]] * 2
NCE_COST = [[0.20276781916618347], [0.4504218101501465], [0.10263153165578842]]
NCE_GRAD_X = [[0.0033690589480102062, 0.004211322870105505, 0.005053587723523378,
               0.005895852576941252],
              [0.0050004576332867146, 0.0062505705282092094, 0.0075006852857768536,
               0.008750800043344498],
              [0.0016423668712377548, 0.0020529581233859062, 0.002463549841195345,
               0.0028741415590047836]]
NCE_NOBIAS = [[0.18064361810684204], [0.20817337930202484], [0.18360529839992523]]
XI = np.array([[1., 2., 0.5, -1.], [0.3, -0.2, 1., 2.], [0., 1., 1., 0.]], "float32")
YI = np.array([[1], [4], [0]], "int64")


def test_static_pylayer_uses_backward_fn():
    main, start = static.Program(), static.Program()
    with static_guard(main, start):
        x = static.data("X", [None, 3], "float32")
        x.stop_gradient = False
        y = static.nn.static_pylayer(lambda v: paddle.exp(v) * 3, [x],
                                     lambda dy: 2 * paddle.exp(dy))
        loss = (y * paddle.to_tensor([1., 2., 3.])).sum()
        g = static.gradients([loss], x)[0]
    exe = static.Executor()
    exe.run(start)
    xv = np.array([[0., 0.5, -1.], [1., 2., 0.1]], "float32")
    out, grad = exe.run(main, feed={"X": xv}, fetch_list=[y, g])
    np.testing.assert_allclose(out, PYLAYER_OUT, rtol=1e-6)
    np.testing.assert_allclose(grad, PYLAYER_GRAD, rtol=1e-6)


def test_static_pylayer_without_backward_and_errors():
    main, start = static.Program(), static.Program()
    with static_guard(main, start):
        x = static.data("X", [2], "float32")
        y = static.nn.static_pylayer(lambda v: v + 1, [x])
        x2 = static.data("X2", [2], "float32")
        x2.stop_gradient = False
        with pytest.raises(ValueError, match="static_pylayer: stop_gradient"):
            static.nn.static_pylayer(lambda v: v, [x2])
        with pytest.raises(TypeError, match="static_pylayer: forward_fn"):
            static.nn.static_pylayer(3, [x])
    (out,) = static.Executor().run(main, feed={"X": np.ones(2, "float32")}, fetch_list=[y])
    assert out.tolist() == [2.0, 2.0]


def _nce_program(bias: bool, weight: bool):
    main, start = static.Program(), static.Program()
    with static_guard(main, start):
        x = static.data("x", [None, 4], "float32")
        x.stop_gradient = False
        y = static.data("y", [None, 1], "int64")
        sw = static.data("sw", [None, 1], "float32") if weight else None
        b_attr = paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(
            np.array([0.1, -0.2, 0.3, 0.4, 0.5], "float32"))) if bias else False
        cost = static.nn.nce(
            x, y, 5, sample_weight=sw, num_neg_samples=2, sampler="custom_dist",
            custom_dist=[0., 0., 0., 1., 0.], bias_attr=b_attr,
            param_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(
                np.arange(20.).reshape(5, 4).astype("float32") / 20 - 0.4)))
        gx = static.gradients([paddle.mean(cost)], [x])[0]
    exe = static.Executor()
    exe.run(start)
    return exe, main, cost, gx


def test_nce_matches_paddle():
    # custom_dist puts all noise on class 3, so the draws (and Paddle's numbers) are fixed
    exe, main, cost, gx = _nce_program(bias=True, weight=True)
    c, g = exe.run(main, feed={"x": XI, "y": YI, "sw": np.array([[1.], [2.], [.5]], "float32")},
                   fetch_list=[cost, gx])
    np.testing.assert_allclose(c, NCE_COST, rtol=1e-5)
    np.testing.assert_allclose(g, NCE_GRAD_X, rtol=1e-5)
    exe, main, cost, _ = _nce_program(bias=False, weight=False)
    (c,) = exe.run(main, feed={"x": XI, "y": YI}, fetch_list=[cost])
    np.testing.assert_allclose(c, NCE_NOBIAS, rtol=1e-5)


def test_nce_uniform_sampler_and_errors():
    paddle.seed(0)
    main, start = static.Program(), static.Program()
    with static_guard(main, start):
        x = static.data("x", [None, 4], "float32")
        y = static.data("y", [None, 1], "int64")
        cost = static.nn.nce(x, y, 50, num_neg_samples=4)
        assert [p.shape for p in main.global_block().all_parameters()] == [[50, 4], [50]]
        with pytest.raises(ValueError, match="nce: sampler"):
            static.nn.nce(x, y, 5, sampler="zipf")
        with pytest.raises(ValueError, match="nce: custom_dist"):
            static.nn.nce(x, y, 5, sampler="custom_dist", custom_dist=[0.5, 0.5])
    exe = static.Executor()
    exe.run(start)
    (c,) = exe.run(main, feed={"x": XI, "y": YI}, fetch_list=[cost])
    assert c.shape == (3, 1) and np.all(np.isfinite(c)) and np.all(c > 0)
    with pytest.raises(Exception, match="nce"):
        static.nn.nce(paddle.ones([3, 4]), paddle.ones([3, 1], "int64"), 5)

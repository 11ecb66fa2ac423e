"""adaptive_log_softmax_with_loss and AdaptiveLogSoftmaxWithLoss (Paddle 3.x); values,
gradients and messages recorded from Paddle 3.3.1 on the same inputs."""
import numpy as np
import pytest

import sampan as paddle

F = paddle.nn.functional
OUT = [-1.4940792322158813, -5.3076701164245605, -2.686474561691284, -0.8407007455825806,
       -2.821082830429077, -3.2937169075012207]
LOSS = 2.7406208515167236
X_GRAD_ROW0 = [-0.016660848632454872, 0.0831184983253479, 0.03194884583353996,
               0.0007203090935945511, 0.1960749626159668, 0.15371443331241608,
               -0.06398351490497589, 0.006125620566308498]
HB_GRAD = [0.20372863113880157, 0.2154916524887085, -0.0024333903566002846,
           -0.23076695203781128, -0.1860199272632599]
LOG_PROB_ROW0 = [-1.4940792322158813, -1.4996371269226074, -2.587900161743164,
                 -3.550375461578369, -2.6390488147735596, -1.5816724300384521,
                 -2.952620506286621, -4.365046977996826, -4.309340953826904,
                 -2.374910831451416]


def _weights():
    np.random.seed(0)
    w = {"hw": np.random.randn(8, 5) * 0.5, "hb": np.random.randn(5) * 0.1,
         "t00": np.random.randn(8, 4) * 0.5, "t01": np.random.randn(4, 3) * 0.5,
         "t10": np.random.randn(8, 2) * 0.5, "t11": np.random.randn(2, 4) * 0.5}
    w = {k: v.astype("float32") for k, v in w.items()}
    x = np.random.randn(6, 8).astype("float32")
    return w, x, np.array([0, 4, 9, 2, 7, 5])


def _call(x, label, t):
    return F.adaptive_log_softmax_with_loss(
        x, label, t["hw"], [[t["t00"], t["t01"]], [t["t10"], t["t11"]]], [3, 6, 10], t["hb"])


def test_values_and_gradients_match_paddle():
    w, x, label = _weights()
    t = {k: paddle.to_tensor(v, stop_gradient=False) for k, v in w.items()}
    xt = paddle.to_tensor(x, stop_gradient=False)
    out, loss = _call(xt, paddle.to_tensor(label), t)
    np.testing.assert_allclose(out.numpy(), OUT, rtol=1e-5)
    np.testing.assert_allclose(float(loss), LOSS, rtol=1e-6)
    loss.backward()
    np.testing.assert_allclose(xt.grad.numpy()[0], X_GRAD_ROW0, rtol=1e-4, atol=1e-7)
    np.testing.assert_allclose(t["hb"].grad.numpy(), HB_GRAD, rtol=1e-5, atol=1e-7)


def test_unbatched_call():
    w, x, label = _weights()
    t = {k: paddle.to_tensor(v) for k, v in w.items()}
    out, loss = _call(paddle.to_tensor(x[1]), paddle.to_tensor(label[1]), t)
    assert out.shape == [] and abs(float(out) - OUT[1]) < 1e-5
    assert abs(float(loss) + OUT[1]) < 1e-5


def test_errors():
    w, x, label = _weights()
    t = {k: paddle.to_tensor(v) for k, v in w.items()}
    xt = paddle.to_tensor(x)
    for bad, lo in ((label * 0 + 10, 10), (label * 0 - 1, -1)):
        with pytest.raises(ValueError, match=rf"label values should be in \[0, n_classes - 1\]"
                                             rf".*\[{lo}, {lo}\]"):
            _call(xt, paddle.to_tensor(bad), t)
    with pytest.raises(ValueError, match="same size in the batch dimension"):
        _call(xt, paddle.to_tensor(label[:3]), t)
    with pytest.raises(ValueError, match="multi-label is not supported"):
        _call(xt, paddle.to_tensor(label.reshape(2, 3)), t)
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        paddle.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3])


def test_layer_log_prob_predict_and_parameters():
    w, x, label = _weights()
    paddle.seed(0)
    layer = paddle.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True)
    assert layer.cutoffs == [3, 6, 10] and layer.head_size == 5 and layer.n_clusters == 2
    assert [tuple(p.shape) for p in layer.parameters()] == [
        (8, 5), (5,), (8, 4), (4, 3), (8, 2), (2, 4)]
    layer.head_weight.set_value(w["hw"])
    layer.head_bias.set_value(w["hb"])
    for i, j, key in ((0, 0, "t00"), (0, 1, "t01"), (1, 0, "t10"), (1, 1, "t11")):
        layer.tail_weights[i][j].set_value(w[key])
    xt = paddle.to_tensor(x)
    log_prob = layer.log_prob(xt)
    np.testing.assert_allclose(log_prob.numpy()[0], LOG_PROB_ROW0, rtol=1e-5)
    np.testing.assert_allclose(log_prob.exp().sum(1).numpy(), np.ones(6), rtol=1e-5)
    pred = layer.predict(xt)
    assert pred.dtype == paddle.float32 and pred.numpy().tolist() == [0., 1., 0., 2., 0., 0.]
    out, loss = layer(xt, paddle.to_tensor(label))
    np.testing.assert_allclose(out.numpy(), OUT, rtol=1e-5)


def test_static_mode_builds_and_runs():
    from tests.static_util import static_guard
    main, startup = paddle.static.Program(), paddle.static.Program()
    with static_guard(main, startup):
        x = paddle.static.data("x", [-1, 4], "float32")
        y = paddle.static.data("y", [-1], "int64")
        tails = [[paddle.zeros([4, 2]), paddle.zeros([2, 2])]]
        out, loss = F.adaptive_log_softmax_with_loss(x, y, paddle.zeros([4, 3]), tails, [2, 4])
    got, got_loss = paddle.static.Executor().run(
        main, feed={"x": np.ones([2, 4], "float32"), "y": np.array([0, 3])},
        fetch_list=[out, loss])
    np.testing.assert_allclose(got, [np.log(1 / 3), np.log(1 / 6)], rtol=1e-6)
    np.testing.assert_allclose(got_loss, -(np.log(1 / 3) + np.log(1 / 6)) / 2, rtol=1e-6)

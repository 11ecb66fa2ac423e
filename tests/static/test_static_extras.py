"""static.accuracy, static.auc, ExponentialMovingAverage, device_guard, save_to_file /
load_from_file, xpu_places, WeightNormParamAttr. Numbers checked against Paddle 3.3.1
(legacy static, FLAGS_enable_pir_api=0)."""
import numpy as np
import pytest

import sampan as paddle
from sampan import static
from tests.static_util import static_guard

RNG = np.random.default_rng(0)
XV = RNG.random((6, 3)).astype("float32")
YV = np.array([[0], [1], [2], [1], [0], [2]], "int64")
_Q = RNG.random((6, 1)).astype("float32")
PV = np.concatenate([1 - _Q, _Q], 1)
YB = np.array([[0], [1], [1], [1], [0], [0]], "int64")


@pytest.fixture
def progs():
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        yield main, startup


def test_accuracy_static_and_eager(progs):
    main, _ = progs
    x = static.data("x", [-1, 3], "float32")
    y = static.data("y", [-1, 1], "int64")
    correct = static.create_global_var([1], 0, "int64", persistable=True)
    total = static.create_global_var([1], 0, "int64", persistable=True)
    acc2 = static.accuracy(x, y, k=2, correct=correct, total=total)
    acc1 = static.accuracy(x, y)
    assert acc1.shape == [] and acc1.dtype.name == "float32"
    exe = static.Executor()
    exe.run(progs[1])
    a2, a1, c, t = exe.run(main, feed={"x": XV, "y": YV}, fetch_list=[acc2, acc1, correct,
                                                                      total])
    np.testing.assert_allclose([a2, a1], [0.8333333, 0.33333334], rtol=1e-6)  # Paddle
    assert c.tolist() == [5] and t.tolist() == [6]


def test_accuracy_eager_and_errors():
    x, y = paddle.to_tensor(XV), paddle.to_tensor(YV)
    np.testing.assert_allclose(static.accuracy(x, y, k=2).numpy(), 0.8333333, rtol=1e-6)
    with pytest.raises(ValueError, match="k must be a positive int"):
        static.accuracy(x, y, k=0)
    with pytest.raises(TypeError, match="label must be an integer"):
        static.accuracy(x, paddle.to_tensor(YV.astype("float32")))


def test_auc_accumulates_like_paddle(progs):
    main, startup = progs
    p = static.data("p", [-1, 2], "float32")
    y = static.data("y", [-1, 1], "int64")
    auc, batch_auc, stats = static.auc(p, y, num_thresholds=7)
    assert [s.shape for s in stats] == [[17], [17], [1, 8], [1, 8]]
    assert all(s.persistable and s.dtype.name == "int64" for s in stats)
    exe = static.Executor()
    exe.run(startup)
    for _ in range(2):
        exe.run(main, feed={"p": PV, "y": YV})
    got = [exe.run(main, feed={"p": PV, "y": YB}, fetch_list=[auc, batch_auc] + stats)
           for _ in range(2)]
    # Paddle 3.3.1 on the same feeds
    np.testing.assert_allclose([got[0][0], got[0][1]], [0.18831169, 0.05555556], rtol=1e-6)
    np.testing.assert_allclose([got[1][0], got[1][1]], [0.15714286, 0.05555556], rtol=1e-6)
    assert got[1][2].tolist() == [2, 0, 1, 0, 0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 4]
    assert got[1][3].tolist() == [0, 0, 1, 0, 2, 0, 0, 0, 0, 0, 1, 0, 2, 0, 0, 0, 4]
    assert got[1][4].tolist() == [[8, 0, 4, 0, 2, 0, 0, 0]]
    assert got[1][5].tolist() == [[0, 0, 4, 0, 6, 0, 0, 0]]


def test_auc_eager_and_errors():
    g, b, stats = static.auc(paddle.to_tensor(PV), paddle.to_tensor(YB), num_thresholds=7)
    np.testing.assert_allclose([g.numpy(), b.numpy()], [0.05555556, 0.05555556], rtol=1e-6)
    assert stats[3].numpy().tolist() == [[0, 0, 1, 0, 2, 0, 0, 0]]
    with pytest.raises(ValueError, match="curve must be 'ROC' or 'PR'"):
        static.auc(paddle.to_tensor(PV), paddle.to_tensor(YB), curve="XY")
    with pytest.raises(ValueError, match=r"auc: input probabilities must lie in \[0, 1\]"):
        static.auc(paddle.to_tensor(PV * 3), paddle.to_tensor(YB))
    with pytest.raises(ValueError, match="one value per row"):
        static.auc(paddle.to_tensor(PV), paddle.to_tensor(YB[:3]))


def _sgd_program(ema_decay=0.9, thres=False):
    main, startup = static.Program(), static.Program()
    with static_guard(main, startup):
        x = static.data("x", [-1, 2], "float32")
        w = static.create_parameter([2, 1], "float32", name="w_ema",
                                    default_initializer=paddle.nn.initializer.Constant(0.5))
        loss = paddle.mean(paddle.matmul(x, w) ** 2)
        test = main.clone(for_test=True)
        paddle.optimizer.SGD(0.1, parameters=[w]).minimize(loss)
        steps = static.create_global_var([1], 0.0, "float32", persistable=True) if thres \
            else None
        ema = static.ExponentialMovingAverage(ema_decay, thres_steps=steps)
        ema.update()
    return main, startup, test, ema


def test_exponential_moving_average_apply_restore():
    main, startup, test, ema = _sgd_program()
    xv = np.array([[1.0, 2.0], [3.0, -1.0]], "float32")
    exe = static.Executor()
    with static.scope_guard(static.Scope()):
        exe.run(startup)
        shadow = np.zeros((2, 1), "float32")
        for _ in range(3):
            exe.run(main, feed={"x": xv})
            w = exe.run(test, feed={"x": xv}, fetch_list=["w_ema"])[0]
            shadow = 0.9 * shadow + 0.1 * w
        want = shadow / (1 - np.float32(0.9) ** 3)
        with ema.apply(exe):
            applied = exe.run(test, feed={"x": xv}, fetch_list=["w_ema"])[0]
        np.testing.assert_allclose(applied, want, rtol=1e-5)
        np.testing.assert_array_equal(exe.run(test, feed={"x": xv}, fetch_list=["w_ema"])[0],
                                      w)
        with ema.apply(exe, need_restore=False):
            pass
        np.testing.assert_allclose(exe.run(test, feed={"x": xv}, fetch_list=["w_ema"])[0],
                                   want, rtol=1e-5)
        ema.restore(exe)
        np.testing.assert_array_equal(exe.run(test, feed={"x": xv}, fetch_list=["w_ema"])[0],
                                      w)


def test_exponential_moving_average_errors():
    with pytest.raises(AssertionError, match="ExponentialMovingAverage: only supported in "
                                             "static graph mode"):
        static.ExponentialMovingAverage(0.9)
    with static_guard(static.Program(), static.Program()):
        with pytest.raises(ValueError, match=r"decay must be a float in \[0, 1\]"):
            static.ExponentialMovingAverage(1.5)
        ema = static.ExponentialMovingAverage(0.9)
        with pytest.raises(ValueError, match="no trainable parameters"):
            ema.update()
        with pytest.raises(RuntimeError, match="call update"):
            with ema.apply(None):
                pass


def test_device_guard_validates_and_is_a_no_op(progs):
    x = static.data("x", [2], "float32")
    for dev in ("cpu", "gpu", "gpu:0", "xpu", "", None):
        with static.device_guard(dev):
            y = x + 1.0
    assert y.shape == [2]
    with pytest.raises(ValueError, match="should not set device id for cpu"):
        with static.device_guard("cpu:0"):
            pass
    with pytest.raises(ValueError, match="Attr\\(device\\) should be"):
        with static.device_guard("tpu"):
            pass


def test_save_load_file_xpu_places_weight_norm(tmp_path):
    path = str(tmp_path / "blob")
    static.save_to_file(path, b"abc")
    assert static.load_from_file(path) == b"abc"
    with pytest.raises(ValueError, match="should be bytes"):
        static.save_to_file(path, "abc")
    assert static.xpu_places() == []
    attr = static.WeightNormParamAttr(dim=0, name="wn")
    assert isinstance(attr, paddle.ParamAttr) and attr.name == "wn"

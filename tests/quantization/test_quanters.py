"""Fake quanters and observers: values against recorded Paddle 3.3.1 numbers (CPU), the
straight-through gradient, rounding, and argument errors."""
import numpy as np
import pytest

import sampan as paddle
from sampan.quantization.functional import (dequantize_linear, fake_quant_dequant,
                                            quantize_linear)
from sampan.quantization.observers import (AbsMaxChannelWiseWeightObserver, AbsmaxObserver,
                                           HistObserver, KLObserver,
                                           MovingAverageAbsmaxObserver)
from sampan.quantization.quanters import (FakeQuanterChannelWiseAbsMax,
                                          FakeQuanterWithAbsMaxObserver)

X1 = np.array([[-1.5, 0.3, 2.0], [0.7, -0.05, 1.0]], "float32")
X2 = np.array([[3.0, -0.2, 0.5], [0.25, 1.25, -2.5]], "float32")

# Paddle 3.3.1, FakeQuanterWithAbsMaxObserver(moving_rate=0.9)._instance(None) in train mode
# called on X1 then X2, then in eval mode on X1 (/tmp/h18/pd_ref.py)
PD_OUT1 = [[-1.5022793, 0.30045587, 1.5263158], [0.6970576, -0.048072938, 0.9975135]]
PD_STEP1 = (1.5263158, 1.9, 2.9)        # scale, state, accum
PD_OUT2 = [[2.0701108, -0.19560102, 0.5053026], [0.24450128, 1.2551066, -2.0701108]]
PD_STEP2 = (2.0701108, 2.71, 5.61)
PD_EVAL = [[-1.4996078, 0.2934015, 2.0049105], [0.70090365, -0.048900254, 0.9943052]]


def test_moving_average_quanter_matches_paddle():
    q = FakeQuanterWithAbsMaxObserver(moving_rate=0.9)._instance(None)
    q.train()
    for x, want, (scale, state, accum) in ((X1, PD_OUT1, PD_STEP1), (X2, PD_OUT2, PD_STEP2)):
        t = paddle.to_tensor(x, stop_gradient=False)
        out = q(t)
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(q._scale.numpy(), [scale], rtol=1e-6)
        np.testing.assert_allclose(q._state.numpy(), [state], rtol=1e-6)
        np.testing.assert_allclose(q._accum.numpy(), [accum], rtol=1e-6)
        out.sum().backward()
        np.testing.assert_array_equal(t.grad.numpy(), np.ones_like(x))  # straight through
    q.eval()
    np.testing.assert_allclose(q(paddle.to_tensor(X1)).numpy(), PD_EVAL, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(q._state.numpy(), [PD_STEP2[1]], rtol=1e-6)  # eval: no update


def test_initial_state_is_paddles():
    q = FakeQuanterWithAbsMaxObserver()._instance(None)
    assert [float(q._scale), float(q._state), float(q._accum)] == pytest.approx([0.001, 1, 1])
    assert q.quant_axis() == -1 and q.bit_length() == 8


def test_rounding_is_half_away_from_zero_as_paddle():
    x = paddle.to_tensor([0.5, 1.5, 2.5, -0.5, -2.5, 200.0])
    got = fake_quant_dequant(x, paddle.to_tensor([127.0])).numpy()
    # Paddle 3.3.1 quanter with scale 127 (eval mode); paddle.round would give 0, 2, 2, ...
    np.testing.assert_array_equal(got, [1.0, 2.0, 3.0, -1.0, -3.0, 127.0])
    q = quantize_linear(x, paddle.to_tensor([127.0]))
    assert q.dtype == paddle.int8
    np.testing.assert_array_equal(q.numpy(), [1, 2, 3, -1, -3, 127])


def test_straight_through_gradient_ignores_clipping_and_scale():
    x = paddle.to_tensor([0.3, -5.0, 9.0], stop_gradient=False)
    s = paddle.to_tensor([1.0], stop_gradient=False)
    (fake_quant_dequant(x, s) * paddle.to_tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 2.0, 3.0])
    assert s.grad is None


def test_per_channel_and_zero_scale():
    x = paddle.to_tensor([[1.0, 0.1], [-0.5, 0.2]])
    got = fake_quant_dequant(x, paddle.to_tensor([1.0, 0.0]), quant_axis=1).numpy()
    np.testing.assert_allclose(got[:, 0], [1.0, -64 / 127], rtol=1e-6)
    np.testing.assert_array_equal(got[:, 1], [0.0, 0.0])      # scale 0: everything maps to 0
    q = FakeQuanterChannelWiseAbsMax()._instance(paddle.nn.Linear(2, 2))
    q(x)
    np.testing.assert_allclose(q.scales().numpy(), [1.0, 0.2])
    assert q.quant_axis() == 1


def test_dequantize_int32_accumulator_per_channel():
    acc = paddle.to_tensor(np.array([[127 * 127, -127]], "int32"))
    out = dequantize_linear(acc, paddle.to_tensor([2.0 / 127, 1.0]), quant_axis=1).numpy()
    np.testing.assert_allclose(out, [[2.0, -1.0]], rtol=1e-6)   # acc * scale / 127


@pytest.mark.parametrize("call, match", [
    (lambda: fake_quant_dequant(paddle.ones([2]), paddle.ones([2])), "per tensor"),
    (lambda: fake_quant_dequant(paddle.ones([2, 3]), paddle.ones([2]), quant_axis=1),
     r"shape \[3\]"),
    (lambda: fake_quant_dequant(paddle.ones([2]), paddle.ones([1]), bit_length=1),
     "bit_length"),
    (lambda: quantize_linear(paddle.ones([2], "int32"), paddle.ones([1])), "floating"),
    (lambda: dequantize_linear(paddle.ones([2]), paddle.ones([1])), "int8, int16 or int32"),
])
def test_errors_name_the_op_and_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def test_abs_max_observers():
    ob = AbsmaxObserver()._instance(None)
    out = ob(paddle.to_tensor(X1))
    np.testing.assert_array_equal(out.numpy(), X1)   # observers do not change the data
    ob(paddle.to_tensor(X2))
    assert float(ob.scales()) == 3.0                  # Paddle 3.3.1 AbsmaxObserver: 3.0
    mv = MovingAverageAbsmaxObserver(moving_rate=0.9)._instance(None)
    mv(paddle.to_tensor(X1))
    mv(paddle.to_tensor(X2))
    assert float(mv.scales()) == pytest.approx(PD_STEP2[0], rel=1e-6)  # same as the quanter
    cw = AbsMaxChannelWiseWeightObserver()._instance(paddle.nn.Conv2D(2, 3, 1))
    w = np.arange(6, dtype="float32").reshape(3, 2, 1, 1) - 2.5
    cw(paddle.to_tensor(w))
    np.testing.assert_array_equal(cw.scales().numpy(), [2.5, 0.5, 2.5])
    assert cw.quant_axis() == 0


def test_observer_without_data_raises():
    with pytest.raises(RuntimeError, match="no data observed"):
        AbsmaxObserver()._instance(None).scales()


def test_hist_observer_percentile_and_range_growth():
    ob = HistObserver(percent=0.5, bins_count=100)._instance(None)
    ob(paddle.arange(1, 101, dtype="float32"))   # bins of width 1; 50 lies in [50, 51)
    assert float(ob.scales()) == pytest.approx(51.0)
    ob(paddle.to_tensor([300.0]))            # widens the range 3x; counts are kept
    # bins of width 3 now; the 51st of 101 values (51) lies in [51, 54)
    assert ob._hist.sum() == 101 and float(ob.scales()) == pytest.approx(54.0)


def test_kl_observer_clips_outliers_but_not_the_bulk():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 1, 50000), [60.0]]).astype("float32")
    kl = KLObserver()._instance(None)
    kl(paddle.to_tensor(x))
    assert 2.5 < float(kl.scales()) < 10.0
    ab = AbsmaxObserver()._instance(None)
    ab(paddle.to_tensor(x))
    assert float(ab.scales()) == 60.0


@pytest.mark.parametrize("make, match", [
    (lambda: FakeQuanterWithAbsMaxObserver(moving_rate=1.5)._instance(None), "moving_rate"),
    (lambda: FakeQuanterWithAbsMaxObserver(bit_length=16)._instance(None), "bit length"),
    (lambda: HistObserver(percent=0.0)._instance(None), "percent"),
])
def test_factory_argument_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()

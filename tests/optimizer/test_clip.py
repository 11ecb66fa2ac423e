"""Gradient clipping (paddle.nn.ClipGradBy*, nn.utils.clip_grad_*) and paddle.regularizer."""
import math

import numpy as np
import pytest

import sampan as paddle
from sampan.nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from sampan.nn.utils import clip_grad_norm_, clip_grad_value_


def _pairs(*grads):
    return [(paddle.Parameter(np.zeros(len(g))), paddle.to_tensor(np.array(g, float)))
            for g in grads]


def test_clip_by_value():
    out = ClipGradByValue(max=1.0)(_pairs([-3.0, 0.5, 2.0]))
    np.testing.assert_allclose(out[0][1].numpy(), [-1.0, 0.5, 1.0])
    out = ClipGradByValue(max=1.0, min=0.2)(_pairs([-3.0, 0.5, 2.0]))
    np.testing.assert_allclose(out[0][1].numpy(), [0.2, 0.5, 1.0])
    with pytest.raises(ValueError, match="min"):
        ClipGradByValue(max=-1.0, min=0.0)


def test_clip_by_norm_per_tensor():
    out = ClipGradByNorm(1.0)(_pairs([3.0, 4.0], [0.3, 0.4]))
    np.testing.assert_allclose(out[0][1].numpy(), [0.6, 0.8])
    np.testing.assert_allclose(out[1][1].numpy(), [0.3, 0.4])  # below the limit: unchanged


def test_clip_by_global_norm():
    g = [[3.0], [4.0], [12.0]]
    out = ClipGradByGlobalNorm(6.5)(_pairs(*g))
    np.testing.assert_allclose([o[1].numpy()[0] for o in out], [1.5, 2.0, 6.0])
    small = _pairs([0.3], [0.4])
    out = ClipGradByGlobalNorm(1.0, auto_skip_clip=True)(small)
    assert out[0][1] is small[0][1]  # nothing to clip: grads pass through untouched
    out = ClipGradByGlobalNorm(1.0)(small)
    np.testing.assert_allclose(out[0][1].numpy(), [0.3])
    with pytest.raises(TypeError, match="group_name"):
        ClipGradByGlobalNorm(1.0, group_name=3)


def test_need_clip_false_and_none_grads_pass_through():
    pairs = _pairs([30.0], [40.0])
    pairs[0][0].need_clip = False
    pairs.append((paddle.Parameter(np.zeros(1)), None))
    out = ClipGradByGlobalNorm(1.0)(pairs)
    assert out[0][1] is pairs[0][1] and out[2][1] is None
    np.testing.assert_allclose(out[1][1].numpy(), [1.0])  # norm over the clipped grads only
    out = ClipGradByValue(1.0)(pairs)
    assert out[0][1] is pairs[0][1]


def test_clip_keeps_float32():
    p = paddle.Parameter(np.zeros(2, np.float32))
    out = ClipGradByGlobalNorm(1.0)([(p, paddle.to_tensor(np.array([3, 4], np.float32)))])
    assert out[0][1].dtype == paddle.float32


def test_exposed_as_paddle_nn_names():
    assert str(ClipGradByNorm(2.0)) == "Gradient Clip By Norm, clip_norm=2.000000"
    assert isinstance(ClipGradByGlobalNorm(1.0), paddle.nn.clip.GradientClipBase)


def _with_grads(*grads):
    params = []
    for g in grads:
        p = paddle.Parameter(np.zeros(len(g)))
        p.grad = paddle.to_tensor(np.array(g, float))
        params.append(p)
    return params


def test_clip_grad_norm_two_and_inf_and_one():
    ps = _with_grads([3.0], [4.0])
    total = clip_grad_norm_(ps, max_norm=1.0)
    assert float(total) == pytest.approx(5.0)
    np.testing.assert_allclose([p.grad.numpy()[0] for p in ps], [0.6, 0.8], rtol=1e-5)
    ps = _with_grads([3.0, -7.0], [4.0])
    assert float(clip_grad_norm_(ps, 3.5, norm_type=math.inf)) == 7.0
    np.testing.assert_allclose(ps[0].grad.numpy(), [1.5, -3.5], rtol=1e-6)
    ps = _with_grads([1.0, -1.0], [2.0])
    assert float(clip_grad_norm_(ps, 10.0, norm_type=1)) == pytest.approx(4.0)
    np.testing.assert_allclose(ps[1].grad.numpy(), [2.0])  # below max_norm: unchanged


def test_clip_grad_norm_keeps_grad_identity_and_errors():
    ps = _with_grads([3.0], [4.0])
    grad = ps[0].grad
    clip_grad_norm_(ps[0], max_norm=1.0)  # a single Tensor is accepted
    assert ps[0].grad is grad
    np.testing.assert_allclose(grad.numpy(), [1.0], rtol=1e-5)
    bad = _with_grads([np.inf])
    with pytest.raises(RuntimeError, match="non-finite"):
        clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)
    assert float(clip_grad_norm_([paddle.Parameter(np.zeros(1))], 1.0)) == 0.0


def test_clip_grad_value():
    ps = _with_grads([-2.0, 0.5, 3.0])
    assert clip_grad_value_(ps, 1.0) is None
    np.testing.assert_allclose(ps[0].grad.numpy(), [-1.0, 0.5, 1.0])


def test_regularizers():
    p = paddle.to_tensor([2.0, -0.5, 0.0])
    np.testing.assert_allclose(paddle.regularizer.L2Decay(0.1)(p, None).numpy(),
                               [0.2, -0.05, 0.0])
    np.testing.assert_allclose(paddle.regularizer.L1Decay(0.1)(p, None).numpy(),
                               [0.1, -0.1, 0.0])
    assert paddle.regularizer.L2Decay(0.5).coeff == 0.5
    assert repr(paddle.regularizer.L1Decay(0.25)) == "L1Decay(coeff=0.25)"

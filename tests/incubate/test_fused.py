"""incubate.nn.functional fused ops and incubate.nn layers against NumPy references of the
unfused math (Paddle runs these kernels only on GPU, so no recorded Paddle numbers here).
"""
import numpy as np
import pytest

import sampan as paddle

FF = paddle.incubate.nn.functional
R = np.random.RandomState(7)


def _t(*shape):
    return paddle.to_tensor(R.randn(*shape).astype("float64"))


def _ln(x, g=None, b=None, eps=1e-5):
    y = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)
    return y * (1 if g is None else g) + (0 if b is None else b)


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_matmul_bias_linear_activation():
    x, y, b = _t(2, 3), _t(4, 3), _t(4)
    ref = x.numpy() @ y.numpy().T + b.numpy()
    np.testing.assert_allclose(FF.fused_matmul_bias(x, y, b, transpose_y=True).numpy(), ref)
    np.testing.assert_allclose(FF.fused_linear(x, y, b, transpose_weight=True).numpy(), ref)
    np.testing.assert_allclose(
        FF.fused_linear_activation(x, y, b, trans_y=True, activation="relu").numpy(),
        np.maximum(ref, 0))
    with pytest.raises(ValueError, match="fused_linear_activation: activation"):
        FF.fused_linear_activation(x, y, b, trans_y=True, activation="tanh")


def test_dropout_add_and_bias_dropout_residual_ln():
    x, y = _t(2, 5), _t(2, 5)
    np.testing.assert_allclose(FF.fused_dropout_add(x, y, 0.5, training=False).numpy(),
                               x.numpy() + y.numpy())
    out = FF.fused_dropout_add(x, y, 1.0).numpy()           # everything dropped
    np.testing.assert_allclose(out, y.numpy())
    b, g, beta = _t(5), _t(5), _t(5)
    got = FF.fused_bias_dropout_residual_layer_norm(x, y, b, g, beta, 0.0).numpy()
    np.testing.assert_allclose(got, _ln(y.numpy() + x.numpy() + b.numpy(), g.numpy(),
                                        beta.numpy()), rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="fused_bias_dropout_residual_layer_norm: x"):
        FF.fused_bias_dropout_residual_layer_norm(x, _t(2, 4))


@pytest.mark.parametrize("pre", [False, True])
def test_feedforward(pre):
    x, w1, b1, w2, b2 = _t(2, 3, 4), _t(4, 6), _t(6), _t(6, 4), _t(4)
    got = FF.fused_feedforward(x, w1, w2, b1, b2, dropout1_rate=0.0, dropout2_rate=0.0,
                               pre_layer_norm=pre, activation="gelu").numpy()
    xn = x.numpy()
    h = _ln(xn) if pre else xn
    import math
    a = h @ w1.numpy() + b1.numpy()
    a = 0.5 * a * (1 + np.vectorize(math.erf)(a / np.sqrt(2)))
    ref = xn + a @ w2.numpy() + b2.numpy()
    np.testing.assert_allclose(got, ref if pre else _ln(ref), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("pre", [False, True])
def test_multi_head_attention(pre):
    b, s, e, h = 2, 3, 4, 2
    x, qkv_w, qkv_b, lw, lb = _t(b, s, e), _t(3, h, e // h, e), _t(3, h, e // h), _t(e, e), _t(e)
    mask = _t(b, 1, s, s)
    got = FF.fused_multi_head_attention(x, qkv_w, lw, pre, qkv_bias=qkv_b, linear_bias=lb,
                                        attn_mask=mask, dropout_rate=0.0,
                                        attn_dropout_rate=0.0).numpy()
    xn = x.numpy()
    hn = _ln(xn) if pre else xn
    qkv = hn @ qkv_w.numpy().reshape(3 * e, e).T + qkv_b.numpy().reshape(-1)
    q, k, v = qkv.reshape(b, s, 3, h, e // h).transpose(2, 0, 3, 1, 4)
    p = _softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(e // h) + mask.numpy())
    o = (p @ v).transpose(0, 2, 1, 3).reshape(b, s, e) @ lw.numpy() + lb.numpy() + xn
    np.testing.assert_allclose(got, o if pre else _ln(o), rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError, match="fused_multi_head_attention: qkv_weight"):
        FF.fused_multi_head_attention(x, _t(2, h, e // h, e), lw)


def test_layers_shapes_grads_and_eval():
    paddle.seed(1)
    layer = paddle.incubate.nn.FusedTransformerEncoderLayer(8, 2, 16, dropout_rate=0.1)
    x = paddle.randn([2, 5, 8])
    out = layer(x)
    assert out.shape == [2, 5, 8]
    out.mean().backward()
    assert layer.fused_attn.qkv_weight.grad is not None
    assert list(layer.fused_attn.qkv_weight.shape) == [3, 2, 4, 8]
    layer.eval()
    np.testing.assert_allclose(layer(x).numpy(), layer(x).numpy())
    lin = paddle.incubate.nn.FusedLinear(4, 3, transpose_weight=True)
    assert list(lin.weight.shape) == [3, 4] and lin(paddle.ones([2, 4])).shape == [2, 3]
    n = paddle.incubate.nn.FusedBiasDropoutResidualLayerNorm(4, dropout_rate=0.0)
    y = n(paddle.ones([2, 4]), paddle.to_tensor([[1., 2., 3., 4.]] * 2)).numpy()
    np.testing.assert_allclose(y, _ln(np.array([[2., 3., 4., 5.]] * 2)), rtol=1e-5)
    with pytest.raises(ValueError, match="FusedMultiHeadAttention: embed_dim"):
        paddle.incubate.nn.FusedMultiHeadAttention(6, 4)


def _rope_ref(x, sin, cos, neox):
    """x * cos + rotate(x) * sin over [b, s, h, d] with sin/cos [b or 1, s, 1, d]."""
    if neox:
        rot = np.stack([-x[..., 1::2], x[..., 0::2]], -1).reshape(x.shape)
    else:
        h = x.shape[-1] // 2
        rot = np.concatenate([-x[..., h:], x[..., :h]], -1)
    return x * cos + rot * sin


@pytest.mark.parametrize("neox", [True, False])
def test_rotary_position_embedding(neox):
    b, s, h, d = 2, 5, 3, 8
    q, k = _t(b, s, h, d), _t(b, s, 1, d)
    ang = np.arange(s)[:, None] * (1 / 10000 ** (np.arange(0, d, 2) / d))[None]
    ang = np.repeat(ang, 2, axis=-1)                       # channel i uses pair i // 2
    sin, cos = np.sin(ang)[None, :, None], np.cos(ang)[None, :, None]
    oq, ok, ov = FF.fused_rotary_position_embedding(q, k, use_neox_rotary_style=neox)
    assert ov is None
    np.testing.assert_allclose(oq.numpy(), _rope_ref(q.numpy(), sin, cos, neox), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(ok.numpy(), _rope_ref(k.numpy(), sin, cos, neox), rtol=1e-5,
                               atol=1e-6)
    # explicit tables, position_ids and time_major give the same rule
    pid = np.array([[4, 3, 2, 1, 0], [0, 2, 4, 1, 3]])
    ts, tc = paddle.to_tensor(sin), paddle.to_tensor(cos)
    oq, _, _ = FF.fused_rotary_position_embedding(
        q, sin=ts, cos=tc, position_ids=paddle.to_tensor(pid), use_neox_rotary_style=neox)
    ref = _rope_ref(q.numpy(), np.sin(ang)[pid][:, :, None], np.cos(ang)[pid][:, :, None], neox)
    np.testing.assert_allclose(oq.numpy(), ref, rtol=1e-5, atol=1e-6)
    qt = paddle.transpose(q, [1, 0, 2, 3])
    oq, _, _ = FF.fused_rotary_position_embedding(qt, sin=ts, cos=tc, time_major=True,
                                                  use_neox_rotary_style=neox)
    np.testing.assert_allclose(oq.numpy().transpose(1, 0, 2, 3),
                               _rope_ref(q.numpy(), sin, cos, neox), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="fused_rotary_position_embedding: sin and cos"):
        FF.fused_rotary_position_embedding(q, sin=ts)

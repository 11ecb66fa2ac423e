"""Attention and Transformer layers vs NumPy references: scaled_dot_product_attention
(masks, causal, GQA, dropout), MultiHeadAttention (masks, weights, caches), encoder/decoder
layers, Transformer, parameter names, gradients, errors."""
import numpy as np
import pytest

import sampan as paddle
import sampan.nn.functional as F


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _sdpa_ref(q, k, v, mask=None, causal=False, scale=None):
    q, k, v = (a.transpose(0, 2, 1, 3) for a in (q, k, v))
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ k.transpose(0, 1, 3, 2) * scale
    if causal:
        s = s + np.triu(np.full(s.shape[-2:], -np.inf), 1)
    elif mask is not None:
        s = s + (np.where(mask, 0.0, -np.inf) if mask.dtype == bool else mask)
    return (_softmax(s) @ v).transpose(0, 2, 1, 3)


def _lin(layer, x):
    return x @ layer.weight.numpy() + layer.bias.numpy()


def _mha_ref(mha, q_in, k_in, v_in, mask=None):
    def split(x):
        B, L, _ = x.shape
        return x.reshape(B, L, mha.num_heads, mha.head_dim)
    q, k, v = split(_lin(mha.q_proj, q_in)), split(_lin(mha.k_proj, k_in)), \
        split(_lin(mha.v_proj, v_in))
    if mask is not None and mask.dtype == bool:
        mask = (mask.astype(np.float64) - 1.0) * 1e9
    out = _sdpa_ref(q, k, v, mask)
    return _lin(mha.out_proj, out.reshape(out.shape[0], out.shape[1], -1))


def _ln(x, norm, eps=1e-5):
    mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * norm.weight.numpy() + norm.bias.numpy()


@pytest.fixture
def rng():
    paddle.seed(3)
    return np.random.default_rng(0)


def _t(a):
    return paddle.to_tensor(a)


# --- scaled_dot_product_attention --------------------------------------------------------

def test_sdpa_matches_numpy_with_masks(rng):
    q, k, v = rng.standard_normal((2, 3, 2, 4)), rng.standard_normal((2, 5, 2, 4)), \
        rng.standard_normal((2, 5, 2, 3))
    np.testing.assert_allclose(F.scaled_dot_product_attention(_t(q), _t(k), _t(v)).numpy(),
                               _sdpa_ref(q, k, v), atol=1e-12)
    bmask = rng.random((3, 5)) > 0.3
    bmask[:, 0] = True
    np.testing.assert_allclose(
        F.scaled_dot_product_attention(_t(q), _t(k), _t(v), attn_mask=_t(bmask)).numpy(),
        _sdpa_ref(q, k, v, bmask), atol=1e-12)
    fmask = rng.standard_normal((2, 1, 3, 5))
    np.testing.assert_allclose(
        F.scaled_dot_product_attention(_t(q), _t(k), _t(v), _t(fmask), scale=0.5).numpy(),
        _sdpa_ref(q, k, v, fmask, scale=0.5), atol=1e-12)


def test_sdpa_causal_and_unbatched(rng):
    q = rng.standard_normal((1, 4, 2, 3))
    out = F.scaled_dot_product_attention(_t(q), _t(q), _t(q), is_causal=True).numpy()
    np.testing.assert_allclose(out, _sdpa_ref(q, q, q, causal=True), atol=1e-12)
    # the first query attends only to the first key
    np.testing.assert_allclose(out[:, 0], q[:, 0], atol=1e-12)
    out3 = F.scaled_dot_product_attention(_t(q[0]), _t(q[0]), _t(q[0]), is_causal=True)
    np.testing.assert_allclose(out3.numpy(), out[0], atol=1e-12)


def test_sdpa_grouped_query_heads(rng):
    q, k = rng.standard_normal((1, 3, 4, 2)), rng.standard_normal((1, 3, 2, 2))
    out = F.scaled_dot_product_attention(_t(q), _t(k), _t(k)).numpy()
    kk = np.repeat(k, 2, axis=2)
    np.testing.assert_allclose(out, _sdpa_ref(q, kk, kk), atol=1e-12)


def test_sdpa_dropout(rng):
    q = _t(rng.standard_normal((2, 6, 2, 4)).astype("float32"))
    base = F.scaled_dot_product_attention(q, q, q)
    same = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5, training=False)
    np.testing.assert_allclose(same.numpy(), base.numpy(), atol=1e-6)
    dropped = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert dropped.shape == base.shape and not np.allclose(dropped.numpy(), base.numpy())


def test_sdpa_errors(rng):
    q = _t(rng.standard_normal((1, 3, 4, 2)))
    with pytest.raises(ValueError, match="multiple"):
        F.scaled_dot_product_attention(q, _t(rng.standard_normal((1, 3, 3, 2))),
                                       _t(rng.standard_normal((1, 3, 3, 2))))
    with pytest.raises(ValueError, match="key .* must match query"):
        F.scaled_dot_product_attention(q, _t(rng.standard_normal((1, 3, 4, 5))), q)
    with pytest.raises(ValueError, match="attn_mask"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=_t(rng.standard_normal((2, 3))))
    with pytest.raises(ValueError, match="dropout_p"):
        F.scaled_dot_product_attention(q, q, q, dropout_p=1.5)


# --- MultiHeadAttention --------------------------------------------------------------------

def test_mha_matches_numpy(rng):
    mha = paddle.nn.MultiHeadAttention(8, 2, kdim=6, vdim=5).to(dtype="float64")
    q, k, v = rng.standard_normal((2, 3, 8)), rng.standard_normal((2, 4, 6)), \
        rng.standard_normal((2, 4, 5))
    np.testing.assert_allclose(mha(_t(q), _t(k), _t(v)).numpy(), _mha_ref(mha, q, k, v),
                               atol=1e-12)
    mask = rng.random((2, 1, 3, 4)) > 0.4
    mask[..., 0] = True
    np.testing.assert_allclose(mha(_t(q), _t(k), _t(v), attn_mask=_t(mask)).numpy(),
                               _mha_ref(mha, q, k, v, mask), atol=1e-12)


def test_mha_need_weights_and_state_dict(rng):
    mha = paddle.nn.MultiHeadAttention(8, 2, need_weights=True).to(dtype="float64")
    x = rng.standard_normal((1, 3, 8))
    out, weights = mha(_t(x))
    assert weights.shape == [1, 2, 3, 3]
    np.testing.assert_allclose(weights.numpy().sum(-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(out.numpy(), _mha_ref(mha, x, x, x), atol=1e-12)
    assert list(mha.state_dict()) == [f"{p}_proj.{w}" for p in ("q", "k", "v", "out")
                                      for w in ("weight", "bias")]
    assert mha.k_proj.weight.shape == [8, 8]


def test_mha_incremental_cache_equals_full_causal(rng):
    mha = paddle.nn.MultiHeadAttention(4, 2).to(dtype="float64")
    mha.eval()
    x = rng.standard_normal((1, 3, 4))
    causal = np.triu(np.full((3, 3), -np.inf), 1)
    full = mha(_t(x), attn_mask=_t(causal)).numpy()
    cache = mha.gen_cache(_t(x))
    assert cache.k.shape == [1, 2, 0, 2]
    for t in range(3):
        step = _t(x[:, t:t + 1])
        out, cache = mha(step, step, step, None, cache)
        np.testing.assert_allclose(out.numpy()[:, 0], full[:, t], atol=1e-12)
    assert cache.k.shape == [1, 2, 3, 2]
    static = mha.gen_cache(_t(x), _t(x), type=paddle.nn.MultiHeadAttention.StaticCache)
    out, same = mha(_t(x), None, None, None, static)
    assert same is static
    np.testing.assert_allclose(out.numpy(), mha(_t(x)).numpy(), atol=1e-12)


def test_mha_errors():
    with pytest.raises(ValueError, match="divisible"):
        paddle.nn.MultiHeadAttention(10, 3)
    with pytest.raises(ValueError, match="num_heads"):
        paddle.nn.MultiHeadAttention(8, 0)


# --- encoder / decoder ---------------------------------------------------------------------

def _encoder_layer_ref(layer, x, mask=None):
    h = _ln(x + _mha_ref(layer.self_attn, x, x, x, mask), layer.norm1)
    ff = _lin(layer.linear2, np.maximum(_lin(layer.linear1, h), 0))
    return _ln(h + ff, layer.norm2)


def test_encoder_layer_matches_numpy(rng):
    layer = paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0).to(dtype="float64")
    x = rng.standard_normal((2, 3, 8))
    mask = np.array([[True, True, False]] * 3)
    np.testing.assert_allclose(layer(_t(x), _t(mask)).numpy(),
                               _encoder_layer_ref(layer, x, mask), atol=1e-10)
    names = list(layer.state_dict())
    assert names[:2] == ["self_attn.q_proj.weight", "self_attn.q_proj.bias"]
    assert {"linear1.weight", "linear2.bias", "norm1.weight", "norm2.bias"} <= set(names)


def test_encoder_stack_clones_layers(rng):
    layer = paddle.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, normalize_before=True)
    enc = paddle.nn.TransformerEncoder(layer, 2, paddle.nn.LayerNorm(8))
    assert enc.layers[0] is layer and enc.layers[1] is not layer
    assert enc.layers[1].normalize_before
    assert not np.allclose(enc.layers[1].linear1.weight.numpy(), layer.linear1.weight.numpy())
    out = enc(_t(rng.standard_normal((2, 3, 8)).astype("float32")))
    assert out.shape == [2, 3, 8]
    np.testing.assert_allclose(out.numpy().mean(-1), 0.0, atol=1e-5)
    assert "layers.1.self_attn.v_proj.weight" in enc.state_dict()
    assert "norm.weight" in enc.state_dict()


def test_decoder_and_transformer(rng):
    model = paddle.nn.Transformer(8, 2, 1, 2, 16, dropout=0.0).to(dtype="float64")
    src, tgt = rng.standard_normal((2, 4, 8)), rng.standard_normal((2, 3, 8))
    mask = model.generate_square_subsequent_mask(3)
    np.testing.assert_allclose(mask.numpy(), np.triu(np.full((3, 3), -np.inf), 1))
    out = model(_t(src), _t(tgt), tgt_mask=mask.astype("float64"))
    assert out.shape == [2, 3, 8]
    # causal: the first target position does not depend on later target positions
    tgt2 = tgt.copy()
    tgt2[:, 2] += 1.0
    out2 = model(_t(src), _t(tgt2), tgt_mask=mask.astype("float64"))
    np.testing.assert_allclose(out2.numpy()[:, :2], out.numpy()[:, :2], atol=1e-10)
    assert not np.allclose(out2.numpy()[:, 2], out.numpy()[:, 2])
    keys = model.state_dict()
    assert "decoder.layers.1.cross_attn.out_proj.bias" in keys
    assert "encoder.norm.weight" in keys and "decoder.layers.0.norm3.weight" in keys


def test_decoder_cache_matches_full(rng):
    layer = paddle.nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0)
    dec = paddle.nn.TransformerDecoder(layer, 2).to(dtype="float64")
    dec.eval()
    tgt, memory = rng.standard_normal((1, 3, 4)), rng.standard_normal((1, 5, 4))
    causal = _t(np.triu(np.full((3, 3), -np.inf), 1))
    full = dec(_t(tgt), _t(memory), tgt_mask=causal).numpy()
    cache = dec.gen_cache(_t(memory))
    for t in range(3):
        out, cache = dec(_t(tgt[:, t:t + 1]), _t(memory), cache=cache)
        np.testing.assert_allclose(out.numpy()[:, 0], full[:, t], atol=1e-10)


def test_transformer_gradients_flow(rng):
    layer = paddle.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.1)
    x = _t(rng.standard_normal((2, 3, 4)).astype("float32"))
    x.stop_gradient = False
    layer(x).sum().backward()
    for name, p in layer.named_parameters():
        assert p.grad is not None and np.isfinite(p.grad.numpy()).all(), name
    assert np.abs(layer.self_attn.q_proj.weight.grad.numpy()).sum() > 0


def test_mha_gradients_match_finite_differences(rng):
    mha = paddle.nn.MultiHeadAttention(4, 2).to(dtype="float64")
    x = _t(rng.standard_normal((1, 3, 4)))
    cot = _t(rng.standard_normal((1, 3, 4)))
    mask = _t(rng.standard_normal((3, 3)))

    def loss():
        return float((mha(x, attn_mask=mask) * cot).sum().numpy())
    (mha(x, attn_mask=mask) * cot).sum().backward()
    w = mha.k_proj.weight
    arr = w.numpy()
    want = np.zeros_like(arr)
    with paddle.no_grad():
        for idx in np.ndindex(arr.shape):
            old = arr[idx]
            arr[idx] = old + 1e-6
            hi = loss()
            arr[idx] = old - 1e-6
            lo = loss()
            arr[idx] = old
            want[idx] = (hi - lo) / 2e-6
    np.testing.assert_allclose(w.grad.numpy(), want, atol=1e-7, rtol=1e-6)


def test_layer_errors():
    with pytest.raises(ValueError, match="d_model"):
        paddle.nn.TransformerEncoderLayer(0, 2, 8)
    with pytest.raises(ValueError, match="activation"):
        paddle.nn.TransformerEncoderLayer(8, 2, 8, activation="nope")
    with pytest.raises(ValueError, match="weight_attr"):
        paddle.nn.Transformer(8, 2, 1, 1, 8, weight_attr=[None] * 4)

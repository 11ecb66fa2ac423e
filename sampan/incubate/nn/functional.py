"""paddle.incubate.nn.functional: Paddle's fused kernels written as compositions of
nn.functional (same numbers as the unfused ops; no fused kernel of our own). Imports nn.
"""
from __future__ import annotations

from ...framework.tensor import Tensor
from ...nn import functional as F
from ... import tensor as T

__all__ = ["fused_feedforward", "fused_multi_head_attention",
           "fused_bias_dropout_residual_layer_norm", "fused_linear", "fused_matmul_bias",
           "fused_linear_activation", "fused_dropout_add", "swiglu", "fused_rms_norm",
           "fused_layer_norm", "fused_rotary_position_embedding"]

swiglu = F.swiglu


def _ln(x: Tensor, scale, bias, eps: float) -> Tensor:
    return F.layer_norm(x, x.shape[-1:], scale, bias, eps)


def fused_matmul_bias(x: Tensor, y: Tensor, bias=None, transpose_x: bool = False,
                      transpose_y: bool = False, name=None) -> Tensor:
    """matmul(x, y) + bias.

    Examples:
        >>> import sampan as paddle
        >>> x, y = paddle.ones([2, 3]), paddle.ones([3, 4])
        >>> paddle.incubate.nn.functional.fused_matmul_bias(x, y, paddle.ones([4])).numpy()[0]
        array([4., 4., 4., 4.], dtype=float32)
    """
    out = T.matmul(x, y, transpose_x, transpose_y)
    return out if bias is None else out + bias


def fused_linear(x: Tensor, weight: Tensor, bias=None, transpose_weight: bool = False,
                 name=None) -> Tensor:
    """x @ weight (+ bias); weight is [in, out], or [out, in] with transpose_weight."""
    return fused_matmul_bias(x, weight, bias, False, transpose_weight)


def fused_linear_activation(x: Tensor, y: Tensor, bias: Tensor, trans_x: bool = False,
                            trans_y: bool = False, activation=None) -> Tensor:
    """activation(matmul(x, y) + bias) with activation None, "relu" or "gelu"."""
    acts = {None: lambda t: t, "none": lambda t: t, "relu": F.relu, "gelu": F.gelu}
    if activation not in acts:
        raise ValueError("fused_linear_activation: activation must be None, 'relu' or 'gelu', "
                         f"got {activation!r}")
    return acts[activation](fused_matmul_bias(x, y, bias, trans_x, trans_y))


def fused_dropout_add(x: Tensor, y: Tensor, p: float = 0.5, training: bool = True,
                      mode: str = "upscale_in_train", name=None) -> Tensor:
    """dropout(x) + y."""
    return F.dropout(x, p, training=training, mode=mode) + y


def fused_bias_dropout_residual_layer_norm(x: Tensor, residual: Tensor, bias=None,
                                           ln_scale=None, ln_bias=None,
                                           dropout_rate: float = 0.5, ln_epsilon: float = 1e-5,
                                           training: bool = True,
                                           mode: str = "upscale_in_train", name=None) -> Tensor:
    """layer_norm(residual + dropout(x + bias)) over the last axis."""
    if x.shape != residual.shape:
        raise ValueError("fused_bias_dropout_residual_layer_norm: x "
                         f"{list(x.shape)} and residual {list(residual.shape)} must match")
    h = x if bias is None else x + bias
    return _ln(residual + F.dropout(h, dropout_rate, training=training, mode=mode),
               ln_scale, ln_bias, ln_epsilon)


def fused_feedforward(x: Tensor, linear1_weight: Tensor, linear2_weight: Tensor,
                      linear1_bias=None, linear2_bias=None, ln1_scale=None, ln1_bias=None,
                      ln2_scale=None, ln2_bias=None, dropout1_rate: float = 0.5,
                      dropout2_rate: float = 0.5, activation: str = "relu",
                      ln1_epsilon: float = 1e-5, ln2_epsilon: float = 1e-5,
                      pre_layer_norm: bool = False, training: bool = True,
                      mode: str = "upscale_in_train", ring_id: int = -1,
                      add_residual: bool = True, name=None) -> Tensor:
    """The transformer feed-forward block:
    out = linear2(dropout1(act(linear1(ln1(x) if pre_layer_norm else x)))), then
    dropout2, + x when add_residual, and ln2 when not pre_layer_norm.
    """
    act = getattr(F, activation, None)
    if activation not in ("relu", "gelu") or act is None:
        raise ValueError(f"fused_feedforward: activation must be 'relu' or 'gelu', "
                         f"got {activation!r}")
    h = _ln(x, ln1_scale, ln1_bias, ln1_epsilon) if pre_layer_norm else x
    h = F.dropout(act(F.linear(h, linear1_weight, linear1_bias)), dropout1_rate,
                  training=training, mode=mode)
    h = F.dropout(F.linear(h, linear2_weight, linear2_bias), dropout2_rate,
                  training=training, mode=mode)
    if add_residual:
        h = x + h
    return h if pre_layer_norm else _ln(h, ln2_scale, ln2_bias, ln2_epsilon)


def _qkv(api: str, h: Tensor, w: Tensor, b, num_heads: int, transpose_qkv_wb: bool):
    """[3, batch, heads, seq, head_dim] from h [batch, seq, embed]."""
    batch, seq, embed = h.shape
    if transpose_qkv_wb:       # w: [embed, 3 * embed]
        if num_heads <= 0:
            raise ValueError(f"{api}: num_heads must be > 0 with transpose_qkv_wb")
        qkv = F.linear(h, w, b)
        heads, hd = num_heads, embed // num_heads
    else:                      # w: [3, heads, head_dim, embed]
        if w.ndim != 4 or w.shape[0] != 3 or w.shape[3] != embed:
            raise ValueError(f"{api}: qkv_weight must be [3, num_heads, head_dim, {embed}], "
                             f"got {list(w.shape)}")
        heads, hd = w.shape[1], w.shape[2]
        qkv = T.matmul(h, T.reshape(w, [3 * heads * hd, embed]), transpose_y=True)
        if b is not None:
            qkv = qkv + T.reshape(b, [3 * heads * hd])
    qkv = T.reshape(qkv, [batch, seq, 3, heads, hd])
    return T.transpose(qkv, [2, 0, 3, 1, 4]), hd


def fused_multi_head_attention(x: Tensor, qkv_weight: Tensor, linear_weight: Tensor,
                               pre_layer_norm: bool = False, pre_ln_scale=None,
                               pre_ln_bias=None, ln_scale=None, ln_bias=None,
                               pre_ln_epsilon: float = 1e-5, qkv_bias=None, linear_bias=None,
                               cache_kv=None, attn_mask=None, dropout_rate: float = 0.5,
                               attn_dropout_rate: float = 0.5, ln_epsilon: float = 1e-5,
                               training: bool = True, mode: str = "upscale_in_train",
                               ring_id: int = -1, add_residual: bool = True,
                               num_heads: int = -1, transpose_qkv_wb: bool = False,
                               name=None) -> Tensor:
    """Multi-head self-attention block of Paddle's fused kernel: (pre-)layer norm, one qkv
    projection, scaled dot-product attention with attn_mask added to the scores, output
    projection, dropout, residual add and (post-)layer norm.
    """
    api = "fused_multi_head_attention"
    if x.ndim != 3:
        raise ValueError(f"{api}: x must be [batch, seq, embed], got {list(x.shape)}")
    if cache_kv is not None:
        raise NotImplementedError(f"{api}: cache_kv (decoding cache) is not supported")
    h = _ln(x, pre_ln_scale, pre_ln_bias, pre_ln_epsilon) if pre_layer_norm else x
    qkv, hd = _qkv(api, h, qkv_weight, qkv_bias, num_heads, transpose_qkv_wb)
    q, k, v = qkv[0] * (hd ** -0.5), qkv[1], qkv[2]
    scores = T.matmul(q, k, transpose_y=True)
    if attn_mask is not None:
        scores = scores + attn_mask
    probs = F.dropout(F.softmax(scores, -1), attn_dropout_rate, training=training, mode=mode)
    out = T.transpose(T.matmul(probs, v), [0, 2, 1, 3])
    out = F.linear(T.reshape(out, [x.shape[0], x.shape[1], -1]), linear_weight, linear_bias)
    out = F.dropout(out, dropout_rate, training=training, mode=mode)
    if add_residual:
        out = x + out
    return out if pre_layer_norm else _ln(out, ln_scale, ln_bias, ln_epsilon)


def _pre_norm(api: str, x: Tensor, bias, residual, alpha: float, axis: int, quant_scale):
    """(x + bias + alpha * residual, the residual_out Paddle returns or None, norm shape)."""
    if quant_scale is not None and quant_scale > 0:
        raise NotImplementedError(f"{api}: int8 quantized output (quant_scale > 0) is not "
                                  "supported")
    if not 0 < axis < x.ndim:
        raise ValueError(f"{api}: begin_norm_axis must be in [1, {x.ndim - 1}], got {axis}")
    h = x if bias is None else x + bias
    if residual is not None:
        h = h + residual * alpha if alpha != 1.0 else h + residual
    return h, (h if residual is not None else None), list(x.shape[axis:])


def _affine(y: Tensor, weight, bias, shape: list) -> Tensor:
    if weight is not None:
        y = y * T.reshape(weight, shape)
    return y if bias is None else y + T.reshape(bias, shape)


def fused_rms_norm(x: Tensor, norm_weight, norm_bias, epsilon: float, begin_norm_axis: int = 1,
                   bias=None, residual=None, quant_scale=-1, quant_round_type=0,
                   quant_max_bound=0, quant_min_bound=0):
    """RMS norm of h = x + bias + residual over the axes from begin_norm_axis:
    h / sqrt(mean(h^2) + epsilon) * norm_weight + norm_bias.

    Returns:
        (out, residual_out): residual_out is h when residual is given, else None.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[2., -2.]])
        >>> out, _ = paddle.incubate.nn.functional.fused_rms_norm(x, None, None, 0.0)
        >>> out.numpy().tolist()
        [[1.0, -1.0]]
    """
    h, res_out, shape = _pre_norm("fused_rms_norm", x, bias, residual, 1.0, begin_norm_axis,
                                  quant_scale)
    axes = list(range(begin_norm_axis, x.ndim))
    y = h * T.rsqrt(T.mean(h * h, axis=axes, keepdim=True) + epsilon)
    return _affine(y, norm_weight, norm_bias, shape), res_out


def fused_layer_norm(x: Tensor, norm_weight, norm_bias, epsilon: float,
                     residual_alpha: float = 1.0, begin_norm_axis: int = 1, bias=None,
                     residual=None, quant_scale=-1, quant_round_type=0, quant_max_bound=0,
                     quant_min_bound=0):
    """Layer norm of h = x + bias + residual_alpha * residual over the axes from
    begin_norm_axis, then * norm_weight + norm_bias.

    Returns:
        (out, residual_out, mean, invvar): residual_out is h when residual is given (else
        None); mean and 1/sqrt(var + epsilon) per normalized row, flattened.

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([[1., 3.]])
        >>> out = paddle.incubate.nn.functional.fused_layer_norm(x, None, None, 0.0)
        >>> out[0].numpy().tolist(), out[2].numpy().tolist(), out[3].numpy().tolist()
        ([[-1.0, 1.0]], [2.0], [1.0])
    """
    h, res_out, shape = _pre_norm("fused_layer_norm", x, bias, residual, residual_alpha,
                                  begin_norm_axis, quant_scale)
    axes = list(range(begin_norm_axis, x.ndim))
    mean = T.mean(h, axis=axes, keepdim=True)
    inv = T.rsqrt(T.mean((h - mean) ** 2, axis=axes, keepdim=True) + epsilon)
    out = _affine((h - mean) * inv, norm_weight, norm_bias, shape)
    return out, res_out, T.reshape(mean, [-1]), T.reshape(inv, [-1])


def _rope_tables(seq: int, dim: int, base: float, dtype) -> tuple:
    """[1, seq, 1, dim] sin/cos with frequency base^(-2*(i//2)/dim) at channel i."""
    pos = T.arange(0, seq, dtype="float32")
    inv = 1.0 / (base ** (T.arange(0, dim, 2, dtype="float32") / dim))
    ang = T.reshape(T.stack([T.outer(pos, inv)] * 2, axis=-1), [1, seq, 1, dim])
    return T.cast(T.sin(ang), dtype), T.cast(T.cos(ang), dtype)


def _rotate(x: Tensor, neox: bool) -> Tensor:
    if neox:    # pairs (0, 1), (2, 3) ...: (a, b) -> (-b, a)
        return T.reshape(T.stack([-x[..., 1::2], x[..., 0::2]], axis=-1), x.shape)
    half = x.shape[-1] // 2
    return T.concat([-x[..., half:], x[..., :half]], axis=-1)


def fused_rotary_position_embedding(q: Tensor, k=None, v=None, sin=None, cos=None,
                                    position_ids=None, use_neox_rotary_style: bool = True,
                                    time_major: bool = False,
                                    rotary_emb_base: float = 10000.0) -> tuple:
    """Rotary position embedding of q (and k, v when given): x * cos + rotate(x) * sin.

    Inputs are [batch, seq, heads, head_dim] ([seq, batch, ...] with time_major). sin/cos
    are [1, seq, 1, head_dim] or [seq, head_dim]; when absent they are built with
    frequency rotary_emb_base^(-2*(i//2)/head_dim) for channel i. position_ids
    [batch, seq] picks their rows. use_neox_rotary_style rotates channel pairs
    (2i, 2i+1); otherwise the two halves (rotate_half).

    Returns:
        (out_q, out_k, out_v), None for an absent input.

    Examples:
        >>> import sampan as paddle
        >>> q = paddle.ones([1, 2, 1, 2])
        >>> out_q, _, _ = paddle.incubate.nn.functional.fused_rotary_position_embedding(q)
        >>> [[round(float(v), 4) for v in row] for row in out_q.numpy().reshape([2, 2])]
        [[1.0, 1.0], [-0.3012, 1.3818]]
    """
    api = "fused_rotary_position_embedding"
    if q.ndim != 4:
        raise ValueError(f"{api}: q must be 4-D [batch, seq, heads, head_dim], got "
                         f"{list(q.shape)}")
    if q.shape[-1] % 2:
        raise ValueError(f"{api}: head_dim must be even, got {q.shape[-1]}")
    seq_axis = 0 if time_major else 1
    seq, dim = q.shape[seq_axis], q.shape[-1]
    if (sin is None) != (cos is None):
        raise ValueError(f"{api}: sin and cos must be given together")
    if sin is None:
        sin, cos = _rope_tables(seq, dim, rotary_emb_base, q.dtype)
    sin, cos = T.reshape(sin, [-1, dim]), T.reshape(cos, [-1, dim])     # [seq, dim]
    if position_ids is not None:
        sin, cos = T.unsqueeze(sin[position_ids], 2), T.unsqueeze(cos[position_ids], 2)
    else:
        sin, cos = sin[None, :, None, :], cos[None, :, None, :]
    if time_major:
        sin, cos = T.transpose(sin, [1, 0, 2, 3]), T.transpose(cos, [1, 0, 2, 3])

    def apply(x):
        if x is None:
            return None
        return x * cos + _rotate(x, use_neox_rotary_style) * sin
    return apply(q), apply(k), apply(v)

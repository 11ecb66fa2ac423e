"""scaled_dot_product_attention: the fused kernel (ops/nn_rnn.py) or, with dropout, the
same computation composed of public ops. Layout [batch, seq_len, num_heads, head_dim]."""
from __future__ import annotations

import math

from ...ops.dispatch import call

__all__: list = ["scaled_dot_product_attention"]


def _as_additive(mask, dtype: str):
    """A bool mask (True = attend) as an additive float mask (0 / -inf)."""
    if mask is None or mask.dtype.name != "bool":
        return mask
    zero = call("full", shape=[], fill_value=0.0, dtype=dtype)
    return call("where", mask, zero, zero - float("inf"))


def _repeat_heads(t, repeats: int):
    """Grouped-query attention: repeat each key/value head `repeats` times (axis 2)."""
    if repeats == 1:
        return t
    return call("repeat_interleave", t, repeats=repeats, axis=2)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p: float = 0.0,
                                 is_causal: bool = False, training: bool = True,
                                 backend=None, scale=None, enable_gqa: bool = True, name=None):
    """Attention softmax(query @ key^T * scale + attn_mask) @ value, per batch and head.

    Args:
        query (Tensor): [batch, seq_len_q, num_heads, head_dim] (or 3-D without batch).
        key (Tensor): [batch, seq_len_k, num_heads_k, head_dim].
        value (Tensor): [batch, seq_len_k, num_heads_k, head_dim_v].
        attn_mask (Tensor, optional): broadcastable to [batch, num_heads, seq_len_q,
            seq_len_k]; bool (True = attend) or float (added to the scores). Default None.
        dropout_p (float): dropout probability on the attention weights. Default 0.0.
        is_causal (bool): mask out keys after each query position (the mask is then
            ignored). Default False.
        training (bool): apply dropout only when True. Default True.
        backend: accepted for compatibility, ignored.
        scale (float, optional): score scale; default 1 / sqrt(head_dim).
        enable_gqa (bool): allow fewer key/value heads than query heads. Default True.
        name: unused.

    Returns:
        Tensor: [batch, seq_len_q, num_heads, head_dim_v].

    Examples:
        >>> import sampan as paddle
        >>> q = paddle.ones([1, 2, 1, 4])
        >>> out = paddle.nn.functional.scaled_dot_product_attention(q, q, q)
        >>> out.shape
        paddle.Size([1, 2, 1, 4])
    """
    api = "scaled_dot_product_attention"
    if not 0.0 <= float(dropout_p) <= 1.0:
        raise ValueError(f"{api}: dropout_p must be in [0, 1], got {dropout_p}")
    batched = len(query.shape) == 4
    if not batched:
        query, key, value = (call("unsqueeze", t, axis=[0]) for t in (query, key, value))
    if len(query.shape) != 4 or len(key.shape) != 4 or len(value.shape) != 4:
        raise ValueError(f"{api}: query, key and value must be 3-D or 4-D [batch, seq_len, "
                         f"num_heads, head_dim]; got shapes {list(query.shape)}, "
                         f"{list(key.shape)}, "
                         f"{list(value.shape)}")
    qh, kh = query.shape[2], key.shape[2]
    if qh != kh:
        if not enable_gqa or kh == 0 or qh % kh:
            raise ValueError(f"{api}: the number of heads of query ({qh}) must "
                             f"{'be a multiple of' if enable_gqa else 'equal'} that of key "
                             f"({kh})")
        key, value = _repeat_heads(key, qh // kh), _repeat_heads(value, qh // kh)
    mask = _as_additive(attn_mask, query.dtype.name)
    scale = None if scale is None else float(scale)
    if dropout_p > 0.0 and training:
        out = _attention_with_dropout(query, key, value, mask, float(dropout_p), is_causal,
                                      scale)
    else:
        attrs = {}
        if is_causal:
            attrs["is_causal"] = True
        if scale is not None:
            attrs["scale"] = scale
        out = call(api, query, key, value, None if is_causal else mask, **attrs)
    return out if batched else call("squeeze", out, axis=[0])


def _attention_with_dropout(query, key, value, mask, p: float, is_causal: bool, scale):
    from .common import dropout
    perm = [0, 2, 1, 3]
    q, k, v = (call("transpose", t, perm=perm) for t in (query, key, value))
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1]) if q.shape[-1] else 1.0
    s = call("matmul", q, k, transpose_y=True) * scale
    if is_causal:
        lq, lk = s.shape[-2:]
        s = s + call("triu", call("full", shape=[lq, lk], fill_value=float("-inf"),
                                  dtype=s.dtype.name), diagonal=1)
    elif mask is not None:
        s = s + mask
    weights = dropout(call("softmax", s, axis=-1), p, training=True)
    return call("transpose", call("matmul", weights, v), perm=perm)

"""Transformer layers: MultiHeadAttention, encoder/decoder layers and stacks, Transformer.

Parameter names and shapes follow Paddle (q_proj, k_proj, v_proj, out_proj, linear1,
linear2, norm1..3), so Paddle state_dicts load. Imports `ops`, `tensor` and `nn`.
"""
from __future__ import annotations

import collections
import copy

from ...framework import dtype as _dt
from ...framework.param_attr import ParamAttr
from ...ops.dispatch import call
from .container import LayerList
from .layers import Layer

__all__ = ["MultiHeadAttention", "TransformerEncoderLayer", "TransformerEncoder",
           "TransformerDecoderLayer", "TransformerDecoder", "Transformer"]


def _linear(in_features: int, out_features: int, weight_attr, bias_attr):
    from .common import Linear
    return Linear(in_features, out_features, weight_attr, bias_attr=bias_attr)


def _layer_norm(d_model: int, eps: float):
    from .norm import LayerNorm
    return LayerNorm(d_model, eps)


def _dropout(p: float):
    from .common import Dropout
    return Dropout(p, mode="upscale_in_train")


def _activation(layer: str, name: str):
    from .. import functional as F
    fn = getattr(F, name, None) if isinstance(name, str) else None
    if fn is None:
        raise ValueError(f"{layer}: activation {name!r} is not a function of "
                         f"paddle.nn.functional")
    return fn


def _positive(layer: str, **values) -> None:
    for arg, v in values.items():
        if not isinstance(v, int) or v <= 0:
            raise ValueError(f"{layer}: expected {arg} to be greater than 0, but received "
                             f"{v!r}")


def _param_attrs(param_attr, n: int) -> list:
    """One ParamAttr (or False) per sublayer group, as Paddle's _convert_param_attr_to_list."""
    if isinstance(param_attr, (list, tuple)):
        if len(param_attr) != n:
            raise ValueError(f"length of param_attr should be {n} when it is a list/tuple, "
                             f"got {len(param_attr)}")
        return [False if a is False else ParamAttr._to_attr(None) if a is True
                else ParamAttr._to_attr(a) for a in param_attr]
    if isinstance(param_attr, bool):
        return [ParamAttr._to_attr(None) if param_attr else False for _ in range(n)]
    attr = ParamAttr._to_attr(param_attr)
    out = []
    for i in range(n):
        a = copy.deepcopy(attr)
        if attr.name:
            a.name = f"{attr.name}_{i}"
        out.append(a)
    return out


def _convert_attention_mask(attn_mask, dtype):
    """bool/int masks become additive (0 where True/1, -1e9 elsewhere), as Paddle does."""
    if attn_mask is None:
        return None
    dtype = _dt.convert_dtype(dtype)
    if attn_mask.dtype is dtype:
        return attn_mask
    if attn_mask.dtype.kind in "biu":
        return (call("cast", attn_mask, dtype=dtype.name) - 1.0) * 1e9
    return call("cast", attn_mask, dtype=dtype.name)


class MultiHeadAttention(Layer):
    """Multi-head attention: softmax(q k^T / sqrt(head_dim) + mask) v over num_heads heads.

    Args:
        embed_dim (int): model width (query size and output size).
        num_heads (int): number of heads; must divide embed_dim.
        dropout (float): dropout on the attention weights. Default 0.0.
        kdim, vdim (int, optional): key / value feature sizes (default embed_dim).
        need_weights (bool): also return the attention weights. Default False.
        weight_attr, bias_attr (ParamAttr, optional): for the four projections.

    forward(query, key=None, value=None, attn_mask=None, cache=None): attn_mask
    broadcasts to [batch, num_heads, len_q, len_k] (bool/int: True/1 = attend; float: added);
    returns out, plus weights if need_weights, plus the updated cache if one is given.

    Examples:
        >>> import sampan as paddle
        >>> mha = paddle.nn.MultiHeadAttention(8, 2)
        >>> mha(paddle.ones([2, 3, 8])).shape
        paddle.Size([2, 3, 8])
    """

    Cache = collections.namedtuple("Cache", ["k", "v"])
    StaticCache = collections.namedtuple("StaticCache", ["k", "v"])

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0,
                 kdim: int | None = None, vdim: int | None = None, need_weights: bool = False,
                 weight_attr=None, bias_attr=None) -> None:
        super().__init__()
        _positive("MultiHeadAttention", embed_dim=embed_dim, num_heads=num_heads)
        if embed_dim % num_heads:
            raise ValueError(f"MultiHeadAttention: embed_dim ({embed_dim}) must be divisible "
                             f"by num_heads ({num_heads})")
        if not 0.0 <= float(dropout) <= 1.0:
            raise ValueError(f"MultiHeadAttention: dropout must be in [0, 1], got {dropout}")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.need_weights = need_weights
        self.head_dim = embed_dim // num_heads
        self.q_proj = _linear(embed_dim, embed_dim, weight_attr, bias_attr)
        self.k_proj = _linear(self.kdim, embed_dim, weight_attr, bias_attr)
        self.v_proj = _linear(self.vdim, embed_dim, weight_attr, bias_attr)
        self.out_proj = _linear(embed_dim, embed_dim, weight_attr, bias_attr)

    def _heads(self, x):
        """[B, L, E] -> [B, L, num_heads, head_dim]."""
        return call("reshape", x, shape=[0, 0, self.num_heads, self.head_dim])

    def _split(self, x):
        """[B, L, E] -> [B, num_heads, L, head_dim] (the cache layout)."""
        return call("transpose", self._heads(x), perm=[0, 2, 1, 3])

    def compute_kv(self, key, value):
        """Projected keys and values, [batch, num_heads, len, head_dim] each."""
        return self._split(self.k_proj(key)), self._split(self.v_proj(value))

    def gen_cache(self, key, value=None, type=Cache):  # noqa: A002
        """A StaticCache of projected key/value, an empty incremental Cache (value None),
        or a Cache wrapping the given key/value."""
        if type is MultiHeadAttention.StaticCache:
            return self.StaticCache(*self.compute_kv(key, value))
        if value is None:
            shape = [key.shape[0], self.num_heads, 0, self.head_dim]
            dtype = key.dtype.name
            return self.Cache(call("full", shape=shape, fill_value=0.0, dtype=dtype),
                              call("full", shape=shape, fill_value=0.0, dtype=dtype))
        return self.Cache(key, value)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        key = query if key is None else key
        value = query if value is None else value
        drop = self.dropout if self.training else 0.0
        if cache is None and not self.need_weights and not drop:
            mask = _convert_attention_mask(attn_mask, query.dtype)
            out = call("scaled_dot_product_attention", self._heads(self.q_proj(query)),
                       self._heads(self.k_proj(key)), self._heads(self.v_proj(value)), mask)
            return self.out_proj(call("reshape", out, shape=[0, 0, self.embed_dim]))
        q = self._split(self.q_proj(query))
        if isinstance(cache, self.StaticCache):
            k, v = cache.k, cache.v
        else:
            k, v = self.compute_kv(key, value)
        if isinstance(cache, self.Cache):
            k = call("concat", [cache.k, k], axis=2)
            v = call("concat", [cache.v, v], axis=2)
            cache = self.Cache(k, v)
        product = call("matmul", q * (self.head_dim ** -0.5), k, transpose_y=True)
        if attn_mask is not None:
            product = product + _convert_attention_mask(attn_mask, product.dtype)
        weights = call("softmax", product, axis=-1)
        if drop:
            from ..functional.common import dropout
            weights = dropout(weights, self.dropout, training=self.training,
                              mode="upscale_in_train")
        out = call("transpose", call("matmul", weights, v), perm=[0, 2, 1, 3])
        out = self.out_proj(call("reshape", out, shape=[0, 0, self.embed_dim]))
        outs = [out]
        if self.need_weights:
            outs.append(weights)
        if cache is not None:
            outs.append(cache)
        return out if len(outs) == 1 else tuple(outs)


def _init_block(layer, api: str, parts: int, d_model, nhead, dim_feedforward, dropout,
                activation, attn_dropout, act_dropout, normalize_before, weight_attr,
                bias_attr, eps) -> None:
    """The sublayers an encoder (parts=2) or decoder (parts=3: + cross attention, norm3,
    dropout3) layer shares, registered in Paddle's order and with Paddle's names."""
    _positive(api, d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward)
    attn_dropout = dropout if attn_dropout is None else attn_dropout
    act_dropout = dropout if act_dropout is None else act_dropout
    layer.normalize_before = normalize_before
    w, b = _param_attrs(weight_attr, parts), _param_attrs(bias_attr, parts)
    layer.self_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                         weight_attr=w[0], bias_attr=b[0])
    if parts == 3:
        layer.cross_attn = MultiHeadAttention(d_model, nhead, dropout=attn_dropout,
                                              weight_attr=w[1], bias_attr=b[1])
    layer.linear1 = _linear(d_model, dim_feedforward, w[-1], b[-1])
    layer.dropout = _dropout(act_dropout)
    layer.linear2 = _linear(dim_feedforward, d_model, w[-1], b[-1])
    for i in range(1, parts + 1):
        setattr(layer, f"norm{i}", _layer_norm(d_model, eps))
    for i in range(1, parts + 1):
        setattr(layer, f"dropout{i}", _dropout(dropout))
    layer.activation = _activation(api, activation)


def _config(local: dict) -> dict:
    cfg = dict(local)
    cfg.pop("self", None)
    cfg.pop("__class__", None)
    return cfg


class TransformerEncoderLayer(Layer):
    """Self-attention + feed-forward block with residuals and LayerNorm (post-norm by
    default, pre-norm with normalize_before).

    Args:
        d_model (int), nhead (int), dim_feedforward (int),
        dropout (float): residual dropout. Default 0.1.
        activation (str): name of a paddle.nn.functional activation. Default "relu".
        attn_dropout, act_dropout (float, optional): default `dropout`.
        normalize_before (bool): pre-norm. Default False.
        weight_attr, bias_attr: one attr, or a list of 2 (attention, feed-forward).
        layer_norm_eps (float): LayerNorm epsilon. Default 1e-5.

    Examples:
        >>> import sampan as paddle
        >>> layer = paddle.nn.TransformerEncoderLayer(8, 2, 16)
        >>> layer(paddle.ones([2, 3, 8])).shape
        paddle.Size([2, 3, 8])
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: float | None = None,
                 act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr=None, bias_attr=None, layer_norm_eps: float = 1e-5) -> None:
        self._config = _config(locals())
        super().__init__()
        _init_block(self, "TransformerEncoderLayer", 2, d_model, nhead, dim_feedforward,
                    dropout, activation, attn_dropout, act_dropout, normalize_before,
                    weight_attr, bias_attr, layer_norm_eps)

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        residual = src
        if self.normalize_before:
            src = self.norm1(src)
        if cache is None:
            src = self.self_attn(src, src, src, src_mask)
        else:
            src, cache = self.self_attn(src, src, src, src_mask, cache)
        src = residual + self.dropout1(src)
        if not self.normalize_before:
            src = self.norm1(src)
        residual = src
        if self.normalize_before:
            src = self.norm2(src)
        src = self.linear2(self.dropout(self.activation(self.linear1(src))))
        src = residual + self.dropout2(src)
        if not self.normalize_before:
            src = self.norm2(src)
        return src if cache is None else (src, cache)

    def gen_cache(self, src):
        """An empty incremental cache for the self-attention."""
        return self.self_attn.gen_cache(src, type=self.self_attn.Cache)


class TransformerEncoder(Layer):
    """`num_layers` copies of `encoder_layer` (the first is the given layer itself, the
    others new layers with its configuration), then an optional final `norm`.

    Examples:
        >>> import sampan as paddle
        >>> enc = paddle.nn.TransformerEncoder(paddle.nn.TransformerEncoderLayer(8, 2, 16), 2)
        >>> enc(paddle.ones([2, 3, 8])).shape
        paddle.Size([2, 3, 8])
    """

    def __init__(self, encoder_layer, num_layers: int, norm=None) -> None:
        super().__init__()
        _positive("TransformerEncoder", num_layers=num_layers)
        self.layers = LayerList([encoder_layer if i == 0 else
                                 type(encoder_layer)(**encoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, src_mask=None, cache=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        output = src
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, src_mask=src_mask)
            else:
                output, new = layer(output, src_mask=src_mask, cache=cache[i])
                new_caches.append(new)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, src) -> list:
        return [layer.gen_cache(src) for layer in self.layers]


class TransformerDecoderLayer(Layer):
    """Self-attention, cross-attention over `memory` and feed-forward, each with residual,
    dropout and LayerNorm (post-norm by default).

    Args:
        as TransformerEncoderLayer; weight_attr/bias_attr may be a list of 3 (self
        attention, cross attention, feed-forward).

    Examples:
        >>> import sampan as paddle
        >>> layer = paddle.nn.TransformerDecoderLayer(8, 2, 16)
        >>> layer(paddle.ones([2, 3, 8]), paddle.ones([2, 4, 8])).shape
        paddle.Size([2, 3, 8])
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int, dropout: float = 0.1,
                 activation: str = "relu", attn_dropout: float | None = None,
                 act_dropout: float | None = None, normalize_before: bool = False,
                 weight_attr=None, bias_attr=None, layer_norm_eps: float = 1e-5) -> None:
        self._config = _config(locals())
        super().__init__()
        _init_block(self, "TransformerDecoderLayer", 3, d_model, nhead, dim_feedforward,
                    dropout, activation, attn_dropout, act_dropout, normalize_before,
                    weight_attr, bias_attr, layer_norm_eps)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm1(tgt)
        if cache is None:
            tgt = self.self_attn(tgt, tgt, tgt, tgt_mask, None)
        else:
            tgt, incremental = self.self_attn(tgt, tgt, tgt, tgt_mask, cache[0])
        tgt = residual + self.dropout1(tgt)
        if not self.normalize_before:
            tgt = self.norm1(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm2(tgt)
        if cache is None:
            tgt = self.cross_attn(tgt, memory, memory, memory_mask, None)
        else:
            tgt, static = self.cross_attn(tgt, memory, memory, memory_mask, cache[1])
        tgt = residual + self.dropout2(tgt)
        if not self.normalize_before:
            tgt = self.norm2(tgt)
        residual = tgt
        if self.normalize_before:
            tgt = self.norm3(tgt)
        tgt = self.linear2(self.dropout(self.activation(self.linear1(tgt))))
        tgt = residual + self.dropout3(tgt)
        if not self.normalize_before:
            tgt = self.norm3(tgt)
        return tgt if cache is None else (tgt, (incremental, static))

    def gen_cache(self, memory):
        """(incremental self-attention Cache, StaticCache of the cross-attention memory)."""
        return (self.self_attn.gen_cache(memory, type=self.self_attn.Cache),
                self.cross_attn.gen_cache(memory, memory, type=self.cross_attn.StaticCache))


class TransformerDecoder(Layer):
    """`num_layers` copies of `decoder_layer`, then an optional final `norm`.

    Examples:
        >>> import sampan as paddle
        >>> dec = paddle.nn.TransformerDecoder(paddle.nn.TransformerDecoderLayer(8, 2, 16), 2)
        >>> dec(paddle.ones([2, 3, 8]), paddle.ones([2, 4, 8])).shape
        paddle.Size([2, 3, 8])
    """

    def __init__(self, decoder_layer, num_layers: int, norm=None) -> None:
        super().__init__()
        _positive("TransformerDecoder", num_layers=num_layers)
        self.layers = LayerList([decoder_layer if i == 0 else
                                 type(decoder_layer)(**decoder_layer._config)
                                 for i in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, cache=None):
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        output = tgt
        new_caches = []
        for i, layer in enumerate(self.layers):
            if cache is None:
                output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                               cache=None)
            else:
                output, new = layer(output, memory, tgt_mask=tgt_mask,
                                    memory_mask=memory_mask, cache=cache[i])
                new_caches.append(new)
        if self.norm is not None:
            output = self.norm(output)
        return output if cache is None else (output, new_caches)

    def gen_cache(self, memory, do_zip: bool = False) -> list:
        cache = [layer.gen_cache(memory) for layer in self.layers]
        return list(zip(*cache)) if do_zip else cache


def _split_attr(attr, layer: str, arg: str):
    """Paddle's rule for a 1/2/3-element attr list: (encoder attrs, decoder attrs)."""
    if not isinstance(attr, (list, tuple)):
        return attr, attr
    if len(attr) == 1:
        return [attr[0]] * 2, [attr[0]] * 3
    if len(attr) == 2:
        return list(attr), [attr[0], attr[0], attr[-1]]
    if len(attr) == 3:
        return [attr[0], attr[-1]], list(attr)
    raise ValueError(f"{layer}: length of {arg} should be 1 or 2 or 3 when it is a "
                     f"list/tuple, got {len(attr)}")


class Transformer(Layer):
    """Encoder-decoder Transformer (Vaswani et al.) with final LayerNorms on both stacks.

    Args:
        d_model (int): 512, nhead (int): 8, num_encoder_layers (int): 6,
        num_decoder_layers (int): 6, dim_feedforward (int): 2048, dropout (float): 0.1,
        activation (str): "relu", attn_dropout / act_dropout (float, optional),
        normalize_before (bool): False, weight_attr / bias_attr (one or a list of 1-3),
        custom_encoder / custom_decoder (Layer, optional).

    Examples:
        >>> import sampan as paddle
        >>> model = paddle.nn.Transformer(8, 2, 1, 1, 16)
        >>> mask = model.generate_square_subsequent_mask(3)
        >>> model(paddle.ones([2, 4, 8]), paddle.ones([2, 3, 8]), tgt_mask=mask).shape
        paddle.Size([2, 3, 8])
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048,
                 dropout: float = 0.1, activation: str = "relu",
                 attn_dropout: float | None = None, act_dropout: float | None = None,
                 normalize_before: bool = False, weight_attr=None, bias_attr=None,
                 custom_encoder=None, custom_decoder=None) -> None:
        super().__init__()
        _positive("Transformer", d_model=d_model, nhead=nhead,
                  dim_feedforward=dim_feedforward)
        enc_b, dec_b = _split_attr(bias_attr, "Transformer", "bias_attr")
        enc_w, dec_w = _split_attr(weight_attr, "Transformer", "weight_attr")
        common = (d_model, nhead, dim_feedforward, dropout, activation, attn_dropout,
                  act_dropout, normalize_before)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(*common, enc_w, enc_b), num_encoder_layers,
                _layer_norm(d_model, 1e-5))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(*common, dec_w, dec_b), num_decoder_layers,
                _layer_norm(d_model, 1e-5))
        self.d_model = d_model
        self.nhead = nhead

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None):
        src_mask = _convert_attention_mask(src_mask, src.dtype)
        memory = self.encoder(src, src_mask=src_mask)
        tgt_mask = _convert_attention_mask(tgt_mask, tgt.dtype)
        memory_mask = _convert_attention_mask(memory_mask, memory.dtype)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask)

    def generate_square_subsequent_mask(self, length):
        """[length, length] float mask: 0 on and below the diagonal, -inf above."""
        if hasattr(length, "shape"):
            length = int(length.item())
        return call("triu", call("full", shape=[length, length], fill_value=float("-inf"),
                                 dtype=_dt.default_float().name), diagonal=1)

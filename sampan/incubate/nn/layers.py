"""The fused Layers of paddle.incubate.nn: parameters in Paddle's layouts, forward through
incubate.nn.functional.
"""
from __future__ import annotations

from ...nn import Layer
from ...nn.initializer import Constant
from . import functional as FF


def _ln_params(layer: Layer, dim: int, scale_attr=None, bias_attr=None):
    return (layer.create_parameter([dim], scale_attr, default_initializer=Constant(1.0)),
            layer.create_parameter([dim], bias_attr, is_bias=True))


class FusedLinear(Layer):
    """Linear layer over fused_linear (weight [in, out], or [out, in] with transpose_weight).

    Examples:
        >>> import sampan as paddle
        >>> layer = paddle.incubate.nn.FusedLinear(4, 3)
        >>> layer(paddle.ones([2, 4])).shape
        paddle.Size([2, 3])
    """

    def __init__(self, in_features: int, out_features: int, weight_attr=None, bias_attr=None,
                 transpose_weight: bool = False, name=None) -> None:
        super().__init__()
        shape = [out_features, in_features] if transpose_weight else [in_features, out_features]
        self.weight = self.create_parameter(shape, weight_attr)
        self.bias = self.create_parameter([out_features], bias_attr, is_bias=True)
        self.transpose_weight = transpose_weight

    def forward(self, input):
        return FF.fused_linear(input, self.weight, self.bias, self.transpose_weight)


class FusedDropoutAdd(Layer):
    """dropout(x) + y as a Layer (train/eval aware)."""

    def __init__(self, p: float = 0.5, mode: str = "upscale_in_train", name=None) -> None:
        super().__init__()
        self.p, self.mode = p, mode

    def forward(self, x, y):
        return FF.fused_dropout_add(x, y, self.p, self.training, self.mode)


class FusedBiasDropoutResidualLayerNorm(Layer):
    """layer_norm(residual + dropout(x + bias)) with learnable bias and norm parameters."""

    def __init__(self, embed_dim: int, dropout_rate: float = 0.5, weight_attr=None,
                 bias_attr=None, epsilon: float = 1e-5, name=None) -> None:
        super().__init__()
        if embed_dim <= 0:
            raise ValueError(f"FusedBiasDropoutResidualLayerNorm: embed_dim must be > 0, "
                             f"got {embed_dim}")
        self.linear_bias = self.create_parameter([embed_dim], bias_attr, is_bias=True)
        self.ln_scale, self.ln_bias = _ln_params(self, embed_dim, weight_attr, bias_attr)
        self.dropout_rate, self.epsilon = dropout_rate, epsilon

    def forward(self, x, residual):
        return FF.fused_bias_dropout_residual_layer_norm(
            x, residual, self.linear_bias, self.ln_scale, self.ln_bias, self.dropout_rate,
            self.epsilon, self.training)


class FusedFeedForward(Layer):
    """The transformer feed-forward block (see fused_feedforward)."""

    def __init__(self, d_model: int, dim_feedforward: int, dropout_rate: float = 0.1,
                 epsilon: float = 1e-5, activation: str = "relu", act_dropout_rate=None,
                 normalize_before: bool = False, linear1_weight_attr=None,
                 linear1_bias_attr=None, linear2_weight_attr=None, linear2_bias_attr=None,
                 ln1_scale_attr=None, ln1_bias_attr=None, ln2_scale_attr=None,
                 ln2_bias_attr=None, nranks: int = 1, ring_id: int = -1, name=None) -> None:
        super().__init__()
        if d_model <= 0 or dim_feedforward <= 0:
            raise ValueError(f"FusedFeedForward: d_model ({d_model}) and dim_feedforward "
                             f"({dim_feedforward}) must be > 0")
        self._d = (dropout_rate, dropout_rate if act_dropout_rate is None else act_dropout_rate)
        self._act, self._eps, self._pre = activation, epsilon, normalize_before
        self._linear1_weight = self.create_parameter([d_model, dim_feedforward],
                                                     linear1_weight_attr)
        self._linear1_bias = self.create_parameter([dim_feedforward], linear1_bias_attr,
                                                   is_bias=True)
        self._linear2_weight = self.create_parameter([dim_feedforward, d_model],
                                                     linear2_weight_attr)
        self._linear2_bias = self.create_parameter([d_model], linear2_bias_attr, is_bias=True)
        self._ln1_scale, self._ln1_bias = _ln_params(self, d_model, ln1_scale_attr, ln1_bias_attr)
        self._ln2_scale, self._ln2_bias = _ln_params(self, d_model, ln2_scale_attr, ln2_bias_attr)

    def forward(self, src, cache=None):
        return FF.fused_feedforward(
            src, self._linear1_weight, self._linear2_weight, self._linear1_bias,
            self._linear2_bias, self._ln1_scale, self._ln1_bias, self._ln2_scale,
            self._ln2_bias, self._d[1], self._d[0], self._act, self._eps, self._eps,
            self._pre, self.training)


class FusedMultiHeadAttention(Layer):
    """Self-attention block (see fused_multi_head_attention); qkv weight [3, heads, hd, e]."""

    def __init__(self, embed_dim: int, num_heads: int, dropout_rate: float = 0.5,
                 attn_dropout_rate: float = 0.5, kdim=None, vdim=None,
                 normalize_before: bool = False, need_weights: bool = False,
                 qkv_weight_attr=None, qkv_bias_attr=None, linear_weight_attr=None,
                 linear_bias_attr=None, pre_ln_scale_attr=None, pre_ln_bias_attr=None,
                 ln_scale_attr=None, ln_bias_attr=None, epsilon: float = 1e-5,
                 nranks: int = 1, ring_id: int = -1, transpose_qkv_wb: bool = False,
                 name=None) -> None:
        super().__init__()
        if num_heads <= 0 or embed_dim % num_heads:
            raise ValueError(f"FusedMultiHeadAttention: embed_dim ({embed_dim}) must be "
                             f"divisible by num_heads ({num_heads})")
        if need_weights:
            raise NotImplementedError("FusedMultiHeadAttention: need_weights=True is not "
                                      "supported (as in Paddle)")
        hd = embed_dim // num_heads
        self.num_heads, self.normalize_before, self._eps = num_heads, normalize_before, epsilon
        self.dropout_rate, self.attn_dropout_rate = dropout_rate, attn_dropout_rate
        self.transpose_qkv_wb = transpose_qkv_wb
        wshape = [embed_dim, 3 * embed_dim] if transpose_qkv_wb else [3, num_heads, hd, embed_dim]
        bshape = [3 * embed_dim] if transpose_qkv_wb else [3, num_heads, hd]
        self.qkv_weight = self.create_parameter(wshape, qkv_weight_attr)
        self.qkv_bias = self.create_parameter(bshape, qkv_bias_attr, is_bias=True)
        self.linear_weight = self.create_parameter([embed_dim, embed_dim], linear_weight_attr)
        self.linear_bias = self.create_parameter([embed_dim], linear_bias_attr, is_bias=True)
        self.pre_ln_scale, self.pre_ln_bias = _ln_params(self, embed_dim, pre_ln_scale_attr,
                                                         pre_ln_bias_attr)
        self.ln_scale, self.ln_bias = _ln_params(self, embed_dim, ln_scale_attr, ln_bias_attr)

    def forward(self, query, key=None, value=None, attn_mask=None, cache=None):
        return FF.fused_multi_head_attention(
            query, self.qkv_weight, self.linear_weight, self.normalize_before,
            self.pre_ln_scale, self.pre_ln_bias, self.ln_scale, self.ln_bias, self._eps,
            self.qkv_bias, self.linear_bias, cache, attn_mask, self.dropout_rate,
            self.attn_dropout_rate, self._eps, self.training, num_heads=self.num_heads,
            transpose_qkv_wb=self.transpose_qkv_wb)


class FusedTransformerEncoderLayer(Layer):
    """FusedMultiHeadAttention followed by FusedFeedForward."""

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int,
                 dropout_rate: float = 0.1, activation: str = "relu", attn_dropout_rate=None,
                 act_dropout_rate=None, normalize_before: bool = False, weight_attr=None,
                 bias_attr=None, name=None) -> None:
        super().__init__()
        attn_drop = dropout_rate if attn_dropout_rate is None else attn_dropout_rate
        self.fused_attn = FusedMultiHeadAttention(d_model, nhead, dropout_rate, attn_drop,
                                                  normalize_before=normalize_before)
        self.ffn = FusedFeedForward(d_model, dim_feedforward, dropout_rate,
                                    activation=activation, act_dropout_rate=act_dropout_rate,
                                    normalize_before=normalize_before)

    def forward(self, src, src_mask=None, cache=None):
        return self.ffn(self.fused_attn(src, attn_mask=src_mask))

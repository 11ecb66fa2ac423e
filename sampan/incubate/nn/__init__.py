"""paddle.incubate.nn: the fused transformer layers as Layers over incubate.nn.functional."""
from __future__ import annotations

from . import functional  # noqa: F401
from .layers import (FusedBiasDropoutResidualLayerNorm, FusedDropoutAdd,  # noqa: F401
                     FusedFeedForward, FusedLinear, FusedMultiHeadAttention,
                     FusedTransformerEncoderLayer)

__all__ = ["FusedMultiHeadAttention", "FusedFeedForward", "FusedTransformerEncoderLayer",
           "FusedLinear", "FusedBiasDropoutResidualLayerNorm", "FusedDropoutAdd"]

"""paddle.nn.initializer: objects that fill Parameters in place (Constant, Normal, Xavier...).

Imports `framework`, `ops` and `tensor`; never `nn.layer` (the Layer base imports this).
"""
from .bilinear import Bilinear
from .constant import Assign, Constant, ConstantInitializer, NumpyArrayInitializer
from .dirac import Dirac
from .initializer import (Initializer, _global_bias_initializer,  # noqa: F401
                          _global_weight_initializer, calculate_gain, set_global_initializer)
from .kaiming import KaimingNormal, KaimingUniform, MSRAInitializer
from .normal import Normal, NormalInitializer, TruncatedNormal, TruncatedNormalInitializer
from .orthogonal import Orthogonal
from .uniform import Uniform, UniformInitializer
from .xavier import XavierInitializer, XavierNormal, XavierUniform

__all__ = ["Bilinear", "Constant", "KaimingUniform", "KaimingNormal", "XavierNormal",
           "XavierUniform", "Assign", "Normal", "TruncatedNormal", "Uniform", "Orthogonal",
           "Dirac", "set_global_initializer", "calculate_gain"]

# Paddle's legacy names, reachable as attributes (not part of __all__ in Paddle either).
_LEGACY = [Initializer, ConstantInitializer, NumpyArrayInitializer, NormalInitializer,
           TruncatedNormalInitializer, UniformInitializer, XavierInitializer, MSRAInitializer]

"""Initializers and parameter creation: the room just above `tensor` (re-exported as
`paddle.nn.initializer`; `paddle.create_parameter` lives here).

Each initializer computes its value through ops, so an eager Parameter is filled in place and
a static startup Program records the same ops. Imports `framework`, `ops`, `autograd` and
`tensor` only.
"""
from .assign import Assign, NumpyArrayInitializer
from .base import Initializer
from .bilinear import Bilinear
from .constant import Constant, ConstantInitializer
from .dirac import Dirac
from .gain import calculate_gain
from .global_init import (_global_bias_initializer, _global_weight_initializer,  # noqa: F401
                          set_global_initializer)
from .kaiming import KaimingNormal, KaimingUniform, MSRAInitializer
from .normal import Normal, NormalInitializer, TruncatedNormal, TruncatedNormalInitializer
from .orthogonal import Orthogonal
from .parameter import choose_initializer, create_parameter, make_parameter  # noqa: F401
from .uniform import Uniform, UniformInitializer
from .xavier import XavierInitializer, XavierNormal, XavierUniform

__all__ = ["Bilinear", "Constant", "KaimingUniform", "KaimingNormal", "XavierNormal",
           "XavierUniform", "Assign", "Normal", "TruncatedNormal", "Uniform", "Orthogonal",
           "Dirac", "set_global_initializer", "calculate_gain"]

# Paddle's legacy names, reachable as attributes (not part of __all__ in Paddle either).
_LEGACY = [Initializer, ConstantInitializer, NumpyArrayInitializer, NormalInitializer,
           TruncatedNormalInitializer, UniformInitializer, XavierInitializer, MSRAInitializer]

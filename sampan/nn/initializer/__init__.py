"""paddle.nn.initializer: re-exports the initializer room (`sampan.initializer`), which sits
just above `tensor` so that `framework`-level parameter creation and static Programs can use
it; every public and legacy name stays reachable here. The submodules re-export too, so
`isinstance` checks and pickles naming the old module paths keep working.
"""
from ...initializer import (Assign, Bilinear, Constant, ConstantInitializer, Dirac,  # noqa
                            Initializer, KaimingNormal, KaimingUniform, MSRAInitializer,
                            Normal, NormalInitializer, NumpyArrayInitializer, Orthogonal,
                            TruncatedNormal, TruncatedNormalInitializer, Uniform,
                            UniformInitializer, XavierInitializer, XavierNormal,
                            XavierUniform, _global_bias_initializer,
                            _global_weight_initializer, calculate_gain,
                            set_global_initializer)
from . import (bilinear, constant, dirac, initializer, kaiming, normal,  # noqa: F401
               orthogonal, uniform, xavier)

__all__ = ["Bilinear", "Constant", "KaimingUniform", "KaimingNormal", "XavierNormal",
           "XavierUniform", "Assign", "Normal", "TruncatedNormal", "Uniform", "Orthogonal",
           "Dirac", "set_global_initializer", "calculate_gain"]

# Paddle's legacy names, reachable as attributes (not part of __all__ in Paddle either).
_LEGACY = [Initializer, ConstantInitializer, NumpyArrayInitializer, NormalInitializer,
           TruncatedNormalInitializer, UniformInitializer, XavierInitializer, MSRAInitializer]

"""paddle.nn.utils: weight_norm, spectral_norm, parameters <-> vector, gradient clipping.

Imports `framework`, `tensor`, `autograd` and `nn.functional`; never the layer families.
"""
# The modules first, then the functions of the same names over them (as in Paddle).
from . import clip_grad_norm_ as _norm_module, clip_grad_value_ as _value_module  # noqa
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .spectral_norm import spectral_norm
from .transform_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm", "parameters_to_vector",
           "vector_to_parameters", "clip_grad_norm_", "clip_grad_value_"]

"""paddle.sparse: COO/CSR tensors and their math (`sparse.nn`: layers and functional ops).

The public face of the sparse room: tensor/unary/binary sit beside `sampan.tensor`; `nn`
sits above `sampan.nn` (tests/test_layering.py places both).
"""
from . import nn  # noqa: F401
from .binary import add, addmm, divide, masked_matmul, matmul, multiply, mv, subtract
from .tensor import (SparseCooTensor, SparseCsrTensor, coalesce, sparse_coo_tensor,
                     sparse_csr_tensor)
from .unary import (abs, asin, asinh, atan, atanh, cast, deg2rad, expm1, is_same_shape, isnan,
                    log1p, neg, pow, rad2deg, reshape, sin, sinh, slice, sqrt, square, sum,
                    tan, tanh, transpose)
from .pca import pca_lowrank
from .mask3 import mask_as

__all__ = ["abs", "add", "addmm", "asin", "asinh", "atan", "atanh", "cast", "coalesce", "deg2rad",
           "divide", "expm1", "is_same_shape", "isnan", "log1p", "mask_as", "masked_matmul",
           "matmul", "multiply", "mv", "neg", "pca_lowrank", "pow", "rad2deg", "reshape", "sin",
           "sinh", "slice", "sparse_coo_tensor", "sparse_csr_tensor", "sqrt", "square", "subtract",
           "sum", "tan", "tanh", "transpose"]

from ..tensor.out_arg import install as _install  # noqa: E402
_install(globals(), (), "paddle.sparse.")  # Paddle 3.3.1's alias keywords (reshape(input=))

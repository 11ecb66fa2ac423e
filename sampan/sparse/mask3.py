"""sparse.mask_as (Paddle 3.x): the entries of a dense tensor at a sparse mask's indices,
as a sparse tensor of the mask's format. Differentiable in x (a gather). Imports `tensor`
and this room.
"""
from __future__ import annotations

import numpy as np

from .. import tensor as T
from ..framework.tensor import Tensor
from .tensor import SparseCooTensor, SparseCsrTensor

__all__ = ["mask_as"]


def mask_as(x: Tensor, mask, name=None):
    """Filter the dense `x` by the indices of the sparse `mask`: the result has mask's
    format and indices (entries kept even where x is zero) and x's values there.

    Args:
        x (Tensor): dense input, of mask's shape.
        mask (SparseCooTensor|SparseCsrTensor): the pattern; CSR masks are 2-D or 3-D.
        name (str, optional): unused.

    Returns:
        A sparse tensor of mask's format.

    Examples:
        >>> import sampan as paddle
        >>> coo = paddle.sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0],
        ...                                       [3, 3])
        >>> x = paddle.arange(9, dtype="float32").reshape([3, 3])
        >>> paddle.sparse.mask_as(x, coo).values().tolist()
        [1.0, 5.0, 6.0]
    """
    api = "paddle.sparse.mask_as"
    if not isinstance(x, Tensor):
        raise TypeError(f"{api}: x must be a dense Tensor, got {type(x).__name__}")
    if not isinstance(mask, (SparseCooTensor, SparseCsrTensor)):
        raise TypeError(f"{api}: mask must be a SparseCooTensor or SparseCsrTensor, got "
                        f"{type(mask).__name__}")
    if list(x.shape) != list(mask.shape):
        raise ValueError(f"{api}: x (shape {list(x.shape)}) and mask (shape "
                         f"{list(mask.shape)}) must have the same shape")
    coo = mask.to_sparse_coo() if isinstance(mask, SparseCsrTensor) else mask
    idx = coo._idx
    if idx.shape[1] == 0:
        values = T.zeros([0] + list(x.shape[idx.shape[0]:]), dtype=x.dtype)
    else:
        values = T.gather_nd(x, Tensor(np.ascontiguousarray(idx.T)))
    if isinstance(mask, SparseCsrTensor):
        return mask._with_values(values)
    return coo._with_values(values)

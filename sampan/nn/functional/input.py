"""one_hot and embedding (lookup tables over integer ids).

Calls OpDefs through dispatch; no mode checks.
"""
from __future__ import annotations

from ...framework.tensor import Tensor, is_variable
from ...ops.dispatch import dispatch
from ...ops.opdef import REGISTRY
from ...tensor.indexing import one_hot as _one_hot

__all__ = ["one_hot", "embedding"]

_EMBEDDING = REGISTRY["embedding"]


def one_hot(x, num_classes=-1, name=None) -> Tensor:
    """One-hot encoding of the integer tensor x: float32 of shape x.shape + [num_classes].

    Args:
        x (Tensor): int32/int64 class ids in [0, num_classes).
        num_classes (int): the depth; -1 (default) uses max(x) + 1.
        name (str, optional): unused.

    Returns:
        Tensor: float32, x.shape + [num_classes].

    Examples:
        >>> import sampan as paddle
        >>> paddle.nn.functional.one_hot(paddle.to_tensor([2, 0]), 3).tolist()
        [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    dtype = getattr(x, "dtype", None)
    if dtype is not None and getattr(dtype, "kind", "i") not in "iu":
        raise TypeError(f"one_hot: x must be an int32 or int64 tensor, got {dtype.name}")
    if isinstance(num_classes, int) and not isinstance(num_classes, bool) and num_classes == -1:
        num_classes = int(x.max().item()) + 1 if x.size else 1
    return _one_hot(x, num_classes)


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None) -> Tensor:
    """Look up rows of `weight` by the ids in x.

    Args:
        x (Tensor): int32/int64 ids in [0, num_embeddings), any shape.
        weight (Tensor): [num_embeddings, embedding_dim].
        padding_idx (int, optional): ids equal to it (negative values count from the end)
            give zero rows and no gradient; default None.
        max_norm (float, optional): rows looked up with a larger `norm_type` norm are
            rescaled in place in weight to norm max_norm first; default None.
        norm_type (float): the norm for max_norm; default 2.0.
        sparse (bool): accepted for compatibility; gradients are always dense.
        scale_grad_by_freq (bool): not supported (must be False).
        name (str, optional): unused.

    Returns:
        Tensor: x.shape + [embedding_dim], weight's dtype.
    """
    if not isinstance(weight, Tensor) and not is_variable(weight):
        raise TypeError(f"embedding: weight must be a Tensor, got {type(weight).__name__}")
    if scale_grad_by_freq:
        raise NotImplementedError("embedding: scale_grad_by_freq=True is not supported")
    rows = weight.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise ValueError(f"embedding: padding_idx must be in [{-rows}, {rows}), got "
                             f"{padding_idx}")
        padding_idx = int(padding_idx) % rows
    if max_norm is not None:
        _renorm_rows(x, weight, float(max_norm), float(norm_type))
    return dispatch(_EMBEDDING, (x, weight), {"padding_idx": padding_idx})


def _renorm_rows(x, weight, max_norm: float, norm_type: float) -> None:
    """Scale the rows of weight that x looks up down to norm max_norm (no gradient)."""
    from ...autograd import no_grad
    from ...tensor.search import unique
    with no_grad():
        ids = unique(x.flatten())
        rows = weight.gather(ids)
        norms = rows.norm(p=norm_type, axis=1, keepdim=True)
        scale = (max_norm / (norms + 1e-7)).clip(max=1.0)
        weight.set_value(weight.index_add(ids, 0, rows * scale - rows))

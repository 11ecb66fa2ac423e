"""paddle.sparse.pca_lowrank over the dense form of a sparse matrix (imports tensor-row
`linalg` only)."""
from __future__ import annotations

from typing import Optional

from .. import linalg as _linalg
from .unary import check_sparse


def pca_lowrank(x, q: Optional[int] = None, center: bool = True, niter: int = 2,
                name: Optional[str] = None):
    """(U, S, V) of a low-rank PCA of the sparse matrix x (computed on its dense form).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.sparse.sparse_coo_tensor([[0, 1, 2], [0, 1, 2]], [3., 2., 1.], [3, 3])
        >>> u, s, v = paddle.sparse.pca_lowrank(x, q=2, center=False)
        >>> [round(float(t), 4) for t in s]
        [3.0, 2.0]
    """
    check_sparse("pca_lowrank", x)
    return _linalg.pca_lowrank(x.to_dense(), q=q, center=center, niter=niter)

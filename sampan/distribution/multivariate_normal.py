"""MultivariateNormal, parameterized by a covariance, precision or lower Cholesky factor.

Everything goes through the Cholesky factor L (cov = L L^T) with triangular solves, in sampan
ops, so rsample and log_prob are differentiable. Imports `framework`, `tensor`, `linalg`.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

from .. import linalg
from .. import tensor as T
from ..framework.tensor import Tensor
from ._random import standard_normal
from .distribution import Distribution, dtype_name, is_tensor, to_params


def _solve_lower(tril: Tensor, rhs: Tensor) -> Tensor:
    """X with tril @ X = rhs (batched, broadcast over leading axes)."""
    shape = T.broadcast_shape(list(tril.shape[:-2]), list(rhs.shape[:-2]))
    tril = tril.expand(shape + list(tril.shape[-2:]))
    rhs = rhs.expand(shape + list(rhs.shape[-2:]))
    return linalg.triangular_solve(tril, rhs, upper=False)


class MultivariateNormal(Distribution):
    r"""The multivariate normal distribution N(loc, covariance_matrix).

    Give exactly one of `covariance_matrix`, `precision_matrix` or `scale_tril`.

    Args:
        loc (float|Tensor): mean, [..., k].
        covariance_matrix (Tensor, optional): positive-definite [..., k, k] covariance.
        precision_matrix (Tensor, optional): positive-definite [..., k, k] inverse covariance.
        scale_tril (Tensor, optional): lower-triangular [..., k, k] factor with a positive
            diagonal (covariance = scale_tril @ scale_tril^T).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution import MultivariateNormal
        >>> d = MultivariateNormal(paddle.to_tensor([0.0, 1.0]),
        ...                        covariance_matrix=paddle.to_tensor([[2.0, 0.5], [0.5, 1.0]]))
        >>> d.batch_shape, d.event_shape
        ((), (2,))
        >>> d.sample([3]).shape
        paddle.Size([3, 2])
        >>> round(float(d.entropy()), 4)
        3.1177
    """

    def __init__(self, loc, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None):
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError("MultivariateNormal: give exactly one of covariance_matrix, "
                             "precision_matrix or scale_tril")
        matrix = next(m for m in (covariance_matrix, precision_matrix, scale_tril)
                      if m is not None)
        if not is_tensor(loc):
            loc = [float(loc)] if isinstance(loc, (int, float)) else loc
        loc, matrix = to_params("MultivariateNormal", ("loc", "matrix"), (loc, matrix),
                                broadcast=False)
        if loc.ndim < 1:
            raise ValueError("MultivariateNormal: loc must be at least 1-D, got a 0-D tensor")
        k = loc.shape[-1]
        if matrix.ndim < 2 or matrix.shape[-1] != k or matrix.shape[-2] != k:
            raise ValueError(f"MultivariateNormal: the matrix must be [..., {k}, {k}] to match "
                             f"loc {list(loc.shape)}, got {list(matrix.shape)}")
        if scale_tril is not None:
            self.scale_tril = matrix.tril()
        elif covariance_matrix is not None:
            self.scale_tril = linalg.cholesky(matrix)
        else:
            self.scale_tril = linalg.cholesky(linalg.inv(matrix))
        self.loc = loc
        self.dtype = dtype_name(loc)
        batch = T.broadcast_shape(list(loc.shape[:-1]), list(matrix.shape[:-2]))
        super().__init__(tuple(batch), (k,))

    @property
    def covariance_matrix(self) -> Tensor:
        return self.scale_tril.matmul(self.scale_tril, transpose_y=True)

    @property
    def precision_matrix(self) -> Tensor:
        return linalg.inv(self.covariance_matrix)

    @property
    def mean(self) -> Tensor:
        return self.loc.expand(list(self.batch_shape + self.event_shape))

    @property
    def variance(self) -> Tensor:
        var = self.scale_tril.pow(2).sum(-1)
        return var.expand(list(self.batch_shape + self.event_shape))

    def rsample(self, shape: Sequence[int] = ()) -> Tensor:
        eps = standard_normal(self._extend_shape(shape), self.dtype)
        return self.loc + (self.scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        return self.scale_tril.diagonal(axis1=-2, axis2=-1).log().sum(-1)

    def log_prob(self, value) -> Tensor:
        diff = self._value(value, self.loc) - self.loc
        y = _solve_lower(self.scale_tril, diff.unsqueeze(-1)).squeeze(-1)
        k = self.event_shape[0]
        return -0.5 * (k * math.log(2 * math.pi) + y.pow(2).sum(-1)) - self._half_log_det()

    def entropy(self) -> Tensor:
        k = self.event_shape[0]
        out = 0.5 * k * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return out.expand(list(self.batch_shape))

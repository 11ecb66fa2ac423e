"""Draws paddle.distribution needs beyond paddle.tensor.random: standard_gamma and binomial.

Each draws one op seed from the global generator (so `paddle.seed` reproduces it) and calls
its op in ops/random_dist.py. Imports `framework`, `ops`.
"""
from __future__ import annotations

from ..framework.random import op_seed
from ..framework.tensor import Tensor
from ..ops.dispatch import dispatch
from ..ops.opdef import REGISTRY


def standard_gamma(x: Tensor, name: str | None = None) -> Tensor:
    """Draws Gamma(x[i], 1) for each element of the float tensor x (no gradient).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution._random import standard_gamma
        >>> standard_gamma(paddle.full([2, 3], 2.0)).shape
        paddle.Size([2, 3])
    """
    return dispatch(REGISTRY["standard_gamma"], (x,), {"seed": op_seed()})


def binomial(count: Tensor, prob: Tensor, name: str | None = None) -> Tensor:
    """Draws Binomial(count[i], prob[i]) (broadcast) as int64 (no gradient).

    Examples:
        >>> import sampan as paddle
        >>> from sampan.distribution._random import binomial
        >>> binomial(paddle.to_tensor([3, 5]), paddle.to_tensor([0.5, 0.5])).dtype
        paddle.int64
    """
    return dispatch(REGISTRY["binomial"], (count, prob), {"seed": op_seed()})


def standard_normal(shape, dtype: str, seed: int = 0) -> Tensor:
    """N(0, 1) draws of `shape`; seed 0 draws an op seed from the global generator."""
    return dispatch(REGISTRY["normal"], (), {"shape": list(shape), "mean": 0.0, "std": 1.0,
                                             "dtype": dtype, "seed": op_seed(seed)})


def open_uniform(shape, dtype: str, low: float, high: float = 1.0, seed: int = 0) -> Tensor:
    """U[low, high) draws of `shape` (callers pass low = the dtype's tiny to avoid log(0))."""
    return dispatch(REGISTRY["uniform"], (), {"shape": list(shape), "dtype": dtype,
                                              "min": float(low), "max": float(high),
                                              "seed": op_seed(seed)})

"""Distance layers: PairwiseDistance.

Imports `nn.functional` and `nn.layer.layers`.
"""
from __future__ import annotations

from .. import functional as F
from .layers import Layer

__all__ = ["PairwiseDistance"]


class PairwiseDistance(Layer):
    """F.pairwise_distance(x, y, p, epsilon, keepdim): ||x - y + epsilon||_p on the last axis.

    Args:
        p (float): the norm degree; default 2.0.
        epsilon (float): added to the difference; default 1e-6.
        keepdim (bool): keep the reduced axis; default False.
        name (str, optional): shown by repr.
    """

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None) -> None:
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)):
            raise TypeError(f"PairwiseDistance: p must be a float, got {type(p).__name__}")
        self.p = p
        self.epsilon = epsilon
        self.keepdim = keepdim
        self.name = name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)

    def extra_repr(self) -> str:
        text = f"p={self.p}"
        if self.epsilon != 1e-6:
            text += f", epsilon={self.epsilon}"
        if self.keepdim:
            text += ", keepdim=True"
        if self.name:
            text += f", name={self.name}"
        return text

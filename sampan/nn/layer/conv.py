"""Convolution layers and Fold/Unfold."""
from __future__ import annotations

__all__: list = []

"""Convolutions and fold/unfold."""
from __future__ import annotations

__all__: list = []

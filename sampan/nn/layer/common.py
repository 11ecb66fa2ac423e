"""Common layers: Linear, Bilinear, Embedding, Dropout*, Identity, Flatten, ..."""
from __future__ import annotations

__all__: list = []

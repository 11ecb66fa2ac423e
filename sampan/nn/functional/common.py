"""Common functions: linear, bilinear, dropout family, cosine_similarity, label_smooth, ..."""
from __future__ import annotations

__all__: list = []

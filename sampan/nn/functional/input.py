"""one_hot and embedding."""
from __future__ import annotations

__all__: list = []

"""scaled_dot_product_attention and friends."""
from __future__ import annotations

__all__: list = []

"""pairwise_distance."""
from __future__ import annotations

__all__: list = []

"""Public indexing functions over dispatch."""
from __future__ import annotations

__all__: list = []

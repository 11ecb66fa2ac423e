"""sequence_mask, temporal_shift, gather_tree, diag_embed."""
from __future__ import annotations

__all__: list = []

"""Vision layers: Upsample*, Pad*, PixelShuffle, ..."""
from __future__ import annotations

__all__: list = []

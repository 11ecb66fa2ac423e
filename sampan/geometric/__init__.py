"""paddle.geometric: graph learning helpers. Built so far: neighbour sampling
(weighted_sample_neighbors); the message-passing and segment APIs are not built yet."""
from __future__ import annotations

from .sampling import weighted_sample_neighbors

__all__ = ["weighted_sample_neighbors"]

"""Recurrent and attention operators with dedicated kernels (LSTM/GRU cells, sdpa).

Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register  # noqa: F401

"""Common nn operators (linear, bilinear, dropout, embedding, one_hot, distances).

Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register  # noqa: F401

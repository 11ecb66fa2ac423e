"""Pooling operators (max/avg/adaptive/lp pooling, max_unpool).

Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register  # noqa: F401

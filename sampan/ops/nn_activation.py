"""Activation operators (relu family, sigmoid family, softmax, gelu, ...).

Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register  # noqa: F401

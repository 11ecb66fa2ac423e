"""Convolution operators (conv1d/2d/3d and transposed) and fold/unfold.

Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register  # noqa: F401

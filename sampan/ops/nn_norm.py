"""Normalization operators (batch_norm, layer_norm, group_norm, instance_norm, ...).

Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register  # noqa: F401

"""Vision operators: interpolate, grid_sample, affine_grid, pixel/channel shuffle, pad.

Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register  # noqa: F401

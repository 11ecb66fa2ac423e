"""Loss operators with dedicated kernels (softmax cross entropy, ctc, ...).

Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register  # noqa: F401

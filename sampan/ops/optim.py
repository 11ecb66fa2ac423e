"""Optimizer update rules as OpDefs (sgd, momentum, adam, ...): pure (param, grad, state, lr) -> new values.

Imports only `framework`, `backend` and sibling op modules.
"""
from __future__ import annotations

from .opdef import OpDef, TensorSpec, register  # noqa: F401

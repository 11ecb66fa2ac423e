"""random operators. Imports `framework` and `ops.opdef`/`ops.dispatch` only."""
from __future__ import annotations

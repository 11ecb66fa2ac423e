"""`paddle.pir_utils`: guards that in Paddle switch between its legacy IR and PIR.

sampan has one IR, so there is nothing to switch: `IrGuard`/`OldIrGuard` only enter static
mode for their block (as Paddle's do when entered from dynamic mode) and the `Dygraph*`
guards change nothing. The top room: imports `base`.
"""
from __future__ import annotations

from .base.dygraph.base import _mode


class IrGuard:
    """Build static Programs inside the block (from dynamic mode too), then restore the mode.

    Examples:
        >>> import sampan as paddle
        >>> with paddle.pir_utils.IrGuard():
        ...     print(paddle.in_dynamic_mode())
        False
    """

    def __enter__(self):
        self._guard = _mode(False)
        self._guard.__enter__()
        return self

    def __exit__(self, *exc):
        return self._guard.__exit__(*exc)


OldIrGuard = IrGuard


class DygraphPirGuard:
    """No-op: dynamic mode has no IR to choose."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


DygraphOldIrGuard = DygraphPirGuard

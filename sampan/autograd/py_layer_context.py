"""PyLayerContext: the `ctx` of PyLayer.forward/backward. Imports only `framework`."""
from __future__ import annotations

from ..framework.flags import STATE
from ..framework.node import Packed
from ..framework.tensor import Tensor


class PyLayerContext:
    """The `ctx` passed to PyLayer.forward/backward."""

    def __init__(self) -> None:
        self._saved = ()
        self._non_diff = set()
        self._not_inplace = set()
        self.materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        """Keep `tensors` for backward; under `saved_tensors_hooks` each Tensor goes through
        pack_hook now and comes back through unpack_hook in `saved_tensor()` (Paddle)."""
        hooks = STATE.saved_hooks
        if hooks is not None:
            pack, unpack = hooks
            tensors = tuple(Packed(pack(t), unpack) if isinstance(t, Tensor) else t
                            for t in tensors)
        self._saved = tensors

    def saved_tensor(self):
        saved = self._saved
        if any(isinstance(t, Packed) for t in saved):
            saved = tuple(_unpacked(t) if isinstance(t, Packed) else t for t in saved)
        return saved

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_diff.update(id(t) for t in tensors)

    def mark_not_inplace(self, *tensors) -> None:
        """Inputs that forward returns as they are become new outputs, not in-place ones."""
        self._not_inplace.update(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)


def _unpacked(packed: Packed) -> Tensor:
    value = packed.get()
    if not isinstance(value, Tensor):
        raise TypeError(f"saved_tensors_hooks: unpack_hook must return a Tensor, got "
                        f"{type(value).__name__}")
    return value

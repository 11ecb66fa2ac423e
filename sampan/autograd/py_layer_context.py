"""PyLayerContext: the `ctx` of PyLayer.forward/backward. Imports nothing."""
from __future__ import annotations


class PyLayerContext:
    """The `ctx` passed to PyLayer.forward/backward."""

    def __init__(self) -> None:
        self._saved = ()
        self._non_diff = set()
        self._not_inplace = set()
        self.materialize_grads = True

    def save_for_backward(self, *tensors) -> None:
        self._saved = tensors

    def saved_tensor(self):
        return self._saved

    def mark_non_differentiable(self, *tensors) -> None:
        self._non_diff.update(id(t) for t in tensors)

    def mark_not_inplace(self, *tensors) -> None:
        """Inputs that forward returns as they are become new outputs, not in-place ones."""
        self._not_inplace.update(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = bool(value)

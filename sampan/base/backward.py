"""`paddle.base.backward`: append_backward and gradients (aliases of `paddle.static`)."""
from ..static import append_backward, gradients  # noqa: F401


def _append_grad_suffix_(name: str) -> str:
    """The name of `name`'s gradient variable in a Program (`x` -> `x@GRAD`)."""
    return name + "@GRAD"

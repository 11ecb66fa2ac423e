"""`paddle.base.backward`: append_backward and gradients (aliases of `paddle.static`)."""
from ..static import append_backward, gradients  # noqa: F401

"""`paddle.base.dygraph`: guard, to_variable, no_grad, grad, mode switches (aliases)."""
from . import base  # noqa: F401
from .base import (disable_dygraph, enable_dygraph, enabled, grad, guard,  # noqa: F401
                   no_grad, to_variable)

no_grad_ = no_grad

"""`paddle.base.executor`: the Executor and scopes (aliases of `paddle.static`)."""
from ..static import Executor, Scope, global_scope, scope_guard  # noqa: F401

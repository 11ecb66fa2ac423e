"""`paddle.base.core`: `paddle.framework.core` (build queries, places, dtype enums) plus the
core names that live above the framework room, such as `Scope` (the Executor's variables)."""
from ..framework.core import *  # noqa: F401,F403
from ..framework.core import globals  # noqa: F401,A004  (Paddle's name; star skips nothing)
from ..static import Scope  # noqa: F401
from ..static.lod import LoDTensor  # noqa: F401
DenseTensor = LoDTensor  # Paddle 3 name of the same class

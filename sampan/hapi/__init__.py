"""paddle.hapi: high-level helpers (paddle.Model, callbacks, model summary)."""
from . import callbacks  # noqa: F401
from .model import Model  # noqa: F401
from .model_summary import summary  # noqa: F401

"""paddle.hapi: high-level helpers (model summary; paddle.Model comes later)."""
from .model_summary import summary  # noqa: F401

"""Old import path of these initializers (now in `sampan.initializer`), kept for pickles."""
from ...initializer.xavier import XavierInitializer, XavierNormal, XavierUniform  # noqa: F401

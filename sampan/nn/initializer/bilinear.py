"""Old import path of these initializers (now in `sampan.initializer`), kept for pickles."""
from ...initializer.bilinear import Bilinear  # noqa: F401

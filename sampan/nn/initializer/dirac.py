"""Old import path of these initializers (now in `sampan.initializer`), kept for pickles."""
from ...initializer.dirac import Dirac  # noqa: F401

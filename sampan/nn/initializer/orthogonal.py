"""Old import path of these initializers (now in `sampan.initializer`), kept for pickles."""
from ...initializer.orthogonal import Orthogonal  # noqa: F401

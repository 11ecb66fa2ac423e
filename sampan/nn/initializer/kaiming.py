"""Old import path of these initializers (now in `sampan.initializer`), kept for pickles."""
from ...initializer.kaiming import KaimingNormal, KaimingUniform, MSRAInitializer  # noqa: F401

"""Old import path of these initializers (now in `sampan.initializer`), kept for pickles."""
from ...initializer.uniform import Uniform, UniformInitializer  # noqa: F401

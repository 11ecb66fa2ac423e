"""Old import path of these initializers (now in `sampan.initializer`), kept for pickles."""
from ...initializer.assign import Assign, NumpyArrayInitializer  # noqa: F401
from ...initializer.constant import Constant, ConstantInitializer  # noqa: F401

"""Old import path of these initializers (now in `sampan.initializer`), kept for pickles."""
from ...initializer.normal import (Normal, NormalInitializer, TruncatedNormal,  # noqa: F401
                                    TruncatedNormalInitializer)

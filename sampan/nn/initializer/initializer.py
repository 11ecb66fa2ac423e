"""Old import path of these initializers (now in `sampan.initializer`), kept for pickles."""
from ...initializer.base import Initializer  # noqa: F401
from ...initializer.gain import calculate_gain  # noqa: F401
from ...initializer.global_init import (_global_bias_initializer,  # noqa: F401
                                        _global_weight_initializer, set_global_initializer)

"""paddle.nn.functional: the functional form of every layer."""
from .activation import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .norm3 import *  # noqa: F401,F403  (Paddle 3.x: rms_norm)
from .pooling3 import *  # noqa: F401,F403  (Paddle 3.x: fractional_max_pool2d/3d)
from .loss3 import *  # noqa: F401,F403  (Paddle 3.x: adaptive_log_softmax_with_loss)
from .common import *  # noqa: F401,F403
from .input import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .extension import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .loss_margin import *  # noqa: F401,F403
from .loss_pointwise import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .sparse_attention import *  # noqa: F401,F403

from ...tensor.out_arg import install as _install  # noqa: E402
_install(globals(), (), "paddle.nn.functional.")  # Paddle 3.3.1's alias keywords (input=, ...)

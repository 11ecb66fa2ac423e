"""Layer classes: the base Layer, containers and one module per family."""
# `paddle.nn.layer.<Class>`: the layer classes are reachable from this package too (as in
# Paddle), besides `paddle.nn.<Class>`.
from . import container, layers, loss, rnn, transformer  # noqa: F401,E402
from .layers import Layer  # noqa: F401,E402
from .container import LayerDict, LayerList, ParameterList, Sequential  # noqa: F401,E402
from .activation import *  # noqa: F401,F403,E402
from .common import *  # noqa: F401,F403,E402
from .conv import *  # noqa: F401,F403,E402
from .distance import *  # noqa: F401,F403,E402
from .loss import *  # noqa: F401,F403,E402
from .norm import *  # noqa: F401,F403,E402
from .pooling import *  # noqa: F401,F403,E402
from .rnn import *  # noqa: F401,F403,E402
from .transformer import *  # noqa: F401,F403,E402
from .vision import *  # noqa: F401,F403,E402

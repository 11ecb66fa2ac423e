"""paddle.nn: the Layer base class, containers, every layer family, functional and initializer."""
from . import functional, initializer, utils  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from ..framework.param_attr import ParamAttr  # noqa: F401
from .layer.layers import Layer  # noqa: F401
from .layer import loss  # noqa: F401  (paddle.nn.loss: the loss layers' module)
from .layer.container import LayerDict, LayerList, ParameterList, Sequential  # noqa: F401
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: F401
from .layer.activation import *  # noqa: F401,F403
from .layer.common import *  # noqa: F401,F403
from .layer.conv import *  # noqa: F401,F403
from .layer.distance import *  # noqa: F401,F403
from .layer.loss import *  # noqa: F401,F403
from .layer.norm import *  # noqa: F401,F403
from .layer.sync_batch_norm import SyncBatchNorm  # noqa: F401,E402  (cross-rank statistics)
from .layer.pooling import *  # noqa: F401,F403
from .layer.rnn import *  # noqa: F401,F403
from .layer.transformer import *  # noqa: F401,F403
from .layer.vision import *  # noqa: F401,F403

from .layer.pad3 import *  # noqa: F401,F403,E402  (Paddle 3.x fixed-mode pad layers)
from .layer.param_dict import ParameterDict  # noqa: F401,E402
from .layer.pooling3 import *  # noqa: F401,F403,E402  (FractionalMaxPool2D/3D)
from .layer.loss3 import *  # noqa: F401,F403,E402  (AdaptiveLogSoftmaxWithLoss)
from .compat3 import *  # noqa: F401,F403,E402  (Paddle 3.x's PyTorch-style spellings)

from .layer import param_alias as _param_alias  # noqa: E402
_param_alias.install(globals())  # Paddle 3.3.1's alias keywords on layers (eps=, input=, ...)

"""paddle.optimizer: the Optimizer base, every optimizer, and the lr schedulers (`lr`)."""
from . import lr  # noqa: F401
from .adam import Adam, Adamax, AdamW  # noqa: F401
from .adaptive import Adadelta, Adagrad, RMSProp  # noqa: F401
from .asgd import ASGD, Rprop  # noqa: F401
from .lamb import Lamb, NAdam, RAdam  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD, Momentum  # noqa: F401

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adamax", "Adagrad", "Adadelta",
           "RMSProp", "Lamb", "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS", "lr"]

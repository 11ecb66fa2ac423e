"""Operators: OpDef, the registry, dispatch, and one module per op family.

Importing this package registers every OpDef. Imports only `framework` and `backend`.
"""
from .opdef import REGISTRY, OpDef, TensorSpec, register  # noqa: F401
from .dispatch import call, dispatch  # noqa: F401
from . import (creation, cumulative, indexing, linalg, logic, manipulation, math,  # noqa: F401
               random, reduce, search)
from . import attribute  # noqa: F401
from . import (nn_activation, nn_common, nn_conv, nn_loss, nn_norm, nn_pool,  # noqa: F401
               nn_rnn, nn_vision, optim)
from . import control_flow, extra, fft, fused  # noqa: F401
from . import metric_ops, print_op, py_func  # noqa: F401
from . import run_program  # noqa: F401
from . import bitshift  # noqa: F401
from . import random_dist  # noqa: F401
from . import graph_sample  # noqa: F401
from . import vision_det, vision_roi, vision_yolo  # noqa: F401
from . import text_ops  # noqa: F401
from . import math_igamma  # noqa: F401
from . import quant  # noqa: F401
from . import collective  # noqa: F401
from . import ps  # noqa: F401
from . import heter  # noqa: F401  (the heterogeneous PS's send_and_recv)
from . import sequence  # noqa: F401  (LoD sequence ops; + sequence_rows)
from . import runtime_dims  # noqa: F401  (full, random and reshape with run-time dims)
from . import linalg_exp  # noqa: F401  (matrix_exp)
from . import nn_pool_fractional  # noqa: F401  (fractional_max_pool2d/3d)

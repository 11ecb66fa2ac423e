"""sampan: the PaddlePaddle 2.x programming model and API on NumPy (`import sampan as paddle`)."""
from __future__ import annotations

__version__ = "0.1.0"

from .framework import dtype as _dtype_mod
from .framework.dtype import (DType as dtype, bfloat16, complex64, complex128, float16,  # noqa
                              float32, float64, get_default_dtype, int8, int16, int32, int64,
                              set_default_dtype, uint8)
from .framework.dtype import bool_ as bool  # noqa: A001  (paddle.bool)
from .framework.dtype import uint16, uint32, uint64  # noqa: F401  (Paddle 3.x names)
from .framework.place import (CPUPlace, CUDAPinnedPlace, CUDAPlace, get_device,  # noqa
                              is_compiled_with_cuda, is_compiled_with_rocm,
                              is_compiled_with_xpu, set_device)
from .framework.random import get_rng_state, seed, set_rng_state  # noqa: F401
from .framework.generator3 import Generator  # noqa: F401  (Paddle 3.x)
from .framework.flags import get_flags, set_flags  # noqa: F401
from .framework.printing import set_printoptions  # noqa: F401
from .framework.tensor import Parameter, Tensor  # noqa: F401
from .framework.size import Size  # noqa: F401
from . import ops  # noqa: F401  (registers every OpDef)
from . import autograd  # noqa: F401
from .autograd import enable_grad, grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa
from . import tensor  # noqa: F401
from .tensor import *  # noqa: F401,F403
from . import device, linalg, utils  # noqa: F401
from .tensor.typed3 import *  # noqa: F401,F403  (Paddle 3.x FloatTensor, LongTensor, ...)
from .device.generic3 import XPUPinnedPlace  # noqa: F401  (Paddle 3.x)
from .device import (is_compiled_with_cinn, is_compiled_with_custom_device,  # noqa: F401
                     is_compiled_with_distribute, is_compiled_with_ipu)


from .framework.param_attr import ParamAttr  # noqa: F401,E402
from .initializer import create_parameter as _eager_create_parameter  # noqa: E402
from .initializer.lazy import LazyGuard, initialize as _lazy_initialize  # noqa: E402
Parameter.initialize = _lazy_initialize  # (paddle's param.initialize() after LazyGuard)
from .framework.signal_handler import disable_signal_handler  # noqa: F401,E402


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """paddle.create_parameter, the same function as paddle.static.create_parameter: an eager
    Parameter in dynamic mode (initializer/parameter.py); while a Program is built, a
    Parameter of the main program that the startup program initialises (static/input.py).

    Examples:
        >>> import sampan as paddle
        >>> w = paddle.create_parameter([2, 3], "float32", is_bias=True)
        >>> list(w.shape), w.sum().item(), w.stop_gradient
        ([2, 3], 0.0, False)
    """
    if in_dynamic_mode():
        return _eager_create_parameter(shape, dtype, name, attr, is_bias, default_initializer)
    from .static.input import create_parameter as _static
    return _static(shape, dtype, name, attr, is_bias, default_initializer)


# Paddle also has it as paddle.tensor.create_parameter and a Tensor method
tensor.create_parameter = Tensor.create_parameter = create_parameter


def _create_tensor(dtype, name=None, persistable=False):
    """paddle.tensor.create_tensor (static/tensor_create.py), loaded on first call."""
    from .static.tensor_create import create_tensor as _create
    return _create(dtype, name, persistable)


def _tensor_block(self):
    """The global Block of the default main Program (Paddle's eager Tensor.block)."""
    from .static.tensor_create import tensor_block
    return tensor_block(self)


_create_tensor.__name__ = _create_tensor.__qualname__ = "create_tensor"
tensor.create_tensor = Tensor.create_tensor = _create_tensor
Tensor.block = property(_tensor_block, doc=_tensor_block.__doc__)


def _sparse_method(name: str):
    """A dense Tensor method of paddle.sparse (to_sparse_coo, ...), loaded on first call so
    that `import sampan` does not load the sparse room (whose face imports nn)."""
    def method(self, *args, **kwargs):
        from .sparse.tensor import DENSE_METHODS
        return DENSE_METHODS[name](self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    return method


for _name in ("to_sparse_coo", "to_sparse_csr", "is_sparse_coo", "is_sparse_csr",
              "sparse_dim", "to_dense"):
    if not hasattr(Tensor, _name):
        setattr(Tensor, _name, _sparse_method(_name))
from ._compat import install_as_paddle  # noqa: F401,E402  (opt-in `import paddle`)


# paddle.save/load themselves, so that help() shows their documented configs (~3 ms import)
from .framework.io import load, save  # noqa: F401,E402


def summary(net, input_size=None, dtypes=None, input=None) -> dict:
    """Print a table of net's layers, shapes and parameters (see hapi/model_summary.py)."""
    from .hapi import summary as _summary
    return _summary(net, input_size, dtypes, input)


def flops(net, input_size, custom_ops=None, print_detail: bool = False) -> int:
    """FLOPs of one forward pass of net (see hapi/flops.py)."""
    from .hapi.flops import flops as _flops
    return _flops(net, input_size, custom_ops, print_detail)


def enable_static() -> None:
    """Switch to static graph mode: ops append to the default main Program."""
    from .static import enable_static as _enable
    _enable()


def disable_static(place=None) -> None:
    """Switch back to dynamic (eager) mode."""
    from .static import disable_static as _disable
    _disable(place)


from .framework.flags import in_dynamic_mode  # noqa: E402  (True unless this thread builds)

in_dygraph_mode = in_dynamic_mode


_LAZY = ("io", "nn", "optimizer", "static", "regularizer", "metric", "vision",
         "jit", "amp", "hapi", "incubate", "distributed", "inference", "onnx", "callbacks",
         "fft", "signal", "base", "reader", "pir_utils", "distribution", "text",
         "quantization", "profiler", "sparse", "compat", "geometric", "cuda")
# (heavier rooms load on first use so `import sampan` stays fast)
# nn.functional names Paddle 3.x also exports at the top level (paddle.conv2d, ...)
_LAZY_FUNCTIONAL = ("adaptive_avg_pool1d", "conv1d", "conv2d", "conv3d", "group_norm",
                    "layer_norm")


# Paddle 3.x top-level names that live in a lazily loaded room: name -> room
_LAZY_NAMES = dict.fromkeys(("autocast", "is_autocast_enabled", "get_autocast_dtype",
                             "get_autocast_cpu_dtype", "get_autocast_gpu_dtype"), "amp")


def __getattr__(name: str):
    if name in _LAZY_NAMES:
        import importlib
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
        globals()[name] = value
        return value
    if name == "Model":  # paddle.Model lives in hapi, which loads on first use
        from .hapi.model import Model
        globals()["Model"] = Model
        return Model
    if name == "DataParallel":  # lives in distributed, which loads on first use
        from .distributed.parallel import DataParallel
        globals()["DataParallel"] = DataParallel
        return DataParallel
    if name in _LAZY_FUNCTIONAL:
        from .nn import functional
        globals()[name] = value = getattr(functional, name)
        return value
    if name in _LAZY:
        import importlib
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module 'sampan' has no attribute {name!r} (not built yet)") from None
        globals()[name] = module
        return module
    raise AttributeError(f"module 'sampan' has no attribute {name!r}")

"""paddle.inference Predictor: a loaded inference Program (inference passes applied once at
load) run by the static Executor; its input/output Tensor handles; create_predictor,
PredictorPool.

Thread safety: the optimised Program and the parameters (made read-only) are shared by
`clone()`s; each clone has its own Executor, Scope and handles, so one clone per thread runs
concurrently. One Predictor must not be run from two threads at once.
Imports `framework`, `static`, `inference.loader`/`config`.
"""
from __future__ import annotations

import warnings

import numpy as np

from ..framework.tensor import Tensor as _SampanTensor, wrap
from ..static import passes as _passes
from ..static.executor import Executor, Scope, scope_guard
from ..static.lod import LoDTensor, lod_level_of, with_lods
from .config import Config
from .enums import DataType, data_type_of
from .loader import load_program

__all__ = ["Predictor", "Tensor", "create_predictor", "PredictorPool"]


class _Model:
    """What clones share: the optimised program, input specs, output names, parameters."""

    def __init__(self, config: Config) -> None:
        model_file, params_file = config._resolved()
        program, feeds, fetch_vars, params = load_program(model_file, params_file)
        block = program.global_block()
        self.feed_names = list(feeds)
        self.fetch_names = [v.name for v in fetch_vars]
        self.specs = {n: (list(block.var(n).shape), block.var(n).dtype) for n in feeds}
        for arr in params.values():
            if isinstance(arr, np.ndarray):
                arr.setflags(write=False)   # shared by every clone: never written
        scope = Scope()
        scope._vars.update(params)
        # onnxruntime optimises the graph itself: it gets the program as saved
        self.session = _onnx_session(program, self.feed_names, self.fetch_names, scope,
                                     config.cpu_math_library_num_threads()) \
            if config.onnxruntime_enabled() else None
        names = config._pass_list()
        if names:
            program = _passes.apply(program, names, scope=scope,
                                    keep=with_lods(program.global_block(), self.fetch_names))
        read = {n for b in program.blocks for op in b.ops for n in op.input_arg_names}
        self.params = {k: v for k, v in params.items() if k in read}
        self.program = program
        self.model_file = model_file


def _onnx_session(program, feeds: list, fetch: list, scope: Scope, threads: int):
    """An onnxruntime session running `program` exported by sampan.onnx, or None (with a
    warning saying why) when onnx/onnxruntime or a lowering is missing."""
    try:
        import onnxruntime
        from ..onnx.export import ExportError, program_to_onnx
    except ImportError as e:
        warnings.warn(f"paddle.inference: enable_onnxruntime() is set but the ONNX route is "
                      f"not available ({e}); the predictor runs on sampan's Executor",
                      stacklevel=5)
        return None
    try:
        with scope_guard(scope):   # the exporter reads parameter values from the scope
            model = program_to_onnx(program, feeds, fetch)
    except ExportError as e:
        warnings.warn(f"paddle.inference: enable_onnxruntime() is set but the model cannot "
                      f"be exported to ONNX; the predictor runs on sampan's Executor. {e}",
                      stacklevel=5)
        return None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    return onnxruntime.InferenceSession(model.SerializeToString(), options,
                                        providers=["CPUExecutionProvider"])


def _as_array(value, api: str) -> np.ndarray:
    if isinstance(value, _SampanTensor):
        return value._data
    if isinstance(value, np.ndarray):
        return value
    raise TypeError(f"{api}: expected a numpy.ndarray (or a paddle Tensor), got "
                    f"{type(value).__name__}")


def _check_input(name: str, spec: tuple, arr: np.ndarray, api: str) -> None:
    shape, dtype = spec
    if arr.dtype != dtype.np:
        raise TypeError(f"{api}: input '{name}' expects dtype {dtype.name}, got "
                        f"{arr.dtype} (shape {list(arr.shape)}); cast it first, e.g. "
                        f"arr.astype('{dtype.name}')")
    if arr.ndim != len(shape) or any(d >= 0 and d != a for d, a in zip(shape, arr.shape)):
        raise ValueError(f"{api}: input '{name}' expects shape {shape} (-1: any size), got "
                         f"{list(arr.shape)}")


class Tensor:
    """An input or output of a Predictor (`paddle.inference.Tensor`), obtained with
    `get_input_handle(name)` / `get_output_handle(name)`."""

    def __init__(self, name: str, spec: tuple, is_input: bool) -> None:
        self._name = name
        self._spec = spec
        self._is_input = is_input
        self._data = None
        self._shape = None
        self._lod: list = []

    def name(self) -> str:
        return self._name

    def reshape(self, shape) -> None:
        """Set the shape of an input before copy_from_cpu."""
        if not self._is_input:
            raise RuntimeError(f"paddle.inference.Tensor.reshape: '{self._name}' is an "
                               f"output; only inputs can be reshaped")
        if not isinstance(shape, (list, tuple)) or not all(
                isinstance(d, (int, np.integer)) and d >= 0 for d in shape):
            raise ValueError(f"paddle.inference.Tensor.reshape: shape of input "
                             f"'{self._name}' must be a list of non-negative ints, got "
                             f"{shape!r}")
        want = self._spec[0]
        if len(shape) != len(want) or any(d >= 0 and d != s for d, s in zip(want, shape)):
            raise ValueError(f"paddle.inference.Tensor.reshape: input '{self._name}' expects "
                             f"shape {want} (-1: any size), got {list(shape)}")
        self._shape = [int(d) for d in shape]

    def copy_from_cpu(self, data) -> None:
        """Copy a NumPy array into this input (checked against its shape and dtype)."""
        self._set(_as_array(data, "paddle.inference.Tensor.copy_from_cpu"), copy=True)

    def share_external_data(self, data) -> None:
        """Use `data` (a paddle Tensor or NumPy array) as this input without copying."""
        self._set(_as_array(data, "paddle.inference.Tensor.share_external_data"), copy=False)

    def _set(self, arr: np.ndarray, copy: bool) -> None:
        if not self._is_input:
            raise RuntimeError(f"paddle.inference.Tensor: '{self._name}' is an output; "
                               f"copy data into the inputs (get_input_handle)")
        _check_input(self._name, self._spec, arr, "paddle.inference.Tensor.copy_from_cpu")
        self._data = np.array(arr, order="C") if copy else arr
        self._shape = list(arr.shape)

    def copy_to_cpu(self) -> np.ndarray:
        """A copy of the data (an output after Predictor.run)."""
        if self._data is None:
            what = "call predictor.run() first" if not self._is_input else \
                "call copy_from_cpu first"
            raise RuntimeError(f"paddle.inference.Tensor.copy_to_cpu: '{self._name}' holds "
                               f"no data; {what}")
        return np.array(self._data)

    def shape(self) -> list:
        if self._data is not None:
            return list(self._data.shape)
        return list(self._shape) if self._shape is not None else [0]

    def type(self) -> DataType:
        return data_type_of(self._spec[1])

    def lod(self) -> list:
        return [list(level) for level in self._lod]

    def set_lod(self, x) -> None:
        self._lod = [list(level) for level in x]

    def __repr__(self) -> str:
        kind = "input" if self._is_input else "output"
        return f"paddle.inference.Tensor({kind} '{self._name}', shape={self.shape()}, " \
               f"dtype={self._spec[1].name})"


class Predictor:
    """Runs a saved inference model (`paddle.inference.Predictor`); make one with
    `create_predictor(config)`, and one `clone()` per extra thread."""

    def __init__(self, config: Config, _model: _Model | None = None) -> None:
        if not isinstance(config, Config):
            raise TypeError(f"paddle.inference.create_predictor: config must be a "
                            f"paddle.inference.Config, got {type(config).__name__}")
        self._config = config
        self._model = _Model(config) if _model is None else _model
        m = self._model
        self._exe = Executor()
        self._scope = Scope()
        self._scope._vars.update(m.params)
        self._inputs = {n: Tensor(n, m.specs[n], True) for n in m.feed_names}
        block = m.program.global_block()
        self._outputs = {n: Tensor(n, (list(block.var(n).shape), block.var(n).dtype), False)
                         for n in m.fetch_names}

    def get_input_names(self) -> list:
        return list(self._model.feed_names)

    def get_output_names(self) -> list:
        return list(self._model.fetch_names)

    def get_input_handle(self, name: str) -> Tensor:
        return self._handle(self._inputs, name, "input")

    def get_output_handle(self, name: str) -> Tensor:
        return self._handle(self._outputs, name, "output")

    @staticmethod
    def _handle(table: dict, name: str, kind: str) -> Tensor:
        try:
            return table[name]
        except (KeyError, TypeError):
            raise ValueError(f"paddle.inference.Predictor.get_{kind}_handle: the model has no "
                             f"{kind} named {name!r}; its {kind}s are {list(table)}") from None

    def run(self, inputs=None):
        """Run the model. With no argument: on the data copied into the input handles,
        results in the output handles (returns None). With a list of Tensors/arrays (one per
        input, in get_input_names() order): returns the outputs as a list of Tensors."""
        if inputs is None:
            missing = [n for n, h in self._inputs.items() if h._data is None]
            if missing:
                raise RuntimeError(f"paddle.inference.Predictor.run: no data for input(s) "
                                   f"{missing}; call get_input_handle(name).copy_from_cpu("
                                   f"array) first")
            self._execute({n: LoDTensor(h._data, h._lod) if h._lod else h._data
                           for n, h in self._inputs.items()})
            return None
        if not isinstance(inputs, (list, tuple)):
            raise TypeError(f"paddle.inference.Predictor.run: inputs must be a list of "
                            f"Tensors, got {type(inputs).__name__}")
        names = self._model.feed_names
        if len(inputs) != len(names):
            raise ValueError(f"paddle.inference.Predictor.run: the model has {len(names)} "
                             f"input(s) {names}, got {len(inputs)} tensor(s)")
        feed = {}
        for name, value in zip(names, inputs):
            arr = _as_array(value, f"paddle.inference.Predictor.run (input '{name}')")
            _check_input(name, self._model.specs[name], arr, "paddle.inference.Predictor.run")
            feed[name] = arr
        outs = self._execute(feed)
        return [wrap(o if o.flags.writeable else o.copy()) for o in outs]

    def _execute(self, feed: dict) -> list:
        m = self._model
        if m.session is not None:
            outs = m.session.run(m.fetch_names, feed)
        elif any(lod_level_of(m.program.global_block(), n) for n in m.fetch_names):
            outs = self._exe.run(m.program, feed=feed, fetch_list=m.fetch_names,
                                 scope=self._scope, return_numpy=False)
            for name, out in zip(m.fetch_names, outs):   # LoD outputs: handle.lod()
                self._outputs[name]._lod = out.lod() if isinstance(out, LoDTensor) else []
            outs = [o._array if isinstance(o, LoDTensor) else o._data for o in outs]
        else:
            outs = self._exe.run(m.program, feed=feed, fetch_list=m.fetch_names,
                                 scope=self._scope)
        for name, arr in zip(m.fetch_names, outs):
            self._outputs[name]._data = arr
        return outs

    def clone(self, stream=None) -> "Predictor":
        """A Predictor sharing this one's program and weights, with its own handles and
        run state: use one clone per thread."""
        return Predictor(self._config, _model=self._model)

    def clear_intermediate_tensor(self) -> None:
        pass

    def try_shrink_memory(self) -> int:
        return 0


def create_predictor(config: Config) -> Predictor:
    """Load the model `config` names, apply the inference passes once, and return a
    Predictor (`paddle.inference.create_predictor`).

    Args:
        config (Config): the model files and options.

    Returns:
        Predictor.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> from sampan.inference import Config, create_predictor
        >>> net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU())
        >>> paddle.jit.save(net, "/tmp/doc_infer/mlp",
        ...                 input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
        >>> predictor = create_predictor(Config("/tmp/doc_infer/mlp"))
        >>> out, = predictor.run([paddle.ones([2, 4])])
        >>> out.shape
        paddle.Size([2, 3])
    """
    return Predictor(config)


class PredictorPool:
    """`size` predictors of one Config sharing the weights (`paddle.inference.PredictorPool`).

    Args:
        config (Config): the model.
        size (int): how many predictors (default 1).
    """

    def __init__(self, config: Config, size: int = 1) -> None:
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ValueError(f"paddle.inference.PredictorPool: size must be an int >= 1, "
                             f"got {size!r}")
        first = create_predictor(config)
        self._predictors = [first] + [first.clone() for _ in range(size - 1)]

    def retrive(self, idx: int) -> Predictor:
        """The predictor number `idx` (Paddle's spelling)."""
        if not isinstance(idx, int) or not 0 <= idx < len(self._predictors):
            raise IndexError(f"paddle.inference.PredictorPool.retrive: idx must be in "
                             f"[0, {len(self._predictors)}), got {idx!r}")
        return self._predictors[idx]

    retrieve = retrive

"""paddle.inference.Config (where the model is and how to run it) and its PassBuilder (the
inference passes, by name, applied once when a Predictor loads the model).

Imports `static.passes` and `inference.loader` only.
"""
from __future__ import annotations

import os
import warnings

from ..static.passes import PASSES
from .enums import PrecisionType
from .loader import resolve_model_path

__all__ = ["Config", "PassBuilder", "INFERENCE_PASSES"]

# the passes a Predictor runs at load, in order (sampan pass names)
INFERENCE_PASSES = ("constant_folding", "fuse_conv_bn", "fuse_linear", "fuse_elementwise",
                    "inplace")
# Paddle Inference pass names -> the sampan pass doing that job (delete_pass accepts both)
PADDLE_PASS_NAMES = {
    "constant_folding_pass": "constant_folding",
    "conv_bn_fuse_pass": "fuse_conv_bn", "conv2d_bn_onednn_fuse_pass": "fuse_conv_bn",
    "conv2d_bias_bn_onednn_fuse_pass": "fuse_conv_bn", "conv_eltwiseadd_bn_fuse_pass":
    "fuse_conv_bn", "fc_fuse_pass": "fuse_linear", "matmul_add_act_fuse_pass": "fuse_linear",
    "fc_activation_fuse_pass": "fuse_linear", "fc_onednn_enable_pass": "fuse_linear",
    "elementwise_act_onednn_fuse_pass": "fuse_elementwise",
    "fuse_elewise_add_act_pass": "fuse_elementwise",
    "inplace_pass": "inplace", "memory_optimize_pass": "inplace",
}


def _pass_name(name) -> str:
    if not isinstance(name, str):
        raise TypeError(f"paddle.inference: a pass name must be a str, got {name!r}")
    return PADDLE_PASS_NAMES.get(name, name)


class PassBuilder:
    """The ordered inference passes of a Config (`config.pass_builder()`).

    Names are sampan pass names (`sampan.static.passes.PASSES`); Paddle's names of the
    same passes (e.g. "conv_bn_fuse_pass", "fc_fuse_pass", "inplace_pass") are accepted.
    """

    def __init__(self, passes=INFERENCE_PASSES) -> None:
        self._passes = list(passes)

    def all_passes(self) -> list:
        return list(self._passes)

    def analysis_passes(self) -> list:
        return []

    def delete_pass(self, pass_type: str) -> None:
        """Remove a pass (an unknown name is ignored, as in Paddle)."""
        name = _pass_name(pass_type)
        self._passes = [p for p in self._passes if p != name]

    def append_pass(self, pass_type: str) -> None:
        self._passes.append(self._known(pass_type))

    def insert_pass(self, idx: int, pass_type: str) -> None:
        self._passes.insert(idx, self._known(pass_type))

    def set_passes(self, passes) -> None:
        self._passes = [self._known(p) for p in passes]

    def turn_on_debug(self) -> None:
        pass

    def debug_string(self) -> str:
        return "\n".join(f"- {p}" for p in self._passes)

    @staticmethod
    def _known(pass_type: str) -> str:
        name = _pass_name(pass_type)
        if name not in PASSES:
            raise ValueError(f"paddle.inference.PassBuilder: no pass named {pass_type!r}; "
                             f"known: {sorted(PASSES)}")
        return name


class Config:
    """Where an inference model is and how a Predictor runs it
    (`paddle.inference.Config`).

    Args (one of):
        Config(): set the model later with set_model.
        Config(model_file, params_file): the program file (`.pdmodel`, or Paddle's `.json`
            when its reader is installed) and the parameters file (`.pdiparams`).
        Config(model_dir, prefix): the files `prefix.pdmodel|.json` + `prefix.pdiparams`
            in `model_dir` (Paddle 3.x).
        Config(prefix_or_dir): a path prefix ("dir/inference") or a directory holding one
            model (inference.*, model.pdmodel, __model__ or a single *.pdmodel/*.json).
        Config(other_config): a copy.

    This is a CPU build: GPU/XPU/TensorRT options are accepted with a warning and the
    model runs on the CPU.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> from sampan.inference import Config, create_predictor
        >>> net = paddle.nn.Linear(4, 2)
        >>> paddle.jit.save(net, "/tmp/doc_infer/linear",
        ...                 input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
        >>> config = Config("/tmp/doc_infer/linear.pdmodel", "/tmp/doc_infer/linear.pdiparams")
        >>> predictor = create_predictor(config)
        >>> predictor.get_input_names()
        ['x']
        >>> x = predictor.get_input_handle("x")
        >>> x.copy_from_cpu(np.ones([3, 4], "float32"))
        >>> predictor.run()
        >>> predictor.get_output_handle(predictor.get_output_names()[0]).shape()
        [3, 2]
    """

    def __init__(self, *args) -> None:
        self._model_file = self._params_file = self._model_dir = self._prefix = None
        self._ir_optim = True
        self._memory_optim = False
        self._threads = 1
        self._passes = PassBuilder()
        self._onnxruntime = False
        self._glog = True
        self._profile = False
        self._ir_debug = False
        if len(args) == 1 and isinstance(args[0], Config):
            self.__dict__.update({k: v for k, v in vars(args[0]).items()})
            self._passes = PassBuilder(args[0]._passes.all_passes())
        elif len(args) == 1:
            self._model_dir = self._check_path(args[0], "model_dir")
        elif len(args) == 2:
            self.set_model(*args)
        elif args:
            raise TypeError(f"paddle.inference.Config: expected (), (model_file, "
                            f"params_file), (model_dir, prefix) or (model_dir), got "
                            f"{len(args)} arguments")

    @staticmethod
    def _check_path(value, arg: str) -> str:
        if not isinstance(value, str) or not value:
            raise TypeError(f"paddle.inference.Config: {arg} must be a non-empty str, got "
                            f"{value!r}")
        return value

    # --- the model ------------------------------------------------------------------------
    def set_model(self, model_file: str, params_file: str | None = None) -> None:
        """Set the model: (model_file, params_file), (model_dir, prefix) or (model_dir)."""
        self._model_file = self._params_file = self._model_dir = self._prefix = None
        model_file = self._check_path(model_file, "model_file")
        if params_file is None:
            self._model_dir = model_file
            return
        params_file = self._check_path(params_file, "params_file")
        if os.path.isdir(model_file):
            self._model_dir, self._prefix = model_file, params_file
        else:
            self._model_file, self._params_file = model_file, params_file

    def set_prog_file(self, x: str) -> None:
        self._model_file = self._check_path(x, "prog_file")

    def set_params_file(self, x: str) -> None:
        self._params_file = self._check_path(x, "params_file")

    def model_dir(self) -> str:
        return self._model_dir or ""

    def prog_file(self) -> str:
        return self._resolved()[0] if self._model_dir else self._model_file or ""

    def params_file(self) -> str:
        return (self._resolved()[1] or "") if self._model_dir else self._params_file or ""

    def model_from_memory(self) -> bool:
        return False

    def _resolved(self) -> tuple:
        """(model_file, params_file or None) of the configured model."""
        if self._model_dir:
            return resolve_model_path(self._model_dir, self._prefix)
        if not self._model_file:
            raise ValueError("paddle.inference.create_predictor: the Config has no model; "
                             "use Config(model_file, params_file) or config.set_model(...)")
        return self._model_file, self._params_file

    # --- optimisation ---------------------------------------------------------------------
    def switch_ir_optim(self, x: bool = True) -> None:
        """Turn the inference passes (fusions, constant folding) on or off."""
        self._ir_optim = bool(x)

    def ir_optim(self) -> bool:
        return self._ir_optim

    def switch_ir_debug(self, x: bool = True) -> None:
        self._ir_debug = bool(x)

    def enable_memory_optim(self, x: bool = True) -> None:
        """Reuse intermediate buffers (the `inplace` pass), also when ir_optim is off."""
        self._memory_optim = bool(x)

    def pass_builder(self) -> PassBuilder:
        return self._passes

    def delete_pass(self, pass_name: str) -> None:
        """Skip one inference pass (sampan or Paddle name; unknown names are ignored)."""
        self._passes.delete_pass(pass_name)

    def _pass_list(self) -> list:
        names = self._passes.all_passes() if self._ir_optim else []
        if self._memory_optim and "inplace" not in names:
            names.append("inplace")
        return names

    # --- devices and engines --------------------------------------------------------------
    def set_cpu_math_library_num_threads(self, cpu_math_library_num_threads: int) -> None:
        """The onnxruntime route (enable_onnxruntime) uses this many threads; sampan's
        Executor runs NumPy, whose BLAS keeps its own thread count (set OMP_NUM_THREADS
        before starting Python to change it)."""
        n = cpu_math_library_num_threads
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValueError(f"paddle.inference.Config.set_cpu_math_library_num_threads: "
                             f"cpu_math_library_num_threads must be an int >= 1, got {n!r}")
        self._threads = n

    def cpu_math_library_num_threads(self) -> int:
        return self._threads

    def enable_use_gpu(self, memory_pool_init_size_mb: int = 100, device_id: int = 0,
                       precision_mode=PrecisionType.Float32) -> None:
        """Ignored with a warning: sampan runs inference on the CPU."""
        warnings.warn("paddle.inference.Config.enable_use_gpu: this sampan build has no GPU "
                      "support; the predictor runs on the CPU", stacklevel=2)

    def disable_gpu(self) -> None:
        pass

    def use_gpu(self) -> bool:
        return False

    def gpu_device_id(self) -> int:
        return -1

    def enable_xpu(self, *args, **kwargs) -> None:
        warnings.warn("paddle.inference.Config.enable_xpu: this sampan build has no XPU "
                      "support; the predictor runs on the CPU", stacklevel=2)

    def enable_tensorrt_engine(self, *args, **kwargs) -> None:
        warnings.warn("paddle.inference.Config.enable_tensorrt_engine: TensorRT is not "
                      "available in sampan; the predictor runs on the CPU", stacklevel=2)

    def tensorrt_engine_enabled(self) -> bool:
        return False

    def enable_mkldnn(self) -> None:
        pass

    def disable_mkldnn(self) -> None:
        pass

    enable_onednn, disable_onednn = enable_mkldnn, disable_mkldnn

    def mkldnn_enabled(self) -> bool:
        return False

    def enable_onnxruntime(self) -> None:
        """Run the model with onnxruntime: create_predictor exports the loaded program with
        `sampan.onnx` and runs it in an onnxruntime session. When the `onnx`/`onnxruntime`
        packages are missing or an operator has no ONNX lowering, create_predictor warns
        (saying why) and uses sampan's Executor."""
        self._onnxruntime = True

    def disable_onnxruntime(self) -> None:
        self._onnxruntime = False

    def onnxruntime_enabled(self) -> bool:
        return self._onnxruntime

    def enable_ort_optimization(self) -> None:
        pass

    # --- logging and misc -----------------------------------------------------------------
    def disable_glog_info(self) -> None:
        self._glog = False

    def glog_info_disabled(self) -> bool:
        return not self._glog

    def enable_profile(self) -> None:
        self._profile = True

    def switch_use_feed_fetch_ops(self, x: bool = True) -> None:
        pass

    def switch_specify_input_names(self, x: bool = True) -> None:
        pass

    def summary(self) -> str:
        """The configuration as a text table (as Paddle prints it)."""
        try:
            model, params = self._resolved()
        except (ValueError, FileNotFoundError):
            model, params = self._model_file or self._model_dir or "", self._params_file
        groups = [[("model_file", model), ("params_file", params or "")],
                  [("cpu_math_thread", self._threads), ("use_gpu", False),
                   ("use_onnxruntime", self._onnxruntime)],
                  [("ir_optim", self._ir_optim), ("ir_debug", self._ir_debug),
                   ("memory_optim", self._memory_optim),
                   ("passes", ",".join(self._pass_list()) or "none"),
                   ("enable_profile", self._profile), ("enable_log", self._glog)]]
        rows = [[(k, str(v).lower() if isinstance(v, bool) else str(v)) for k, v in g]
                for g in groups]
        w1 = max(len("Option"), *(len(k) for g in rows for k, _ in g))
        w2 = max(len("Value"), *(len(v) for g in rows for _, v in g))
        line = f"+{'-' * (w1 + 2)}+{'-' * (w2 + 2)}+"
        out = [line, f"| {'Option':<{w1}} | {'Value':<{w2}} |", line]
        for g in rows:
            out += [f"| {k:<{w1}} | {v:<{w2}} |" for k, v in g] + [line]
        return "\n".join(out) + "\n"

    def __repr__(self) -> str:
        return self.summary()

"""The model a server runs: a saved inference model through `sampan.inference`'s Predictor
(one clone per worker thread) or an exported `.onnx` file through onnxruntime, behind one
small interface (name, input/output specs, `run(feed) -> {name: array}`).

Imports `sampan.inference` only; onnxruntime is imported lazily.
"""
from __future__ import annotations

import os
import threading

import numpy as np

__all__ = ["ServedModel", "load_model", "model_name"]

_ORT_DTYPES = {
    "tensor(float)": "float32", "tensor(double)": "float64", "tensor(float16)": "float16",
    "tensor(int64)": "int64", "tensor(int32)": "int32", "tensor(int16)": "int16",
    "tensor(int8)": "int8", "tensor(uint8)": "uint8", "tensor(bool)": "bool",
}
_EXTS = (".onnx", ".pdmodel", ".json")


def model_name(path: str) -> str:
    """The served name: the basename of `path` without its model-file extension."""
    base = os.path.basename(os.path.normpath(path))
    for ext in _EXTS:
        if base.endswith(ext) and len(base) > len(ext):
            return base[:-len(ext)]
    return base


class ServedModel:
    """A loaded model: `inputs`/`outputs` are lists of {name, shape, dtype} (-1: dynamic);
    `run(feed)` is safe to call from several threads at once."""

    def __init__(self, name: str, inputs: list, outputs: list, runner) -> None:
        self.name = name
        self.inputs = inputs
        self.outputs = outputs
        self._runner = runner
        self.input_by_name = {s["name"]: s for s in inputs}
        # merging requests needs a dynamic leading dim on every input; checked by warm_up too
        self.batchable = all(s["shape"][:1] == [-1] for s in inputs)

    def run(self, feed: dict) -> dict:
        outs = self._runner(feed)
        return {s["name"]: np.asarray(o) for s, o in zip(self.outputs, outs)}

    def warm_up(self) -> None:
        """Run once on zeros (dynamic dims 1; 2 rows when batchable) and keep batching on
        only if every output has the batch as its leading dim."""
        rows = 2 if self.batchable else None
        feed = {}
        for s in self.inputs:
            shape = [1 if d < 0 else d for d in s["shape"]]
            if rows:
                shape[0] = rows
            feed[s["name"]] = np.zeros(shape, dtype=s["dtype"])
        outs = self.run(feed)
        if rows and any(o.ndim == 0 or o.shape[0] != rows for o in outs.values()):
            self.batchable = False


def _spec(name: str, shape, dtype: str) -> dict:
    dims = [int(d) if isinstance(d, (int, np.integer)) and d >= 0 else -1 for d in shape]
    return {"name": name, "shape": dims, "dtype": dtype}


def _load_predictor(path: str, threads: int) -> ServedModel:
    from ..inference import Config, create_predictor
    config = Config(path)   # a prefix, a directory or a model file
    config.set_cpu_math_library_num_threads(max(1, threads))
    first = create_predictor(config)
    # declared specs: Paddle's Predictor exposes no declared shapes before a run
    model = first._model
    block = model.program.global_block()
    inputs = [_spec(n, *_shape_dtype(model.specs[n])) for n in model.feed_names]
    outputs = [_spec(n, list(block.var(n).shape), block.var(n).dtype.name)
               for n in model.fetch_names]
    local = threading.local()
    lock = threading.Lock()
    spare = [first]

    def run(feed: dict) -> list:
        pred = getattr(local, "predictor", None)
        if pred is None:
            with lock:
                pred = spare.pop() if spare else first.clone()
            local.predictor = pred
        outs = pred.run([feed[n] for n in model.feed_names])
        return [o.numpy() for o in outs]

    return ServedModel(model_name(path), inputs, outputs, run)


def _shape_dtype(spec: tuple) -> tuple:
    shape, dtype = spec
    return list(shape), dtype.name


def _load_onnx(path: str, threads: int) -> ServedModel:
    try:
        import onnxruntime
    except ImportError as e:
        raise RuntimeError(f"sampan.serving: serving {path!r} needs onnxruntime "
                           f"(pip install onnxruntime): {e}") from None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = max(1, threads)
    session = onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def specs(items) -> list:
        out = []
        for a in items:
            if a.type not in _ORT_DTYPES:
                raise RuntimeError(f"sampan.serving: ONNX value {a.name!r} of {path!r} has "
                                   f"type {a.type}, which the server cannot carry")
            out.append(_spec(a.name, a.shape, _ORT_DTYPES[a.type]))
        return out

    inputs, outputs = specs(session.get_inputs()), specs(session.get_outputs())
    names = [s["name"] for s in outputs]
    return ServedModel(model_name(path), inputs, outputs, lambda feed: session.run(names, feed))


def load_model(path: str, threads: int = 1) -> ServedModel:
    """Load `path` (an `.onnx` file, or a saved inference model's path prefix, directory or
    model file) and run it once.

    Args:
        path (str): the model.
        threads (int): onnxruntime intra-op threads (default 1).

    Returns:
        ServedModel: ready to run.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> from sampan.serving import load_model
        >>> net = paddle.nn.Linear(4, 3)
        >>> paddle.jit.save(net, "/tmp/doc_serving/linear",
        ...                 input_spec=[paddle.static.InputSpec([None, 4], "float32", "x")])
        >>> model = load_model("/tmp/doc_serving/linear")
        >>> model.name, model.inputs
        ('linear', [{'name': 'x', 'shape': [-1, 4], 'dtype': 'float32'}])
        >>> out, = model.run({"x": np.ones([2, 4], "float32")}).values()
        >>> out.shape
        (2, 3)
    """
    if not isinstance(path, str) or not path:
        raise ValueError(f"sampan.serving: --model must be a path, got {path!r}")
    if path.endswith(".onnx"):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"sampan.serving: ONNX file {path!r} does not exist")
        model = _load_onnx(path, threads)
    else:
        model = _load_predictor(path, threads)
    model.warm_up()
    return model

"""LogWriter: training logs in TensorBoard's event format, written through tensorboardX.

The API follows `visualdl.LogWriter` (what Paddle users know); the files are TensorBoard event
files, so `tensorboard --logdir DIR` shows them. tensorboardX is an optional extra, imported
when a LogWriter is made. Sits in the `utils` room (beside hapi): `add_graph` reads static
Programs and traces Layers through `jit`, both lower rooms.
"""
from __future__ import annotations

import datetime
import json
import numbers
import os
from typing import Any

import numpy as np

__all__ = ["LogWriter"]

_INSTALL_HINT = "install it with `pip install tensorboardX`"


def _tensorboardx():
    try:
        import tensorboardX
    except ImportError:
        raise ImportError(f"sampan.utils.LogWriter writes TensorBoard event files through the "
                          f"tensorboardX package, which is not installed; "
                          f"{_INSTALL_HINT}") from None
    return tensorboardX


def _check_tag(tag, api: str, arg: str = "tag") -> str:
    if not isinstance(tag, str) or not tag:
        raise TypeError(f"LogWriter.{api}: {arg} must be a non-empty str, got {tag!r}")
    return tag


def _array(value, api: str, arg: str) -> np.ndarray:
    """A numeric numpy array from a Tensor, array, list or number."""
    if hasattr(value, "numpy") and callable(value.numpy):
        value = value.numpy()
    try:
        arr = np.asarray(value)
    except Exception as err:  # noqa: BLE001 - ragged lists and other objects
        raise TypeError(f"LogWriter.{api}: {arg} must be numeric (Tensor, numpy array, list or "
                        f"number), got {type(value).__name__}: {err}") from None
    if arr.dtype == bool:
        arr = arr.astype("uint8")
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise TypeError(f"LogWriter.{api}: {arg} must be numeric (int or float), got dtype "
                        f"{arr.dtype}")
    return arr


def _scalar(value, api: str, arg: str = "value") -> float:
    arr = _array(value, api, arg)
    if arr.size != 1:
        raise ValueError(f"LogWriter.{api}: {arg} must be one number, got an array of shape "
                         f"{list(arr.shape)}")
    return float(arr.reshape(()))


def _step(step, api: str):
    if step is None:
        return None
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise TypeError(f"LogWriter.{api}: step must be an int, got {step!r}")
    return int(step)


class LogWriter:
    """Writes scalars, images, histograms, text, hyper-parameters and graphs as TensorBoard
    event files (through tensorboardX), with the API of `visualdl.LogWriter`.

    View the logs with `tensorboard --logdir <logdir>`. Needs the optional `tensorboardX`
    package (`pip install tensorboardX`); without it, creating a LogWriter raises ImportError.
    `walltime` arguments are seconds since the epoch (TensorBoard's unit).

    Args:
        logdir (str, optional): the directory of the event files. Default
            `runs/<date-time>[.comment]`.
        comment (str, optional): suffix of the default logdir; ignored when logdir is given.
        max_queue (int, optional): records kept in memory before a write. Default 10.
        flush_secs (int, optional): seconds between writes to disk. Default 120.
        filename_suffix (str, optional): suffix of the event file names. Default ''.
        write_to_disk (bool, optional): False writes nothing (a dry run). Default True.

    Examples:
        >>> import tempfile
        >>> from sampan.utils import LogWriter
        >>> logdir = tempfile.mkdtemp()
        >>> with LogWriter(logdir) as writer:  # doctest: +SKIP
        ...     for step in range(3):
        ...         writer.add_scalar(tag="train/loss", value=1.0 / (step + 1), step=step)
    """

    def __init__(self, logdir: str | None = None, comment: str = "", max_queue: int = 10,
                 flush_secs: int = 120, filename_suffix: str = "",
                 write_to_disk: bool = True) -> None:
        tbx = _tensorboardx()
        if logdir is not None and not isinstance(logdir, (str, os.PathLike)):
            raise TypeError(f"LogWriter: logdir must be a str or None, got {logdir!r}")
        if not logdir:
            stamp = datetime.datetime.now().strftime("%b%d_%H-%M-%S")
            logdir = os.path.join("runs", stamp + (f".{comment}" if comment else ""))
        self._logdir = os.fspath(logdir)
        self._writer = tbx.SummaryWriter(logdir=self._logdir, max_queue=max_queue,
                                         flush_secs=flush_secs,
                                         filename_suffix=filename_suffix,
                                         write_to_disk=write_to_disk)

    @property
    def logdir(self) -> str:
        """The directory of the event files."""
        return self._logdir

    def add_scalar(self, tag: str, value: Any, step: int, walltime: float | None = None) -> None:
        """Add one point (step, value) to the scalar curve `tag`.

        Args:
            tag (str): the curve's name, e.g. "train/loss" ("/" groups curves).
            value (float|Tensor): a number or a one-element Tensor/array.
            step (int): the x coordinate (training step).
            walltime (float, optional): seconds since the epoch; default now.
        """
        _check_tag(tag, "add_scalar")
        self._writer.add_scalar(tag, _scalar(value, "add_scalar"), _step(step, "add_scalar"),
                                walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict, step: int,
                    walltime: float | None = None) -> None:
        """Add several curves to one chart `main_tag`: each key of `tag_scalar_dict` becomes a
        run `<logdir>/<main_tag>/<key>` holding the curve `main_tag`.

        Args:
            main_tag (str): the chart's name.
            tag_scalar_dict (dict): {name: value} for this step.
            step (int): the x coordinate.
            walltime (float, optional): seconds since the epoch; default now.
        """
        _check_tag(main_tag, "add_scalars", "main_tag")
        if not isinstance(tag_scalar_dict, dict) or not tag_scalar_dict:
            raise TypeError(f"LogWriter.add_scalars: tag_scalar_dict must be a non-empty dict "
                            f"of {{name: value}}, got {tag_scalar_dict!r}")
        values = {_check_tag(k, "add_scalars", "a tag_scalar_dict key"):
                  _scalar(v, "add_scalars", f"tag_scalar_dict[{k!r}]")
                  for k, v in tag_scalar_dict.items()}
        self._writer.add_scalars(main_tag, values, _step(step, "add_scalars"), walltime)

    def add_image(self, tag: str, img: Any, step: int, walltime: float | None = None,
                  dataformats: str = "HWC") -> None:
        """Add an image: uint8 values in [0, 255] or float values in [0, 1] (clipped).

        Args:
            tag (str): the image's name.
            img (numpy.ndarray|Tensor): the pixels, laid out as `dataformats` says.
            step (int): the step it belongs to.
            walltime (float, optional): seconds since the epoch; default now.
            dataformats (str, optional): "HWC", "CHW" or "HW"; C is 1, 3 or 4. Default "HWC".
        """
        _check_tag(tag, "add_image")
        arr = _array(img, "add_image", "img")
        if dataformats not in ("HWC", "CHW", "HW"):
            raise ValueError(f"LogWriter.add_image: dataformats must be 'HWC', 'CHW' or 'HW', "
                             f"got {dataformats!r}")
        if arr.ndim != len(dataformats):
            raise ValueError(f"LogWriter.add_image: img of shape {list(arr.shape)} does not "
                             f"match dataformats {dataformats!r}")
        if "C" in dataformats and arr.shape[dataformats.index("C")] not in (1, 3, 4):
            raise ValueError(f"LogWriter.add_image: img of shape {list(arr.shape)} has "
                             f"{arr.shape[dataformats.index('C')]} channels; 1, 3 or 4 expected "
                             f"(dataformats {dataformats!r})")
        if arr.dtype != np.uint8:
            arr = np.clip(arr.astype("float32"), 0.0, 1.0)
        self._writer.add_image(tag, arr, _step(step, "add_image"), walltime,
                               dataformats=dataformats)

    def add_histogram(self, tag: str, values: Any, step: int, walltime: float | None = None,
                      buckets: int = 10) -> None:
        """Add the distribution of `values` as a histogram of `buckets` equal-width buckets.

        Args:
            tag (str): the histogram's name.
            values (numpy.ndarray|Tensor|list): the numbers (any shape; must be finite).
            step (int): the step it belongs to.
            walltime (float, optional): seconds since the epoch; default now.
            buckets (int, optional): number of buckets. Default 10.
        """
        _check_tag(tag, "add_histogram")
        arr = _array(values, "add_histogram", "values").astype("float64").ravel()
        if arr.size == 0 or not np.isfinite(arr).all():
            raise ValueError(f"LogWriter.add_histogram: values must be non-empty and finite, "
                             f"got {arr.size} values")
        if isinstance(buckets, bool) or not isinstance(buckets, numbers.Integral) or buckets < 1:
            raise ValueError(f"LogWriter.add_histogram: buckets must be a positive int, got "
                             f"{buckets!r}")
        counts, edges = np.histogram(arr, bins=int(buckets))
        self._writer.add_histogram_raw(
            tag, min=float(arr.min()), max=float(arr.max()), num=int(arr.size),
            sum=float(arr.sum()), sum_squares=float(arr @ arr),
            bucket_limits=edges[1:].tolist(), bucket_counts=counts.tolist(),
            global_step=_step(step, "add_histogram"), walltime=walltime)

    def add_text(self, tag: str, text_string: str, step: int | None = None,
                 walltime: float | None = None) -> None:
        """Add a text (Markdown in TensorBoard's Text tab; stored under `<tag>/text_summary`).

        Args:
            tag (str): the text's name.
            text_string (str): the text.
            step (int, optional): the step it belongs to. Default 0.
            walltime (float, optional): seconds since the epoch; default now.
        """
        _check_tag(tag, "add_text")
        if not isinstance(text_string, str):
            raise TypeError(f"LogWriter.add_text: text_string must be a str, got "
                            f"{type(text_string).__name__}")
        self._writer.add_text(tag, text_string, _step(step, "add_text"), walltime)

    def add_hparams(self, hparams_dict: dict, metrics_list: list,
                    walltime: float | None = None) -> None:
        """Record this run's hyper-parameters for TensorBoard's HParams tab.

        The metrics are the scalar curves named in `metrics_list`, logged with add_scalar into
        this same logdir (as with visualdl.LogWriter).

        Args:
            hparams_dict (dict): {name: value}, each value a str, bool, int or float.
            metrics_list (list): the tags (str) of the metric curves.
            walltime (float, optional): seconds since the epoch; default now.
        """
        if type(hparams_dict) is not dict:
            raise TypeError(f"LogWriter.add_hparams: hparams_dict must be a dict, got "
                            f"{type(hparams_dict).__name__}")
        if type(metrics_list) is not list:
            raise TypeError(f"LogWriter.add_hparams: metrics_list must be a list, got "
                            f"{type(metrics_list).__name__}")
        for key, value in hparams_dict.items():
            if not isinstance(value, (str, bool, int, float)):
                raise TypeError(f"LogWriter.add_hparams: hparams_dict[{key!r}] must be a str, "
                                f"bool, int or float, got {type(value).__name__}")
        for tag in metrics_list:
            _check_tag(tag, "add_hparams", "a metrics_list item")
        from tensorboardX.summary import hparams
        writer = self._writer._get_file_writer()
        for summary in hparams(hparams_dict, {tag: 0.0 for tag in metrics_list}):
            writer.add_summary(summary, None, walltime)

    def add_graph(self, model: Any, input_spec: list | None = None,
                  verbose: bool = False) -> None:
        """Add the graph of a static Program (or of a Layer traced with `input_spec`) for
        TensorBoard's Graphs tab: one node per operator (grouped by name_scope), one per
        data/parameter variable; edges carry the variables' shapes.

        Args:
            model (Program|Layer): a `paddle.static.Program`, or a Layer to trace.
            input_spec (list, optional): InputSpecs/Tensors of the Layer's forward inputs;
                required for a Layer, unused for a Program.
            verbose (bool, optional): also print the Program's text. Default False.
        """
        from ..static.program import Program
        if isinstance(model, Program):
            program = model
        elif hasattr(model, "sublayers") and hasattr(model, "forward"):
            program = _trace_layer(model, input_spec)
        else:
            raise TypeError(f"LogWriter.add_graph: model must be a paddle.static.Program or a "
                            f"paddle.nn.Layer, got {type(model).__name__}")
        if verbose:
            print(program)
        self._writer._get_file_writer().add_onnx_graph(_graph_def(program))

    def flush(self) -> None:
        """Write the pending records to disk."""
        self._writer.flush()

    def close(self) -> None:
        """Flush and close the event files."""
        self._writer.close()

    def __enter__(self) -> "LogWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _trace_layer(layer, input_spec):
    """The main Program of layer.forward traced for input_spec (the layer is left as is)."""
    if not isinstance(input_spec, (list, tuple)) or not input_spec:
        raise ValueError(f"LogWriter.add_graph: a Layer needs input_spec, a non-empty list of "
                         f"InputSpec or Tensor describing forward's inputs, got {input_spec!r}")
    from ..jit.api import StaticFunction
    forward = layer.forward
    static = forward if isinstance(forward, StaticFunction) else StaticFunction(forward)
    return static.get_concrete_program(*input_spec)[0].main_program


def _shape_attr(block, names: list):
    """The `_output_shapes` attr TensorBoard draws on edges (-1 for unknown dims)."""
    from tensorboardX.proto.attr_value_pb2 import AttrValue
    from tensorboardX.proto.tensor_shape_pb2 import TensorShapeProto
    shapes = []
    for name in names:
        var = block._find_var(name)
        dims = [] if var is None else [-1 if d is None else int(d) for d in var.shape]
        shapes.append(TensorShapeProto(dim=[TensorShapeProto.Dim(size=d) for d in dims]))
    return AttrValue(list=AttrValue.ListValue(shape=shapes))


def _graph_def(program):
    """A TensorBoard GraphDef of the Program's global block.

    Operators become nodes `<name_scope>/<type>_<index>` whose inputs are the nodes that
    produced their input variables; variables no op of the block produces (feeds,
    parameters, constants) become nodes named after the variable.
    """
    from tensorboardX.proto.attr_value_pb2 import AttrValue
    from tensorboardX.proto.graph_pb2 import GraphDef
    from tensorboardX.proto.node_def_pb2 import NodeDef
    from tensorboardX.proto.versions_pb2 import VersionDef
    block = program.global_block()
    nodes, producer = [], {}

    def source(name: str) -> str:
        if name not in producer:
            var = block._find_var(name)
            kind = ("Parameter" if getattr(var, "is_parameter", False) else
                    "Data" if getattr(var, "is_data", False) else "Variable")
            nodes.append(NodeDef(name=name, op=kind, attr={
                "dtype": AttrValue(s=str(getattr(var, "dtype", "")).encode()),
                "_output_shapes": _shape_attr(block, [name])}))
            producer[name] = name
        return producer[name]

    for i, op in enumerate(block.ops):
        scope = op.namescope.strip("/")
        node_name = f"{scope}/{op.type}_{i}" if scope else f"{op.type}_{i}"
        inputs = [source(n) for n in op.input_arg_names]
        attrs = json.dumps(op.attrs, sort_keys=True, default=str)
        nodes.append(NodeDef(name=node_name, op=op.type, input=inputs, attr={
            "attrs": AttrValue(s=attrs.encode()),
            "_output_shapes": _shape_attr(block, op.output_arg_names)}))
        for k, n in enumerate(op.output_arg_names):
            producer[n] = node_name if k == 0 else f"{node_name}:{k}"
    return GraphDef(node=nodes, versions=VersionDef(producer=22))

"""paddle.static.nn.sequence_*: the LoD sequence layers of static Programs.

Each layer finds its input's LoD companions (`x@LOD`, see static/lod.py), calls the sequence
OpDef (ops/sequence*.py) with the offsets as a plain input, and gives its output the LoD it
carries: a new one the op computed (renamed to `out@LOD`) or a copy of the input's. Static
graph only, as in Paddle. Imports `framework`, `ops` and `static` (activations are OpDefs,
called through dispatch; parameters come from static create_parameter).
"""
from __future__ import annotations

from ..ops.dispatch import call
from ..ops.opdef import REGISTRY
from ..ops.sequence import POOL_TYPES
from ..utils import unique_name
from .input import _require_static, create_parameter
from .lod import LOD_SUFFIX, lod_level_of, lod_names

__all__ = ["sequence_concat", "sequence_conv", "sequence_enumerate", "sequence_expand",
           "sequence_expand_as", "sequence_first_step", "sequence_last_step", "sequence_pad",
           "sequence_pool", "sequence_reshape", "sequence_reverse", "sequence_scatter",
           "sequence_slice", "sequence_softmax", "sequence_unpad"]


def _api(name: str) -> str:
    api = f"paddle.static.nn.{name}"
    _require_static(api)
    return api


def _levels(api: str, var, arg: str = "input") -> list:
    """The LoD companion Variables of `var`, outermost first; error if it has none."""
    if not hasattr(var, "block"):
        raise TypeError(f"{api}: {arg} must be a static Variable, got {type(var).__name__}")
    levels = find_lod(var.block, var.name)
    if not levels:
        raise ValueError(f"{api}: {arg} {var.name!r} carries no LoD; declare it with "
                         f"paddle.static.data(..., lod_level=1) or make it with a sequence_* "
                         f"layer")
    return levels


def find_lod(block, name: str, depth: int = 64) -> list:
    """The LoD companions of `name`; a variable without its own takes the LoD of the first
    input of its defining op that has one (Paddle's ShareLoD from input to output: an
    embedding, squeeze or activation of a LoD tensor keeps its LoD). The kernels check the
    row count against the offsets at run time."""
    n = lod_level_of(block, name)
    if n:
        return [block.var(lname) for lname in lod_names(name, n)]
    op = next((op for op in reversed(block.ops) if name in op.output_arg_names), None)
    if op is None or op.type.startswith("sequence_") or depth == 0:
        return []
    for arg in op.input_arg_names:
        if block._find_var(arg) is not None:
            levels = find_lod(block, arg, depth - 1)
            if levels:
                return levels
    return []


def _attach(out, sources: list):
    """Give `out` the LoD levels `sources` (outermost first): an offsets output of the op
    just appended is renamed to `out@LOD...`; another variable's companion is copied."""
    for name, src in zip(lod_names(out.name, len(sources)), sources):
        if LOD_SUFFIX not in src.name:
            src.block.rename_var(src.name, name)
        else:
            copy = call("assign", src)
            copy.block.rename_var(copy.name, name)
    out.lod_level = len(sources)
    return out


def _activation(api: str, x, act):
    if act is None:
        return x
    if not isinstance(act, str) or act not in REGISTRY:
        raise ValueError(f"{api}: unknown activation act={act!r}")
    return call(act, x)


def sequence_pool(input, pool_type: str, is_test: bool = False, pad_value: float = 0.0):
    """Pool each sequence of a LoD tensor into one row.

    Args:
        input (Variable): LoD tensor [rows, ...] (lod_level 1 or 2; the last level is pooled).
        pool_type (str): 'sum', 'average', 'sqrt' (sum / sqrt(length)), 'max', 'last' or
            'first' (any case).
        is_test (bool): accepted for compatibility (no effect).
        pad_value (float): the output row of an empty sequence. Default 0.0.

    Returns:
        Variable [num_sequences, ...]; for a 2-level input it carries the outer level.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main):
        ...     x = paddle.static.data("x", [None, 1], "float32", lod_level=1)
        ...     y = paddle.static.nn.sequence_pool(x, "sum")
        >>> t = paddle.base.create_lod_tensor(np.arange(5, dtype="float32").reshape(5, 1),
        ...                                   [[2, 3]], paddle.CPUPlace())
        >>> paddle.static.Executor().run(main, feed={"x": t}, fetch_list=[y])[0].ravel()
        array([1., 9.], dtype=float32)
        >>> paddle.disable_static()
    """
    api = _api("sequence_pool")
    kind = pool_type.lower() if isinstance(pool_type, str) else pool_type
    if kind not in POOL_TYPES:
        raise ValueError(f"{api}: pool_type must be one of {list(POOL_TYPES)}, got "
                         f"{pool_type!r}")
    levels = _levels(api, input)
    out = call("sequence_pool", input, levels[-1], pool_type=kind,
               pad_value=float(pad_value))[0]
    return _attach(out, levels[:-1])


def sequence_first_step(input):
    """The first row of every sequence: sequence_pool(input, 'first')."""
    _api("sequence_first_step")
    return sequence_pool(input, "first")


def sequence_last_step(input):
    """The last row of every sequence: sequence_pool(input, 'last')."""
    _api("sequence_last_step")
    return sequence_pool(input, "last")


def sequence_softmax(input, use_cudnn: bool = False, name=None):
    """Softmax over the rows of each sequence of input ([rows, 1] or [rows]); same LoD.

    Examples:
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> with paddle.static.program_guard(paddle.static.Program()):
        ...     x = paddle.static.data("x", [None, 1], "float32", lod_level=1)
        ...     y = paddle.static.nn.sequence_softmax(x)
        >>> y.lod_level
        1
        >>> paddle.disable_static()
    """
    api = _api("sequence_softmax")
    levels = _levels(api, input)
    return _attach(call("sequence_softmax", input, levels[-1]), levels)


def sequence_conv(input, num_filters: int, filter_size: int = 3, filter_stride: int = 1,
                  padding: bool = True, padding_start=None, bias_attr=None, param_attr=None,
                  act=None, name=None):
    """Context convolution over each sequence: row t sees rows t + padding_start ...
    t + padding_start + filter_size - 1 of its own sequence (zeros outside), times a filter
    [filter_size * D, num_filters], plus a bias [num_filters], then `act`.

    Args:
        input (Variable): LoD tensor [rows, D].
        num_filters (int): output features.
        filter_size (int): context length. Default 3.
        filter_stride (int): only 1 is supported (as Paddle).
        padding (bool): no effect (Paddle deprecates it; the output has input's rows).
        padding_start (int, optional): default -(filter_size // 2).
        bias_attr, param_attr: ParamAttr-like; bias_attr=False: no bias.
        act (str, optional): activation, e.g. 'relu', 'tanh'.

    Returns:
        Variable [rows, num_filters] with input's LoD.
    """
    api = _api("sequence_conv")
    levels = _levels(api, input)
    if not isinstance(num_filters, int) or num_filters <= 0:
        raise ValueError(f"{api}: num_filters must be a positive int, got {num_filters!r}")
    if not isinstance(filter_size, int) or filter_size <= 0:
        raise ValueError(f"{api}: filter_size must be a positive int, got {filter_size!r}")
    if filter_stride != 1:
        raise ValueError(f"{api}: only filter_stride=1 is supported, got {filter_stride!r}")
    if len(input.shape) != 2 or input.shape[1] < 0:
        raise ValueError(f"{api}: input must be 2-D [rows, D] with D known, got shape "
                         f"{list(input.shape)}")
    start = -(filter_size // 2) if padding_start is None else int(padding_start)
    prefix = name or unique_name.generate("sequence_conv")
    w = create_parameter([filter_size * input.shape[1], num_filters], input.dtype,
                         name=getattr(param_attr, "name", None) or f"{prefix}.w_0",
                         attr=param_attr)
    out = call("sequence_conv", input, levels[-1], w, context_length=filter_size,
               context_start=start, context_stride=1)[0]
    if bias_attr is not False:
        b = create_parameter([num_filters], input.dtype, attr=bias_attr, is_bias=True,
                             name=getattr(bias_attr, "name", None) or f"{prefix}.b_0")
        out = out + b
    return _attach(_activation(api, out, act), levels)


def sequence_expand(x, y, ref_level: int = -1, name=None):
    """Expand x by the sequence lengths of y's LoD level `ref_level` (-1: the last): with
    a LoD, sequence i of x is repeated r_i times (each copy one sequence of the output's
    LoD); without, row i of x is repeated r_i times (no output LoD, as Paddle 3.3.1).

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main):
        ...     x = paddle.static.data("x", [None, 1], "float32")
        ...     y = paddle.static.data("y", [None, 1], "float32", lod_level=1)
        ...     out = paddle.static.nn.sequence_expand(x, y)
        >>> yt = paddle.base.create_lod_tensor(np.zeros([3, 1], "float32"), [[2, 0, 1]], None)
        >>> paddle.static.Executor().run(main, feed={"x": np.array([[1.], [2.], [3.]], "float32"),
        ...                                          "y": yt}, fetch_list=[out])[0].ravel()
        array([1., 1., 3.], dtype=float32)
        >>> paddle.disable_static()
    """
    api = _api("sequence_expand")
    y_levels = _levels(api, y, "y")
    if not isinstance(ref_level, int) or not -1 <= ref_level < len(y_levels):
        raise ValueError(f"{api}: ref_level must be -1 or in [0, {len(y_levels) - 1}] (y has "
                         f"{len(y_levels)} LoD level(s)), got {ref_level!r}")
    x_levels = find_lod(x.block, x.name)
    x_lod = x_levels[-1] if x_levels else None
    out, out_lod, _ = call("sequence_expand", x, x_lod, y_levels[ref_level])
    return _attach(out, [out_lod] if x_lod is not None else [])


def sequence_expand_as(x, y, name=None):
    """Row i of x repeated len(sequence i of y) times; the output has y's LoD."""
    api = _api("sequence_expand_as")
    levels = _levels(api, y, "y")
    return _attach(call("sequence_expand_as", x, levels[-1]), levels[-1:])


def sequence_concat(input, name=None):
    """Concatenate LoD tensors sequence by sequence: sequence i of the output is sequence i
    of input[0], then of input[1], ... (all must hold the same number of sequences)."""
    api = _api("sequence_concat")
    if not isinstance(input, (list, tuple)) or not input:
        raise TypeError(f"{api}: input must be a non-empty list of LoD Variables, got "
                        f"{type(input).__name__}")
    out, lod = input[0], _levels(api, input[0], "input[0]")[-1]
    for i, y in enumerate(input[1:], 1):
        out, lod, _, _ = call("sequence_concat", out, lod, y,
                              _levels(api, y, f"input[{i}]")[-1])
    return _attach(out, [lod]) if len(input) > 1 else out


def sequence_pad(x, pad_value, maxlen=None, name=None):
    """Pad the sequences of x to one length: returns (out [num_sequences, maxlen, ...],
    length [num_sequences] int64). pad_value: a Variable of one value or of x's row shape
    (a Python number is turned into one). maxlen: default the longest sequence.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main):
        ...     x = paddle.static.data("x", [None, 1], "float32", lod_level=1)
        ...     pad = paddle.static.data("pad", [1], "float32")
        ...     out, length = paddle.static.nn.sequence_pad(x, pad)
        >>> t = paddle.base.create_lod_tensor(np.array([[1.], [2.], [3.]], "float32"),
        ...                                   [[1, 2]], None)
        >>> o, n = paddle.static.Executor().run(main, feed={"x": t,
        ...     "pad": np.array([9.], "float32")}, fetch_list=[out, length])
        >>> o[:, :, 0], n
        (array([[1., 9.],
               [2., 3.]], dtype=float32), array([1, 2], dtype=int64))
        >>> paddle.disable_static()
    """
    api = _api("sequence_pad")
    levels = _levels(api, x, "x")
    if maxlen is not None and (not isinstance(maxlen, int) or maxlen < 0):
        raise ValueError(f"{api}: maxlen must be None or an int >= 0, got {maxlen!r}")
    if isinstance(pad_value, (int, float)):
        pad_value = call("full", shape=[1], fill_value=float(pad_value), dtype=x.dtype.name)
    out, length = call("sequence_pad", x, levels[-1], pad_value,
                       maxlen=-1 if maxlen is None else maxlen)
    return out, length


def sequence_unpad(x, length, name=None):
    """The first length[i] steps of each x[i] ([batch, maxlen, ...]) as a LoD tensor."""
    _api("sequence_unpad")
    out, lod, _ = call("sequence_unpad", x, length)
    return _attach(out, [lod])


def sequence_reverse(x, name=None):
    """Reverse the rows of each sequence; same LoD."""
    api = _api("sequence_reverse")
    levels = _levels(api, x, "x")
    return _attach(call("sequence_reverse", x, levels[-1]), levels)


def sequence_slice(input, offset, length, name=None):
    """Sequence i of the output = `length[i]` rows of sequence i starting at `offset[i]`
    (offset, length: int64 [num_sequences, 1] Variables)."""
    api = _api("sequence_slice")
    levels = _levels(api, input)
    out, lod, _ = call("sequence_slice", input, levels[-1], offset, length)
    return _attach(out, [lod])


def sequence_reshape(input, new_dim: int):
    """Re-cut each sequence of input [rows, D] into rows of new_dim values (each sequence's
    length * D must divide by new_dim); the output LoD follows."""
    api = _api("sequence_reshape")
    levels = _levels(api, input)
    out, lod = call("sequence_reshape", input, levels[-1], new_dim=new_dim)
    return _attach(out, [lod])


def sequence_scatter(input, index, updates, name=None):
    """out = input (2-D [B, D]) with updates[j] added at out[i, index[j]] for every row j of
    sequence i of the LoD tensor index (B sequences); updates has index's rows."""
    api = _api("sequence_scatter")
    levels = _levels(api, index, "index")
    return call("sequence_scatter", input, index, levels[-1], updates)[0]


def sequence_enumerate(input, win_size: int, pad_value: int = 0, name=None):
    """For every row of an int LoD tensor, the win_size ids starting there within its
    sequence (pad_value past the end): [rows, win_size], same LoD."""
    api = _api("sequence_enumerate")
    levels = _levels(api, input)
    out = call("sequence_enumerate", input, levels[-1], win_size=win_size,
               pad_value=pad_value)
    return _attach(out, levels)

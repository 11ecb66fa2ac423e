"""Paddle 3.3.1's PyTorch-style alias keywords and call forms, as data.

Paddle 3.3.1 accepts, on many public APIs, keywords that its signatures do not show
(`paddle.abs(input=x)`, `paddle.sum(x, dim=0)`, `paddle.add(x, other=y)`) and PyTorch-style
positional forms (`paddle.ones(2, 3)`, `x.reshape(2, 3)`, `x.transpose(0, 1)`). It adds them with
decorators (paddle/utils/decorator_utils.py) and, for C++-bound functions, in its argument
parser. The tables below were taken from Paddle 3.3.1's API: the decorator uses in its source
and its "Alias Support" docstrings, then verified by calling every public function, Tensor
method and nn.functional/linalg/fft function with each candidate alias (and each C++-parsed
function with ~60 PyTorch argument names, which found bmm(mat2=), dot(tensor=), roll(dims=),
argmax(keepdims=)). Tables map `name -> {alias: canonical}`; Tensor methods share
paddle.<name>'s entry. When both the name and its alias are given Paddle raises ValueError
("Cannot specify both", or the C++ parser's "too many arguments"), TypeError where its
decorator leaves the alias unhandled (TYPE_ERROR), or lets the alias win silently
(ALIAS_WINS). `FORMS` rewrite the positional forms before the aliases are renamed;
`OVERLOADS` send PyTorch's gather/scatter to their own functions. out_arg.py applies all of
it in one wrapper per function. Imports only `framework`.
"""
from __future__ import annotations

import warnings

from ..framework.tensor import Tensor, is_variable

_X = {"input": "x"}
_XY = {"input": "x", "other": "y"}
_XD = {"input": "x", "dim": "axis"}
_Y = {"other": "y"}
_D = {"dim": "axis"}
_XDS = {"input": "x", "dim": "axes"}

# paddle.<name> and paddle.Tensor.<name> (the same function objects in sampan)
TENSOR: dict = {
    **dict.fromkeys((
        "abs", "acos", "acosh", "adaptive_avg_pool1d", "asin", "atanh", "ceil", "clamp",
        "clip", "conv1d", "conv2d", "conv3d", "cos", "cosh", "cumprod", "empty_like",
        "exp", "expm1", "floor", "frac", "full_like", "index_put", "index_put_", "is_complex",
        "is_floating_point", "isfinite", "isinf", "isnan", "log", "log10", "log1p", "log2",
        "logical_not", "masked_select", "multinomial", "nonzero", "ones_like", "randn_like",
        "reshape", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt",
        "swapaxes", "swapdims", "tanh", "trace", "transpose", "tril", "triu", "zeros_like"), _X),
    **dict.fromkeys((
        "add", "bitwise_or", "bitwise_or_", "div", "div_", "divide", "divide_", "eq", "equal",
        "expand_as", "floor_divide", "floor_mod", "gcd", "gcd_", "ge", "greater",
        "greater_equal", "greater_than", "gt", "isclose", "lcm", "lcm_", "le", "less",
        "less_equal", "less_than", "logical_and", "logical_or", "logical_xor", "lt", "matmul",
        "maximum", "minimum", "mod", "mul", "multiply", "multiply_", "ne", "not_equal",
        "remainder", "sub", "sub_", "subtract", "subtract_", "where"), _XY),
    **dict.fromkeys((
        "all", "amax", "amin", "any", "argsort", "chunk", "cumsum", "diff",
        "index_select", "logsumexp", "mean", "median", "prod", "quantile", "repeat_interleave",
        "squeeze", "sum", "topk", "unique_consecutive", "unsqueeze", "var"), _XD),
    **dict.fromkeys((
        "add_", "mul_"), _Y),
    **dict.fromkeys((
        "cross", "unbind"), _D),
    "argmax": {"dim": "axis", "input": "x", "keepdims": "keepdim"},
    "argmin": {"dim": "axis", "input": "x", "keepdims": "keepdim"},
    "bmm": {"input": "x", "mat2": "y"},
    "broadcast_to": {"input": "x", "size": "shape"},
    "bucketize": {"boundaries": "sorted_sequence", "input": "x"},
    "cat": {"dim": "axis", "tensors": "x"},
    "concat": {"dim": "axis", "tensors": "x"},
    "concatenate": {"dim": "axis", "tensors": "x"},
    "diagonal": {"dim1": "axis1", "dim2": "axis2", "input": "x"},
    "dot": {"input": "x", "tensor": "y"},
    "empty": {"size": "shape"},
    "expand": {"input": "x", "size": "shape"},
    "exponential_": {"lambd": "lam"},
    "eye": {"m": "num_columns", "n": "num_rows"},
    "finfo": {"type": "dtype"},
    "flatten": {"end_dim": "stop_axis", "input": "x", "start_dim": "start_axis"},
    "full": {"size": "shape"},
    "ger": {"input": "x", "vec2": "y"},
    "group_norm": {"eps": "epsilon"},
    "index_add": {"dim": "axis", "input": "x", "source": "value"},
    "index_add_": {"dim": "axis", "input": "x", "source": "value"},
    "is_tensor": {"obj": "x"},
    "isin": {"elements": "x", "test_elements": "test_x"},
    "layer_norm": {"eps": "epsilon", "input": "x"},
    "linspace": {"end": "stop", "steps": "num"},
    "norm": {"A": "x", "dim": "axis", "input": "x", "ord": "p"},
    "normal": {"size": "shape"},
    "ones": {"size": "shape"},
    "outer": {"input": "x", "vec2": "y"},
    "pow": {"exponent": "y", "input": "x"},
    "rand": {"size": "shape"},
    "randn": {"size": "shape"},
    "roll": {"dims": "axis", "input": "x"},
    "searchsorted": {"input": "values"},
    "solve": {"B": "y"},
    "stack": {"dim": "axis", "tensors": "x"},
    "take_along_axis": {"dim": "axis", "input": "arr"},
    "take_along_dim": {"dim": "axis", "input": "arr"},
    "tensor_split": {"dim": "axis", "input": "x", "indices": "num_or_indices",
                     "indices_or_sections": "num_or_indices", "sections": "num_or_indices"},
    "tile": {"dims": "repeat_times", "input": "x"},
    "unflatten": {"dim": "axis", "input": "x", "sizes": "shape"},
    "unfold": {"dimension": "axis"},
    "uniform_": {"from": "min", "to": "max"},
    "view": {"dtype": "shape_or_dtype", "size": "shape_or_dtype"},
    "zeros": {"size": "shape"},
}

# paddle.nn.functional.<name>
FUNCTIONAL: dict = {
    **dict.fromkeys((
        "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "conv1d", "conv2d",
        "conv3d", "dropout", "embedding", "gelu", "grid_sample", "interpolate", "log_sigmoid",
        "logsigmoid", "lp_pool1d", "lp_pool2d", "one_hot", "pad", "sigmoid", "silu", "softplus",
        "tanh"), _X),
    **dict.fromkeys((
        "glu", "softmax"), _XD),
    **dict.fromkeys((
        "cosine_similarity",), _D),
    "adaptive_max_pool1d": {"input": "x", "return_indices": "return_mask"},
    "adaptive_max_pool2d": {"input": "x", "return_indices": "return_mask"},
    "adaptive_max_pool3d": {"input": "x", "return_indices": "return_mask"},
    "cross_entropy": {"target": "label"},
    "fold": {"input": "x", "output_size": "output_sizes", "kernel_size": "kernel_sizes",
             "stride": "strides", "padding": "paddings", "dilation": "dilations"},
    "group_norm": {"eps": "epsilon"},
    "hardshrink": {"input": "x", "lambd": "threshold"},
    "layer_norm": {"eps": "epsilon", "input": "x"},
    "normalize": {"dim": "axis", "eps": "epsilon", "input": "x"},
    "pairwise_distance": {"eps": "epsilon", "x1": "x", "x2": "y"},
    "softshrink": {"input": "x", "lambd": "threshold"},
}

# paddle.linalg.<name>
LINALG: dict = {
    **dict.fromkeys((
        "cross",), _D),
    "norm": {"A": "x", "dim": "axis", "input": "x", "ord": "p"},
    "solve": {"A": "x", "B": "y"},
    "vector_norm": {"dim": "axis", "ord": "p"},
}

# paddle.fft.<name>
FFT: dict = {
    **dict.fromkeys((
        "fft", "hfft", "ifft", "ihfft", "irfft", "rfft"), _XD),
    **dict.fromkeys((
        "fft2", "fftn", "fftshift", "hfft2", "hfftn", "ifft2", "ifftn", "ifftshift", "ihfft2",
        "ihfftn", "irfft2", "irfftn", "rfft2", "rfftn"), _XDS),
}

# both given -> TypeError
TYPE_ERROR = frozenset((
    "paddle.sparse.reshape",
    "paddle.adaptive_avg_pool1d", "paddle.add", "paddle.add_", "paddle.bitwise_or",
    "paddle.bucketize", "paddle.clamp", "paddle.clip", "paddle.cumprod", "paddle.cumsum",
    "paddle.div", "paddle.div_", "paddle.divide", "paddle.divide_", "paddle.eq", "paddle.equal",
    "paddle.expand", "paddle.exponential_", "paddle.eye", "paddle.fft.fft", "paddle.fft.fft2",
    "paddle.fft.fftn", "paddle.fft.fftshift", "paddle.fft.hfft", "paddle.fft.hfft2",
    "paddle.fft.hfftn", "paddle.fft.ifft", "paddle.fft.ifft2", "paddle.fft.ifftn",
    "paddle.fft.ifftshift", "paddle.fft.ihfft", "paddle.fft.ihfft2", "paddle.fft.ihfftn",
    "paddle.fft.irfft", "paddle.fft.irfft2", "paddle.fft.irfftn", "paddle.fft.rfft",
    "paddle.fft.rfft2", "paddle.fft.rfftn", "paddle.floor_divide", "paddle.floor_mod",
    "paddle.frac", "paddle.full_like", "paddle.gcd", "paddle.gcd_", "paddle.ge",
    "paddle.greater", "paddle.greater_equal", "paddle.group_norm", "paddle.gt",
    "paddle.index_select", "paddle.is_floating_point", "paddle.is_tensor", "paddle.isin",
    "paddle.layer_norm", "paddle.lcm", "paddle.lcm_", "paddle.le", "paddle.less",
    "paddle.less_equal", "paddle.less_than", "paddle.linalg.solve", "paddle.linspace",
    "paddle.lt", "paddle.masked_select", "paddle.mean", "paddle.median", "paddle.mod",
    "paddle.mul", "paddle.mul_", "paddle.multinomial", "paddle.multiply_", "paddle.ne",
    "paddle.nn.functional.adaptive_avg_pool1d", "paddle.nn.functional.adaptive_avg_pool2d",
    "paddle.nn.functional.adaptive_avg_pool3d", "paddle.nn.functional.adaptive_max_pool1d",
    "paddle.nn.functional.adaptive_max_pool2d", "paddle.nn.functional.adaptive_max_pool3d",
    "paddle.nn.functional.cosine_similarity", "paddle.nn.functional.dropout",
    "paddle.nn.functional.embedding", "paddle.nn.functional.glu",
    "paddle.nn.functional.group_norm", "paddle.nn.functional.hardshrink",
    "paddle.nn.functional.interpolate", "paddle.nn.functional.layer_norm",
    "paddle.nn.functional.log_sigmoid", "paddle.nn.functional.logsigmoid",
    "paddle.nn.functional.one_hot", "paddle.nn.functional.silu",
    "paddle.nn.functional.softshrink", "paddle.nonzero", "paddle.normal", "paddle.not_equal",
    "paddle.prod", "paddle.quantile", "paddle.randn_like", "paddle.remainder",
    "paddle.repeat_interleave", "paddle.reshape", "paddle.searchsorted", "paddle.solve",
    "paddle.squeeze", "paddle.sub", "paddle.sub_", "paddle.subtract", "paddle.subtract_",
    "paddle.swapaxes", "paddle.swapdims", "paddle.tensor_split", "paddle.topk", "paddle.trace",
    "paddle.transpose", "paddle.unbind", "paddle.unfold", "paddle.uniform_",
    "paddle.unique_consecutive", "paddle.unsqueeze", "paddle.view"))

# both given -> the alias wins
ALIAS_WINS = frozenset((
    "paddle.empty", "paddle.index_add", "paddle.index_add_", "paddle.nn.functional.lp_pool1d",
    "paddle.nn.functional.lp_pool2d", "paddle.nn.functional.softmax", "paddle.ones",
    "paddle.rand", "paddle.randn",
    "paddle.zeros"))

# C++-parsed in Paddle: the name given by position and its alias as a keyword -> ValueError too
CPP_PARSED = frozenset((
    "paddle.abs", "paddle.acos", "paddle.acosh", "paddle.all", "paddle.amax", "paddle.amin",
    "paddle.any", "paddle.argmax", "paddle.argmin", "paddle.asin", "paddle.atanh", "paddle.bmm",
    "paddle.ceil", "paddle.cos", "paddle.cosh", "paddle.diagonal", "paddle.dot", "paddle.exp",
    "paddle.expand_as", "paddle.expm1", "paddle.floor", "paddle.greater_than",
    "paddle.index_put", "paddle.index_put_", "paddle.isclose", "paddle.isfinite",
    "paddle.isinf", "paddle.isnan", "paddle.log", "paddle.log10", "paddle.log1p", "paddle.log2",
    "paddle.logical_and", "paddle.logical_not", "paddle.logical_or", "paddle.logical_xor",
    "paddle.logsumexp", "paddle.matmul", "paddle.maximum", "paddle.minimum", "paddle.multiply",
    "paddle.nn.functional.gelu", "paddle.nn.functional.grid_sample",
    "paddle.nn.functional.sigmoid", "paddle.nn.functional.softplus",
    "paddle.nn.functional.tanh", "paddle.roll", "paddle.round", "paddle.rsqrt",
    "paddle.sigmoid", "paddle.sign", "paddle.sin", "paddle.sinh", "paddle.sqrt", "paddle.sum",
    "paddle.tanh", "paddle.tril", "paddle.triu"))


def _is_int(value) -> bool:
    """An int, or a 0-d Tensor/Variable (Paddle's _is_int_or_scalar_tensor)."""
    if isinstance(value, int):
        return True
    return (isinstance(value, Tensor) or is_variable(value)) and len(value.shape) == 0


def _size_args(args: tuple, kwargs: dict):
    """`paddle.ones(2, 3)`: leading int positionals are the shape (size_args_decorator)."""
    if args and isinstance(args[0], int) and "size" not in kwargs:
        kwargs["shape"] = list(args)
        args = ()
    return args, kwargs


def _shape_args(param: str):
    """`x.reshape(2, 3)` / `x.view(-1, 3)` / `x.expand(2, 3)`: ints after x are the shape."""
    def forms(args: tuple, kwargs: dict):
        if len(args) >= 2 and _is_int(args[1]) and all(_is_int(a) for a in args[2:]):
            kwargs[param] = list(args[1:])
            args = args[:1]
        return args, kwargs
    return forms


def _transpose_args(args: tuple, kwargs: dict):
    """`x.transpose(0, 1)` / `transpose(x, dim0=0, dim1=1)`: swap two axes (PyTorch's form)."""
    dim0 = dim1 = None
    if kwargs:
        dim0 = kwargs.pop("dim0", kwargs.pop("axis0", None))
        dim1 = kwargs.pop("dim1", kwargs.pop("axis1", None))
    if dim0 is None and len(args) > 1 and isinstance(args[1], int):
        dim0 = args[1]
    if dim1 is None and len(args) > 2 and isinstance(args[2], int):
        dim1 = args[2]
    if dim0 is not None and dim1 is not None:
        x = args[0] if args else kwargs.get("x", kwargs.get("input"))
        perm = list(range(len(x.shape)))
        perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
        kwargs["perm"] = perm
        args = args[:1]
    return args, kwargs


def _index_select_args(args: tuple, kwargs: dict):
    """`index_select(x, dim, index)` with an int second argument (PyTorch's order)."""
    if len(args) >= 2 and isinstance(args[1], int):
        if len(args) < 3 and "index" not in kwargs:
            raise TypeError("index_select() missing 1 required argument: 'index'")
        kwargs.setdefault("x", args[0])
        kwargs.setdefault("axis", args[1])
        if len(args) > 2 and "index" not in kwargs:
            kwargs["index"] = args[2]
            return args[3:], kwargs
        return args[2:], kwargs
    return args, kwargs


def _sum_args(args: tuple, kwargs: dict):
    """`sum(x, axis, keepdim[, dtype])` or `sum(x, axis, dtype[, keepdim])` by position."""
    if len(args) not in (3, 4):
        return args, kwargs
    kwargs["x"], kwargs["axis"] = args[0], args[1]
    first, second = ("keepdim", "dtype") if isinstance(args[2], bool) else ("dtype", "keepdim")
    kwargs[first] = args[2]
    if len(args) == 4:
        kwargs[second] = args[3]
    return (), kwargs


def _index_add_args(args: tuple, kwargs: dict):
    """`index_add(x, dim, index, source)` with an int second argument (PyTorch's order)."""
    if len(args) >= 2 and isinstance(args[1], int):
        if len(args) > 4:
            raise TypeError(f"index_add(x, dim, index, source): takes at most 4 positional "
                            f"arguments in this form, got {len(args)}")
        for key, value in zip(("x", "axis", "index", "value"), args):
            kwargs[key] = value
        args = ()
    return args, kwargs


def _median_default(args: tuple, kwargs: dict):
    """PyTorch-style median (`input=` or `dim=`) takes mode='min' unless given, as Paddle."""
    if ("input" in kwargs and "x" not in kwargs) or ("dim" in kwargs and "axis" not in kwargs):
        warnings.warn("Set default parameters ['mode', 'min']", stacklevel=3)
        kwargs.setdefault("mode", "min")
    return args, kwargs


def forbid(api: str, keys: frozenset, instead: str, drop_int_at: int | None = None):
    """A form refusing PyTorch keywords that Paddle 3.3.1 refuses with a hint to the right
    function (its ForbidKeywordsDecorator); `drop_int_at`: an int positional there is
    ignored (paddle.softmax's `_stacklevel`)."""
    def forms(args: tuple, kwargs: dict):
        found = sorted(k for k in kwargs if k in keys)
        if found:
            names = ", ".join(f"'{k}'" for k in found)
            plural = "s" if len(found) > 1 else ""
            raise TypeError(f"{api}() received unexpected keyword argument{plural} {names}. "
                            f"\nDid you mean to use {instead}() instead?")
        if drop_int_at is not None and len(args) > drop_int_at \
                and isinstance(args[drop_int_at], int):
            args = args[:drop_int_at] + args[drop_int_at + 1:]
        return args, kwargs
    return _form(forms, 99 if drop_int_at is None else drop_int_at, on_kwargs=True)


def _form(fn, first: int, on_kwargs: bool = False):
    """Mark a form: the wrapper calls it only when positional argument `first` exists and is
    not a list/tuple (the ordinary call), or, with `on_kwargs`, when keywords are given."""
    fn.first, fn.on_kwargs = first, on_kwargs
    return fn


# paddle.<name> / Tensor.<name> positional forms (rewritten before the aliases are renamed)
FORMS: dict = {
    **dict.fromkeys(("ones", "zeros", "empty", "rand", "randn"), _form(_size_args, 0)),
    "reshape": _form(_shape_args("shape"), 1), "expand": _form(_shape_args("shape"), 1),
    "view": _form(_shape_args("shape_or_dtype"), 1),
    "transpose": _form(_transpose_args, 1, on_kwargs=True),
    "index_select": _form(_index_select_args, 1), "sum": _form(_sum_args, 2),
    "index_add": _form(_index_add_args, 1), "index_add_": _form(_index_add_args, 1),
    "median": _form(_median_default, 9, on_kwargs=True),
    "max": forbid("paddle.max", frozenset({"input", "dim", "other"}), "paddle.compat.max"),
    "min": forbid("paddle.min", frozenset({"input", "dim", "other"}), "paddle.compat.min"),
    "sort": forbid("paddle.sort", frozenset({"input", "dim"}), "paddle.compat.sort"),
    "split": forbid("paddle.split", frozenset({"tensor", "split_size_or_sections", "dim"}),
                    "paddle.compat.split"),
    "softmax": forbid("paddle.compat.nn.functional.softmax", frozenset({"x", "axis", "name"}),
                      "paddle.nn.functional.softmax", drop_int_at=2),
}

def _lp_pool_ceil_mode(args: tuple, kwargs: dict):
    """lp_pool1d(x, norm_type, kernel_size, stride, True) / LPPool1D(2, 3, 2, True): a bool
    in the 5th position (self included) is ceil_mode, PyTorch's order, with Paddle's warning."""
    if len(args) == 5 and isinstance(args[4], bool):
        warnings.warn("The 5th positional argument is a boolean value, which is being "
                      "interpreted as 'ceil_mode'.", stacklevel=3)
        kwargs["ceil_mode"] = args[4]
        args = args[:4]
    return args, kwargs


LP_POOL_FORM = _form(_lp_pool_ceil_mode, 4)
FUNCTIONAL_FORMS: dict = {"lp_pool1d": LP_POOL_FORM, "lp_pool2d": LP_POOL_FORM}

# paddle.sparse.<name>
SPARSE: dict = {"reshape": _X}

def _torch_dim_form(args: tuple, kwargs: dict) -> bool:
    """PyTorch's gather/scatter(input, dim, index, ...): an int second argument, or dim=
    (an index is never an int)."""
    return isinstance(args[1], int) if len(args) >= 2 else "dim" in kwargs


def _torch_gather(namespace: dict):
    take = namespace["take_along_axis"]

    def gather(input, dim, index, out=None):
        """PyTorch's gather: take_along_axis without broadcasting."""
        return _keep("paddle.gather", take(input, index, dim, broadcast=False), out)
    return gather


def _torch_scatter(namespace: dict, name: str):
    put = namespace["put_along_axis" if name == "scatter" else "put_along_axis_"]

    def scatter(input, dim, index, src=None, reduce=None, out=None, value=None):
        """PyTorch's scatter: put_along_axis without broadcasting (`value` = `src`)."""
        if src is None:
            src = value
            if src is None:
                raise TypeError(
                    f"'paddle.{name}' expect one of the following input pattern: \n"
                    " - (Tensor input, int dim, Tensor index, Tensor src (alias value), *, "
                    "str reduce, Tensor out = None)\n - (Tensor x, Tensor index, Tensor "
                    "updates, bool overwrite, str name = None)\nHowever, the input pattern "
                    "does not match, please check.")
        elif value is not None:
            raise TypeError("`value` is useless when `src` is specified. Be careful for "
                            "conflicting parameters.")
        result = put(input, index, src, dim, reduce or "assign", broadcast=False)
        return _keep(f"paddle.{name}", result, out)
    return scatter


def _keep(api: str, result, out):
    if out is None:
        return result
    from .out_arg import write_out  # (out_arg imports this module)
    return write_out(api, result, out)


# paddle.<name> whose PyTorch overload is another function: name -> (test, make(namespace))
OVERLOADS: dict = {
    "gather": (_torch_dim_form, _torch_gather),
    "scatter": (_torch_dim_form, lambda ns: _torch_scatter(ns, "scatter")),
    "scatter_": (_torch_dim_form, lambda ns: _torch_scatter(ns, "scatter_")),
}

TABLES = {"paddle.": TENSOR, "paddle.nn.functional.": FUNCTIONAL, "paddle.linalg.": LINALG,
          "paddle.fft.": FFT, "paddle.sparse.": SPARSE}
FORMS_BY_PREFIX = {"paddle.": FORMS, "paddle.nn.functional.": FUNCTIONAL_FORMS}


def both_given(api: str) -> str:
    """How `api` treats a name and its alias given together: 'value', 'type' or 'wins'."""
    if api in ALIAS_WINS:
        return "wins"
    return "type" if api in TYPE_ERROR else "value"

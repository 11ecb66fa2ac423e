"""paddle.amp.debugging: check_numerics and the per-dtype operator-stats collection (a dispatch
wrapper that counts every op call by the dtype it produced)."""
from __future__ import annotations

import contextlib
import enum
import sys

import numpy as np

from ..framework import flags as _flags
from ..framework.tensor import Tensor, is_variable, wrap


class DebugMode(enum.Enum):
    """What check_numerics does with what it finds (Paddle's values)."""
    CHECK_NAN_INF_AND_ABORT = 0
    CHECK_NAN_INF = 1
    CHECK_ALL_FOR_OVERFLOW = 2
    CHECK_ALL = 3


_DTYPE_NAMES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64"}


def check_numerics(tensor: Tensor, op_type: str, var_name: str,
                   debug_mode: DebugMode = DebugMode.CHECK_NAN_INF_AND_ABORT):
    """Count the NaNs, Infs and zeros of `tensor`; raise on NaN/Inf in the abort mode.

    Returns:
        (Tensor, Tensor): stats, int64 [num_nan, num_inf, num_zero]; values, float32
        [max, min, mean] (max/min skip NaN).

    Examples:
        >>> import sampan as paddle
        >>> x = paddle.to_tensor([1.0, 0.0, 3.0, -2.0])
        >>> stats, values = paddle.amp.debugging.check_numerics(
        ...     x, "pow", "x", paddle.amp.debugging.DebugMode.CHECK_NAN_INF)
        >>> stats.numpy().tolist(), values.numpy().tolist()
        ([0, 0, 1], [3.0, -2.0, 0.5])
    """
    if is_variable(tensor) or not isinstance(tensor, Tensor):
        raise TypeError(f"paddle.amp.debugging.check_numerics: tensor must be an eager Tensor, "
                        f"got {type(tensor).__name__}")
    if not isinstance(debug_mode, DebugMode):
        raise TypeError(f"paddle.amp.debugging.check_numerics: debug_mode must be a DebugMode, "
                        f"got {debug_mode!r}")
    data = np.asarray(tensor._data, dtype=np.float64)
    nan, inf = int(np.isnan(data).sum()), int(np.isinf(data).sum())
    zero = int((data == 0).sum())
    finite_or_inf = data[~np.isnan(data)]
    values = [finite_or_inf.max() if finite_or_inf.size else np.nan,
              finite_or_inf.min() if finite_or_inf.size else np.nan,
              data.mean() if data.size else np.nan]
    where = (f"[device=cpu, op={op_type}, tensor={var_name}, "
             f"dtype={_DTYPE_NAMES.get(tensor.dtype.name, tensor.dtype.name)}]")
    if nan or inf:
        detail = f"num_nan={nan}, num_inf={inf}, num_zero={zero}"
        if debug_mode is DebugMode.CHECK_NAN_INF_AND_ABORT:
            raise RuntimeError(f"There are NAN or INF ({detail}) in {where}.")
        print(f"[PRECISION] [ERROR] in {where}, numel={data.size}, {detail}, "
              f"max={values[0]:e}, min={values[1]:e}, mean={values[2]:e}", file=sys.stderr)
    return (wrap(np.array([nan, inf, zero], dtype=np.int64)),
            wrap(np.array(values, dtype=np.float32)))


# --- operator stats -------------------------------------------------------------------------
_COLUMNS = {"float16": 0, "bfloat16": 1, "float32": 2}
_STATS: dict = {}
_ACTIVE: list = []


def _first_float(out):
    for value in out if isinstance(out, (list, tuple)) else (out,):
        dtype = getattr(value, "dtype", None)
        if dtype is not None and getattr(dtype, "kind", "") == "f":
            return dtype.name
    return None


def _stats_wrapper(op, inputs, attrs, nxt):
    out = nxt(op, inputs, attrs)
    counts = _STATS.setdefault(op.name, [0, 0, 0, 0])
    counts[_COLUMNS.get(_first_float(out), 3)] += 1
    return out


def _print_operator_stats(stats: dict) -> None:
    print("<{:-^120}>".format(" op list "))
    print("<{:-^40}".format(" Op Name "), "|", "{:-^17}".format(" FP16 Calls "), "|",
          "{:-^17}".format(" BF16 Calls "), "|", "{:-^17}".format(" FP32 Calls"), "|",
          "{:-^17}>".format(" Other Calls "))
    for name in sorted(stats):
        c = stats[name]
        print(f"  {name:<40}|  {c[0]:<17}|  {c[1]:<17}|  {c[2]:<17}|  {c[3]:<17}")
    print("<{:-^120}>\n".format(f" op count: {len(stats)} "))


def enable_operator_stats_collection() -> None:
    """Start counting op calls per dtype (float16, bfloat16, float32, other) in this thread."""
    if _ACTIVE:
        return
    _STATS.clear()
    guard = _flags.dispatch_wrapper(_stats_wrapper)
    guard.__enter__()
    _ACTIVE.append(guard)


def disable_operator_stats_collection() -> None:
    """Stop counting and print the table (op name, FP16/BF16/FP32/other calls).

    Examples:
        >>> import sampan as paddle
        >>> paddle.amp.debugging.enable_operator_stats_collection()
        >>> with paddle.amp.auto_cast(dtype='bfloat16'):
        ...     y = paddle.matmul(paddle.ones([2, 2]), paddle.ones([2, 2]))
        >>> paddle.amp.debugging.operator_stats()['matmul']
        [0, 1, 0, 0]
        >>> paddle.amp.debugging.disable_operator_stats_collection()  # doctest: +ELLIPSIS
        <...
    """
    if not _ACTIVE:
        return
    _ACTIVE.pop().__exit__(None, None, None)
    _print_operator_stats(_STATS)


def operator_stats() -> dict:
    """{op name: [fp16, bf16, fp32, other] calls} counted so far (sampan extra)."""
    return {k: list(v) for k, v in _STATS.items()}


@contextlib.contextmanager
def collect_operator_stats():
    """Count op calls per dtype inside the context and print the table at its end."""
    enable_operator_stats_collection()
    try:
        yield
    finally:
        disable_operator_stats_collection()

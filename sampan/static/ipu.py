"""Graphcore IPU entry points of paddle.static (IpuStrategy, IpuCompiledProgram, ipu_shard_guard,
set_ipu_shard).

sampan has no IPU backend, so it behaves like a PaddlePaddle build without IPU support: the
strategy and the compiled program refuse to be created, the shard guard refuses to be entered,
and `set_ipu_shard` wraps its callable so that calling it enters that guard (and so fails the
same way), exactly as Paddle does on a CPU build.
"""
from __future__ import annotations

import contextlib
import functools
from typing import Callable, Iterator

_NO_IPU = "Can not use this function since PaddlePaddle is not compiled with IPU"


def is_compiled_with_ipu() -> bool:
    """sampan never runs on IPUs."""
    return False


class IpuStrategy:
    """Settings of an IPU program (micro-batching, pipelining, precision) in Paddle.

    Without IPU support it cannot be created: RuntimeError, as in Paddle's CPU build.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> try:
            ...     paddle.static.IpuStrategy()
            ... except RuntimeError as e:
            ...     print("WITH_IPU=ON" in str(e))
            True
    """

    def __init__(self) -> None:
        raise RuntimeError("Can not use IpuStrategy in non IPU compiled environment, please "
                           "re-compile with WITH_IPU=ON.")


class IpuCompiledProgram:
    """A Program compiled for IPUs; refused (ValueError) without IPU support, as in Paddle.

    Args:
        program (Program, optional): the program to compile. Default None (the main program).
        scope (Scope, optional): the scope of its variables. Default None.
        ipu_strategy (IpuStrategy, optional): the IPU settings. Default None.
    """

    def __init__(self, program=None, scope=None, ipu_strategy=None) -> None:
        raise ValueError(_NO_IPU)


@contextlib.contextmanager
def ipu_shard_guard(index: int = -1, stage: int = -1) -> Iterator[None]:
    """Place the ops built inside on IPU `index` and pipeline stage `stage`.

    Entering it without IPU support raises ValueError, as Paddle's CPU build does.

    Args:
        index (int, optional): the IPU the ops go to; -1 leaves it unset. Default -1.
        stage (int, optional): the pipeline stage; -1 leaves it unset. Default -1.
    """
    if not is_compiled_with_ipu():
        raise ValueError(_NO_IPU)
    yield  # pragma: no cover (no IPU build)


def _is_layer(obj) -> bool:
    # static sits below nn in the room order, so Layer is recognised by its class path.
    return any(k.__name__ == "Layer" and k.__module__.startswith("sampan.nn")
               for k in type(obj).__mro__)


def set_ipu_shard(call_func: Callable, index: int = -1, stage: int = -1):
    """Run `call_func` (a Layer or a function) inside `ipu_shard_guard(index, stage)`.

    A Layer is changed in place (its class gains a guarded `__call__`) and returned; a function
    comes back wrapped. Without IPU support the guard raises ValueError when it is called.

    Args:
        call_func (Layer|callable): what to shard.
        index (int, optional): the IPU. Default -1.
        stage (int, optional): the pipeline stage. Default -1.

    Returns:
        The same Layer, or the wrapped function.

    Examples:
        .. code-block:: python

            >>> import sampan as paddle
            >>> relu = paddle.static.set_ipu_shard(paddle.nn.functional.relu, index=1, stage=1)
            >>> callable(relu)
            True
    """
    if _is_layer(call_func):
        base = type(call_func)

        class BlockFn(base):
            def __call__(self, *args, **kwargs):
                with ipu_shard_guard(index=index, stage=stage):
                    return super().__call__(*args, **kwargs)

        BlockFn.__name__ = base.__name__
        BlockFn.__qualname__ = base.__qualname__
        call_func.__class__ = BlockFn
        return call_func
    if not callable(call_func):
        raise TypeError(f"set_ipu_shard: call_func must be a paddle.nn.Layer or a function, "
                        f"got {type(call_func).__name__}")

    @functools.wraps(call_func)
    def wrapper(*args, **kwargs):
        with ipu_shard_guard(index=index, stage=stage):
            return call_func(*args, **kwargs)
    return wrapper

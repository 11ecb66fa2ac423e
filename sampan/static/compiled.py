"""BuildStrategy, ExecutionStrategy and CompiledProgram: a Program plus the passes to run on
it before execution.

A CompiledProgram is accepted wherever Executor.run takes a Program. At a run it hands the
Executor the program transformed by the passes its BuildStrategy selects
(`passes.apply_build_strategy`; flags such as `fuse_elewise_add_act_ops`, `enable_inplace`,
or sampan's `passes=[names]`), keeping the fetched variables intact; the result is cached
per (program version, fetches), so the passes run once. Flags without a pass are accepted
and have no effect. Imports `static.program` and `static.passes`.
"""
from __future__ import annotations

from .program import Program

__all__ = ["BuildStrategy", "ExecutionStrategy", "CompiledProgram"]


class BuildStrategy:
    """Options for compiling a Program (`paddle.static.BuildStrategy`).

    Flags that select sampan passes: fuse_elewise_add_act_ops (elementwise fusion),
    fuse_gemm_epilogue (matmul + add (+ activation) into fused_linear), fuse_bn_act_ops
    (conv + batch_norm folding, inference programs), enable_inplace / memory_optimize
    (buffer reuse), enable_constant_folding, enable_cse, and `passes` (extra pass names).
    The other attributes are kept for compatibility.
    """

    class ReduceStrategy:
        AllReduce = 0
        Reduce = 1
        _NoReduce = 2

    class GradientScaleStrategy:
        CoeffNumDevice = 0
        One = 1
        Customized = 2

    def __init__(self) -> None:
        self.fuse_elewise_add_act_ops = False
        self.fuse_gemm_epilogue = False
        self.fuse_bn_act_ops = False
        self.fuse_bn_add_act_ops = False
        self.fuse_relu_depthwise_conv = False
        self.fuse_broadcast_ops = False
        self.fuse_all_optimizer_ops = False
        self.fuse_all_reduce_ops = False
        self.fuse_adamw = False
        self.enable_inplace = False
        self.memory_optimize = False
        self.enable_addto = False
        self.enable_constant_folding = False
        self.enable_cse = False
        self.enable_sequential_execution = False
        self.enable_auto_fusion = False
        self.remove_unnecessary_lock = True
        self.sync_batch_norm = False
        self.build_cinn_pass = False
        self.reduce_strategy = BuildStrategy.ReduceStrategy.AllReduce
        self.gradient_scale_strategy = BuildStrategy.GradientScaleStrategy.CoeffNumDevice
        self.debug_graphviz_path = ""
        self.num_trainers = 1
        self.trainer_id = 0
        self.passes: list = []

    def __repr__(self) -> str:
        on = [k for k, v in vars(self).items() if v is True]
        return f"BuildStrategy(enabled={on}, passes={self.passes})"


class ExecutionStrategy:
    """Accepted for compatibility (`paddle.static.ExecutionStrategy`): execution is
    sequential on one CPU here."""

    def __init__(self) -> None:
        self.num_threads = 1
        self.num_iteration_per_drop_scope = 100
        self.num_iteration_per_run = 1
        self.use_thread_barrier = False


class CompiledProgram:
    """A Program with a BuildStrategy (`paddle.static.CompiledProgram`).

    Args:
        program_or_graph (Program): the program to run.
        build_strategy (BuildStrategy, optional): selects the passes; default none.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> paddle.enable_static()
        >>> main = paddle.static.Program()
        >>> with paddle.static.program_guard(main):
        ...     x = paddle.static.data("x", [2], "float32")
        ...     y = paddle.nn.functional.relu(x * 2.0 + 1.0)
        >>> strategy = paddle.static.BuildStrategy()
        >>> strategy.fuse_elewise_add_act_ops = True
        >>> compiled = paddle.static.CompiledProgram(main, build_strategy=strategy)
        >>> paddle.static.Executor().run(compiled, feed={"x": np.array([-1., 1.], "float32")},
        ...                              fetch_list=[y])
        [array([0., 3.], dtype=float32)]
        >>> paddle.disable_static()
    """

    def __init__(self, program_or_graph, build_strategy=None) -> None:
        program = getattr(program_or_graph, "_program", program_or_graph)
        if not isinstance(program, Program):
            raise TypeError(f"CompiledProgram: program_or_graph must be a Program, got "
                            f"{type(program_or_graph).__name__}")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"CompiledProgram: build_strategy must be a BuildStrategy, got "
                            f"{type(build_strategy).__name__}")
        self._program = program
        self._build_strategy = build_strategy
        self._exec_strategy = None
        self._cache: dict = {}

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None) -> "CompiledProgram":
        """Older API: one device here, so only the strategies are recorded."""
        if build_strategy is not None:
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._cache.clear()
        return self

    def _pass_names(self) -> list:
        if self._build_strategy is None:
            return []
        try:
            from .passes import strategy_pass_names
        except ImportError:  # a passes registry without strategy support
            return []
        return strategy_pass_names(self._build_strategy)

    def _compiled_for(self, fetch_list) -> Program:
        """The program with the strategy's passes applied, keeping `fetch_list` (called by
        Executor.run; cached per program version and fetches)."""
        if fetch_list is None:
            fetch = ()
        else:
            items = fetch_list if isinstance(fetch_list, (list, tuple)) else [fetch_list]
            fetch = tuple(getattr(f, "name", f) for f in items)
        names = self._pass_names()
        if not names:
            return self._program
        key = (self._program._version, fetch, tuple(names))
        hit = self._cache.get(key)
        if hit is None:
            from .passes import apply_build_strategy
            self._cache.clear()
            hit = self._cache[key] = apply_build_strategy(self._program,
                                                          self._build_strategy,
                                                          keep=list(fetch))
        return hit

    def __repr__(self) -> str:
        return f"CompiledProgram(passes={self._pass_names()})"

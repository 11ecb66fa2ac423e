"""DistributedStrategy: how fleet distributes training. Parameter-server mode reads
`a_sync` (async, the default, or sync) and `a_sync_configs`; the collective switches (amp,
recompute, sharding, ...) are kept as plain settings.
"""
from __future__ import annotations

import copy

_A_SYNC_DEFAULTS = {"k_steps": -1, "max_merge_var_num": 1, "send_queue_size": 16,
                    "independent_recv_thread": False, "min_send_grad_num_before_recv": 1,
                    "thread_pool_size": 1, "send_wait_times": 1,
                    "runtime_split_send_recv": False, "launch_barrier": True,
                    "heter_worker_device_guard": "cpu", "lr_decay_steps": 10,
                    "use_ps_gpu": 0, "use_gpu_graph": 0}

_FLAGS = ("amp", "recompute", "sharding", "pipeline", "tensor_parallel", "gradient_merge",
          "lars", "lamb", "dgc", "localsgd", "adaptive_localsgd", "fp16_allreduce",
          "fuse_all_reduce_ops", "find_unused_parameters", "without_graph_optimization",
          "heter_ccl_mode", "is_fl_ps_mode", "auto", "semi_auto", "asp", "qat")


class DistributedStrategy:
    """Settings of a fleet job.

    Parameter-server mode: `a_sync` True (default) pushes are applied as they arrive;
    False is sync mode (each step, servers apply the trainers' gradients averaged once all
    trainers ended the step). `a_sync_configs` are Paddle's keys; k_steps > 0 (GEO mode)
    is not supported.

    Examples:
        >>> import sampan.distributed.fleet as fleet
        >>> strategy = fleet.DistributedStrategy()
        >>> strategy.a_sync = False
        >>> strategy.a_sync_configs = {"k_steps": 0}
        >>> strategy.a_sync, strategy.a_sync_configs["k_steps"]
        (False, 0)
    """

    def __init__(self) -> None:
        self._a_sync = True
        self._a_sync_configs = dict(_A_SYNC_DEFAULTS)
        for flag in _FLAGS:
            object.__setattr__(self, flag, False)
        self.fuse_all_reduce_ops = True
        self.fuse_grad_size_in_MB = 32
        self.nccl_comm_num = 1
        self.hybrid_configs = {"dp_degree": -1, "mp_degree": 1, "pp_degree": 1,
                               "sharding_degree": 1}
        for name in ("amp_configs", "recompute_configs", "sharding_configs",
                     "pipeline_configs", "gradient_merge_configs", "lars_configs",
                     "lamb_configs", "dgc_configs", "localsgd_configs"):
            object.__setattr__(self, name, {})

    @property
    def a_sync(self) -> bool:
        """Async (True, default) or sync (False) parameter-server training."""
        return self._a_sync

    @a_sync.setter
    def a_sync(self, flag: bool) -> None:
        if not isinstance(flag, bool):
            raise ValueError(f"DistributedStrategy: a_sync must be a bool, got "
                             f"{type(flag).__name__}")
        self._a_sync = flag

    @property
    def a_sync_configs(self) -> dict:
        """Parameter-server settings (Paddle's keys); setting a dict updates those keys."""
        return dict(self._a_sync_configs)

    @a_sync_configs.setter
    def a_sync_configs(self, configs: dict) -> None:
        if not isinstance(configs, dict):
            raise TypeError(f"DistributedStrategy: a_sync_configs must be a dict, got "
                            f"{type(configs).__name__}")
        for key, value in configs.items():
            if key not in _A_SYNC_DEFAULTS:   # NOTE: Paddle raises AssertionError here
                raise AssertionError(f"DistributedStrategy: a_sync_configs key {key!r} is "
                                     f"not one of {sorted(_A_SYNC_DEFAULTS)}")
            self._a_sync_configs[key] = value

    def ps_mode(self) -> str:
        """'sync' or 'async' (parameter-server mode); GEO is refused."""
        if not self._a_sync:
            return "sync"
        if self._a_sync_configs["k_steps"] > 0:
            raise NotImplementedError(f"fleet: GEO mode (a_sync_configs k_steps="
                                      f"{self._a_sync_configs['k_steps']} > 0) is not "
                                      f"supported; use k_steps -1 or 0 (async), or "
                                      f"a_sync=False (sync)")
        return "async"

    def __deepcopy__(self, memo):
        new = DistributedStrategy()
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    def __repr__(self) -> str:
        return (f"DistributedStrategy(a_sync={self._a_sync}, "
                f"a_sync_configs={self._a_sync_configs})")

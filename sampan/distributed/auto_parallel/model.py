"""Training pieces of auto-parallel: shard_optimizer (an optimizer over distributed
parameters), Strategy (the configuration object) and to_static / DistModel (a layer, loss
and optimizer run as one train / eval / predict step). Imports jit, amp and distributed."""
from __future__ import annotations

import copy

from .. import collective
from .api import _group_of, _rank


class _ShardOptimizer:
    """An optimizer over distributed parameters (what shard_optimizer returns).

    Before each update the gradient of a parameter replicated along a mesh dim is averaged
    over that dim's ranks (the data-parallel rule: a gradient computed from a batch split
    over those ranks becomes the full-batch one, identical gradients stay as they are).
    Accumulators take their parameter's placements; `shard_fn(name, param, accumulator)`
    may place them otherwise (the local shape must stay the parameter's). With
    gradient_accumulation_steps=k, step() and clear_grad() act every k-th call, so k
    backward passes add up their gradients before one update.
    """

    def __init__(self, optimizer, shard_fn=None, gradient_accumulation_steps: int = 1):
        if not hasattr(optimizer, "step") or not hasattr(optimizer, "_parameter_list"):
            raise TypeError(f"shard_optimizer: optimizer must be a paddle.optimizer "
                            f"Optimizer, got {type(optimizer).__name__}")
        if shard_fn is not None and not callable(shard_fn):
            raise TypeError(f"shard_optimizer: shard_fn must be callable, got "
                            f"{type(shard_fn).__name__}")
        k = gradient_accumulation_steps
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"shard_optimizer: gradient_accumulation_steps must be an int "
                             f">= 1, got {k!r}")
        self._inner_opt = optimizer
        self._shard_fn = shard_fn
        self._k = k
        self._calls = 0
        self._placed: set = set()

    def __getattr__(self, name):
        return getattr(self.__dict__["_inner_opt"], name)

    def _boundary(self) -> bool:
        return self._calls % self._k == 0

    def step(self) -> None:
        """Average replicated gradients over the mesh, then update (every k-th call)."""
        self._calls += 1
        if not self._boundary():
            return
        for p in self._inner_opt._all_params():
            self._sync_grad(p)
        self._inner_opt.step()
        self._place_accumulators()

    def clear_grad(self, set_to_zero: bool = True) -> None:
        if self._boundary():
            self._inner_opt.clear_grad(set_to_zero)

    clear_gradients = clear_grad

    def _sync_grad(self, p) -> None:
        record = getattr(p, "_dist_attr", None)
        if record is None or p.stop_gradient or p.grad is None:
            return
        mesh, rank = record.process_mesh, _rank()
        if not mesh.contains(rank):
            return
        for mesh_dim, placement in enumerate(record.placements):
            if placement.is_replicated() and mesh.shape[mesh_dim] > 1:
                group, _ = _group_of(mesh, mesh_dim, rank)
                collective.all_reduce(p.grad, collective.ReduceOp.AVG, group=group)

    def _place_accumulators(self) -> None:
        params = {p.name: p for p in self._inner_opt._all_params()}
        for acc_name, accs in self._inner_opt._accumulators.items():
            for pname, acc in accs.items():
                param = params.get(pname)
                record = getattr(param, "_dist_attr", None)
                if record is None or (acc_name, pname) in self._placed:
                    continue
                self._placed.add((acc_name, pname))
                if list(acc.shape) != list(param.shape):  # beta-pow scalars stay local
                    continue
                acc._dist_attr = copy.copy(record)
                if self._shard_fn is not None:
                    self._apply_shard_fn(acc_name, param, acc)

    def _apply_shard_fn(self, acc_name: str, param, acc) -> None:
        placed = self._shard_fn(acc_name, param, acc)
        if placed is None or placed is acc:
            return
        if list(placed.shape) != list(acc.shape):
            raise ValueError(f"shard_optimizer: shard_fn gave accumulator {acc_name!r} of "
                             f"{param.name} the local shape {list(placed.shape)}; it must "
                             f"keep the parameter's local shape {list(acc.shape)}")
        acc.set_value(placed.numpy())
        acc._dist_attr = getattr(placed, "_dist_attr", acc._dist_attr)


def shard_optimizer(optimizer, shard_fn=None, gradient_accumulation_steps: int = 1):
    """An optimizer for a layer with distributed parameters (see _ShardOptimizer).

    Args:
        optimizer (paddle.optimizer.Optimizer): the optimizer of the layer's parameters.
        shard_fn (callable, optional): shard_fn(accumulator_name, param, accumulator) ->
            the accumulator's distributed tensor. Default: the parameter's placements.
        gradient_accumulation_steps (int, optional): backward passes per update. Default 1.

    Returns:
        the wrapped optimizer (step, clear_grad; other attributes pass through).

    Examples:
        >>> import sampan as paddle
        >>> import sampan.distributed as dist
        >>> mesh = dist.ProcessMesh([0], dim_names=['x'])
        >>> net = dist.shard_layer(paddle.nn.Linear(2, 2), mesh)
        >>> opt = dist.shard_optimizer(paddle.optimizer.SGD(parameters=net.parameters()))
        >>> net(paddle.ones([1, 2])).sum().backward()
        >>> opt.step()
    """
    return _ShardOptimizer(optimizer, shard_fn, gradient_accumulation_steps)


class _Config:
    """A group of options with defaults; unknown names are refused."""
    _defaults: dict = {}

    def __init__(self, config: dict | None = None) -> None:
        values = dict(self._defaults)
        for key, value in (config or {}).items():
            if key not in values:
                raise ValueError(f"Strategy.{self._name}: unknown option {key!r} (options "
                                 f"{sorted(values)})")
            values[key] = value
        self.__dict__.update(values)

    def __setattr__(self, key, value) -> None:
        if key not in self._defaults:
            raise AttributeError(f"Strategy.{self._name}: unknown option {key!r}")
        self.__dict__[key] = value

    def to_dict(self) -> dict:
        return {k: self.__dict__[k] for k in self._defaults}

    def __repr__(self) -> str:
        return repr(self.to_dict())


def _config(name: str, defaults: dict):
    return type(f"_{name.title().replace('_', '')}Config", (_Config,),
                {"_name": name, "_defaults": defaults})


_SECTIONS = {
    "sharding": _config("sharding", {"enable": False, "stage": 1, "degree": 8}),
    "gradient_merge": _config("gradient_merge", {"enable": False, "k_steps": 1,
                                                 "avg": True}),
    "pipeline": _config("pipeline", {"enable": False, "schedule_mode": "1F1B",
                                     "micro_batch_size": 1, "accumulate_steps": 1}),
    "amp": _config("amp", {"enable": False, "dtype": "float16", "level": "O1",
                           "init_loss_scaling": 32768.0, "custom_white_list": [],
                           "custom_black_list": [], "use_master_grad": False}),
    "fused_passes": _config("fused_passes", {"enable": False, "gemm_epilogue": False,
                                             "dropout_add": False}),
}


class Strategy:
    """Options of distributed training: sharding, gradient_merge, pipeline, amp and
    fused_passes, each a group of named options (`strategy.amp.enable = True`).

    DistModel applies gradient_merge (k_steps backward passes per update, averaged when
    avg) and amp (forward under paddle.amp.auto_cast with dtype/level); the others describe
    multi-device schedules and are kept for the configuration only.

    Args:
        config (dict, optional): {section: {option: value}} to start from.

    Examples:
        >>> import sampan.distributed as dist
        >>> strategy = dist.Strategy({"gradient_merge": {"enable": True, "k_steps": 2}})
        >>> strategy.gradient_merge.k_steps, strategy.amp.enable
        (2, False)
    """

    def __init__(self, config: dict | None = None) -> None:
        if config is not None and not isinstance(config, dict):
            raise ValueError(f"Strategy: config must be a dict, got {type(config).__name__}")
        config = dict(config or {})
        unknown = set(config) - set(_SECTIONS)
        if unknown:
            raise ValueError(f"Strategy: unknown sections {sorted(unknown)} (sections "
                             f"{sorted(_SECTIONS)})")
        for name, cls in _SECTIONS.items():
            setattr(self, name, cls(config.get(name)))

    def to_dict(self) -> dict:
        return {name: getattr(self, name).to_dict() for name in _SECTIONS}

    def __repr__(self) -> str:
        return f"Strategy({self.to_dict()})"


class DistModel:
    """A layer, loss and optimizer run as one step per call (made by paddle.distributed.
    to_static). Modes: train() (forward, loss, backward, update; returns the loss), eval()
    (the loss, no update), predict() (the outputs). The forward runs through
    paddle.jit.to_static. Results come back as NumPy arrays, as Paddle's DistModel."""

    def __init__(self, layer, loader=None, loss=None, optimizer=None, strategy=None) -> None:
        from ... import jit
        if strategy is not None and not isinstance(strategy, Strategy):
            raise TypeError(f"to_static: strategy must be a paddle.distributed.Strategy, got "
                            f"{type(strategy).__name__}")
        self.network = layer
        self._forward = jit.to_static(layer)
        self._loader, self._loss, self._optimizer = loader, loss, optimizer
        self._strategy = strategy or Strategy()
        self._pending = 0  # backward passes since the last update (gradient merge)
        self._mode = None
        if optimizer is not None and loss is not None:
            self.train()
        elif loss is not None:
            self.eval()
        else:
            self.predict()

    def train(self) -> None:
        if self._optimizer is None or self._loss is None:
            raise ValueError("DistModel.train: set the optimizer and loss (to_static(..., "
                             "loss=..., optimizer=...)) before training")
        self._mode = "train"
        self.network.train()

    def eval(self) -> None:
        if self._loss is None:
            raise ValueError("DistModel.eval: set the loss (to_static(..., loss=...)) before "
                             "evaluation")
        self._mode = "eval"
        self.network.eval()

    def predict(self) -> None:
        self._mode = "predict"
        self.network.eval()

    def _run_forward(self, inputs):
        amp = self._strategy.amp
        if not amp.enable:
            return self._forward(*inputs)
        from ... import amp as _amp
        with _amp.auto_cast(level=amp.level.upper(), dtype=amp.dtype,
                            custom_white_list=amp.custom_white_list or None,
                            custom_black_list=amp.custom_black_list or None):
            return self._forward(*inputs)

    def __call__(self, *args):
        from ...autograd import no_grad
        feeds = []
        for item in args:
            feeds += list(item) if isinstance(item, (list, tuple)) else [item]
        if self._mode == "predict":
            with no_grad():
                out = self._run_forward(feeds)
            return _numpy(out)
        if len(feeds) < 2:
            raise ValueError(f"DistModel ({self._mode}): give the inputs and the label(s), "
                             f"got {len(feeds)} tensor(s)")
        if self._mode == "eval":
            with no_grad():
                return _numpy(self._loss(self._run_forward(feeds[:-1]), feeds[-1]))
        loss = self._loss(self._run_forward(feeds[:-1]), feeds[-1])
        self._backward_and_update(loss)
        return _numpy(loss)

    def _backward_and_update(self, loss) -> None:
        merge = self._strategy.gradient_merge
        k = int(merge.k_steps) if merge.enable else 1
        (loss / k if k > 1 and merge.avg else loss).backward()
        self._pending += 1
        if self._pending >= k:
            self._optimizer.step()
            self._optimizer.clear_grad()
            self._pending = 0

    def state_dict(self, mode: str = "all") -> dict:
        """The parameters ('param'), the optimizer state ('opt') or both ('all')."""
        if mode not in ("all", "param", "opt"):
            raise ValueError(f"DistModel.state_dict: mode must be 'all', 'param' or 'opt', "
                             f"got {mode!r}")
        out = {} if mode == "opt" else dict(self.network.state_dict())
        if mode != "param" and self._optimizer is not None:
            out.update(self._optimizer.state_dict())
        return out


def _numpy(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy(v) for v in value)
    return value.numpy() if hasattr(value, "numpy") else value


def to_static(layer, loader=None, loss=None, optimizer=None, strategy=None,
              input_spec=None) -> DistModel:
    """A DistModel running `layer` (with `loss` and `optimizer`) one step per call.

    Args:
        layer (paddle.nn.Layer): the model (its parameters may be distributed).
        loader (DataLoader, optional): the data loader (kept for reference).
        loss (callable, optional): loss(outputs, labels).
        optimizer (Optimizer, optional): e.g. from shard_optimizer.
        strategy (Strategy, optional): gradient_merge and amp are applied.
        input_spec (optional): accepted for compatibility.

    Returns:
        DistModel: in train mode when loss and optimizer are given, eval mode with only a
        loss, predict mode otherwise.

    Examples:
        >>> import numpy as np
        >>> import sampan as paddle
        >>> import sampan.distributed as dist
        >>> _ = paddle.seed(0)
        >>> net = paddle.nn.Linear(2, 1)
        >>> opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
        >>> model = dist.to_static(net, loss=paddle.nn.MSELoss(), optimizer=opt)
        >>> loss = model(paddle.ones([4, 2]), paddle.zeros([4, 1]))
        >>> isinstance(loss, np.ndarray)
        True
    """
    from ...nn import Layer
    if not isinstance(layer, Layer):
        raise TypeError(f"to_static: layer must be a paddle.nn.Layer, got "
                        f"{type(layer).__name__}")
    return DistModel(layer, loader, loss, optimizer, strategy)


__all__ = ["shard_optimizer", "Strategy", "DistModel", "to_static"]

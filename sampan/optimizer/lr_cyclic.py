"""Cyclic and metric-driven schedulers: ReduceOnPlateau, CosineAnnealingDecay, OneCycleLR,
CyclicLR, CosineAnnealingWarmRestarts. Re-exported by optimizer/lr.py (paddle.optimizer.lr).
"""
from __future__ import annotations

import math

from .lr import LRScheduler, _number, _positive_int


class ReduceOnPlateau(LRScheduler):
    """Multiply the lr by `factor` when `metrics` passed to step() stop improving for more
    than `patience` epochs (then wait `cooldown` epochs); never below min_lr."""

    def __init__(self, learning_rate: float, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr: float = 0, epsilon: float = 1e-8,
                 verbose: bool = False) -> None:
        mode, threshold_mode = str(mode).lower(), str(threshold_mode).lower()
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceOnPlateau: mode must be 'min' or 'max', got {mode!r}")
        if factor >= 1.0:
            raise ValueError(f"ReduceOnPlateau: factor should be < 1.0 (new_lr = origin_lr * "
                             f"factor), got {factor}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got "
                             f"{threshold_mode!r}")
        lr = _number("ReduceOnPlateau", "learning_rate", learning_rate)
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.min_lr, self.epsilon = cooldown, min_lr, epsilon
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.base_lr = self.last_lr = lr
        self.last_epoch = 0
        self.verbose = verbose

    def state_keys(self) -> None:
        self.keys = ["cooldown_counter", "best", "num_bad_epochs", "last_epoch", "last_lr"]

    def step(self, metrics, epoch: int | None = None) -> None:
        """Record `metrics` (a number or 1-element Tensor/array) for this epoch."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if hasattr(metrics, "shape") and hasattr(metrics, "size"):
            size = math.prod(metrics.shape)   # (Tensor.size() is the shape, as Paddle 3.3.1)
            if size != 1:
                raise ValueError(f"ReduceOnPlateau.step: metrics must have one element, got "
                                 f"shape {list(metrics.shape)}; reduce it with mean() first")
            metrics = float(metrics.item() if hasattr(metrics, "item") else metrics)
        elif isinstance(metrics, bool) or not isinstance(metrics, (int, float)):
            raise TypeError(f"ReduceOnPlateau.step: metrics must be a number, ndarray or "
                            f"Tensor, got {type(metrics).__name__}")
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(metrics, self.best):
            self.best = metrics
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                self._report()

    def _is_better(self, current, best) -> bool:
        if self.threshold_mode == "rel":
            margin = best * self.threshold
        else:
            margin = self.threshold
        if self.mode == "min":
            return current < best - margin
        return current > best + margin

    def get_lr(self) -> float:
        return self.last_lr


class CosineAnnealingDecay(LRScheduler):
    """SGDR-style cosine annealing from learning_rate down to eta_min over T_max epochs
    (computed recursively, as Paddle does; step(epoch) uses the closed form)."""

    def __init__(self, learning_rate: float, T_max: int, eta_min: float = 0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(T_max, int) or isinstance(T_max, bool):
            raise TypeError(f"CosineAnnealingDecay: T_max must be an int, got "
                            f"{type(T_max).__name__}")
        self.T_max = _positive_int("CosineAnnealingDecay", "T_max", T_max)
        self.eta_min = _number("CosineAnnealingDecay", "eta_min", eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        t, T = self.last_epoch, self.T_max
        if t == 0:
            return self.base_lr
        if (t - 1 - T) % (2 * T) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
        return ((1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
                * (self.last_lr - self.eta_min) + self.eta_min)

    def _get_closed_form_lr(self) -> float:
        return (self.eta_min + (self.base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2)


class OneCycleLR(LRScheduler):
    """One-cycle policy: warm up from max_learning_rate/divide_factor to max_learning_rate
    over phase_pct of total_steps, then anneal ('cos' or 'linear') to end_learning_rate
    (three_phase: back to the initial lr first)."""

    def __init__(self, max_learning_rate: float, total_steps: int, divide_factor: float = 25.0,
                 end_learning_rate: float = 0.0001, phase_pct: float = 0.3,
                 anneal_strategy: str = "cos", three_phase: bool = False,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        api = "OneCycleLR"
        max_lr = _number(api, "max_learning_rate", max_learning_rate)
        end_lr = _number(api, "end_learning_rate", end_learning_rate)
        if max_lr < 0 or end_lr < 0:
            raise ValueError(f"{api}: learning rates must be >= 0, got max_learning_rate "
                             f"{max_lr}, end_learning_rate {end_lr}")
        if not isinstance(total_steps, int) or isinstance(total_steps, bool):
            raise TypeError(f"{api}: total_steps must be an int, got "
                            f"{type(total_steps).__name__}")
        self.total_steps = _positive_int(api, "total_steps", total_steps)
        if not isinstance(phase_pct, float):
            raise TypeError(f"{api}: phase_pct must be a float, got {type(phase_pct).__name__}")
        if not 0 <= phase_pct <= 1:
            raise ValueError(f"{api}: phase_pct must be between 0 and 1, got {phase_pct}")
        initial = max_lr / _number(api, "divide_factor", divide_factor)
        n = self.total_steps
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError(f"{api}: phase_pct must be < 0.5 when three_phase is True, "
                                 f"got {phase_pct}")
            ends = [0, phase_pct * n - 1, 2 * phase_pct * n - 2, n - 1, n - 1]
            self._lr_config = [initial, max_lr, initial, end_lr]
            self._steps_size = [ends[1] - ends[0], ends[2] - ends[1], ends[3] - ends[2],
                                ends[3] - ends[2]]
        else:
            ends = [0, phase_pct * n - 1, n - 1, n - 1]
            self._lr_config = [initial, max_lr, end_lr]
            self._steps_size = [ends[1] - ends[0], ends[2] - ends[1], ends[2] - ends[1]]
        self._step_config = ends
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"{api}: anneal_strategy must be 'cos' or 'linear', got "
                             f"{anneal_strategy!r}")
        self.anneal_strategy = anneal_strategy
        super().__init__(initial, last_epoch, verbose)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self) -> float:
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(f"OneCycleLR: tried to step {t} times, but total_steps is "
                             f"{self.total_steps}")
        last = len(self._lr_config) - 2
        for i, (end, size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if t <= end or i == last:
                return self._anneal(self._lr_config[i], self._lr_config[i + 1],
                                    (t - self._step_config[i]) / size)
        return self._lr_config[-1]


class CyclicLR(LRScheduler):
    """Cyclical lr between base_learning_rate and max_learning_rate (triangular,
    triangular2, exp_range, or a custom scale_fn over 'cycle' or 'iterations')."""

    def __init__(self, base_learning_rate: float, max_learning_rate: float, step_size_up: int,
                 step_size_down: int | None = None, mode: str = "triangular",
                 exp_gamma: float = 1.0, scale_fn=None, scale_mode: str = "cycle",
                 last_epoch: int = -1, verbose: bool = False) -> None:
        api = "CyclicLR"
        max_lr = _number(api, "max_learning_rate", max_learning_rate)
        if max_lr < 0:
            raise ValueError(f"{api}: max_learning_rate must be >= 0, got {max_lr}")
        if not isinstance(step_size_up, int) or isinstance(step_size_up, bool):
            raise TypeError(f"{api}: step_size_up must be an int, got "
                            f"{type(step_size_up).__name__}")
        up = _positive_int(api, "step_size_up", step_size_up)
        if step_size_down is not None:
            if not isinstance(step_size_down, int) or isinstance(step_size_down, bool):
                raise TypeError(f"{api}: step_size_down must be an int, got "
                                f"{type(step_size_down).__name__}")
            _positive_int(api, "step_size_down", step_size_down)
        if not isinstance(exp_gamma, float):
            raise TypeError(f"{api}: exp_gamma must be a float, got {type(exp_gamma).__name__}")
        down = float(up if step_size_down is None else step_size_down)
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = max_lr
        self.amplitude = max_lr - base_learning_rate
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError(f"{api}: mode {mode!r} is invalid and no scale_fn is given")
        if scale_mode not in ("cycle", "iterations"):
            raise ValueError(f"{api}: scale_mode must be 'cycle' or 'iterations', got "
                             f"{scale_mode!r}")
        self.mode = mode
        self.gamma = exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == "triangular":
            self.scale_fn, self.scale_mode = (lambda x: 1.0), "cycle"
        elif mode == "triangular2":
            self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
        else:
            self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), "iterations"
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        it = self.last_epoch
        cycle = 1 + it // self.cycle_size
        pct = 1.0 + it / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale = pct / self.step_up_pct
        else:
            scale = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == "cycle" else it
        return self.base_lr + self.amplitude * scale * self.scale_fn(x)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs (T_0, then multiplied by T_mult)."""

    def __init__(self, learning_rate: float, T_0: int, T_mult: int = 1, eta_min: float = 0,
                 last_epoch: int = -1, verbose: bool = False) -> None:
        if not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected positive integer T_0, "
                             f"got {T_0}")
        if not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError(f"CosineAnnealingWarmRestarts: expected integer T_mult >= 1, "
                             f"got {T_mult}")
        self.T_0 = self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self) -> float:
        return (self.eta_min + (self.base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2)

    def step(self, epoch: int | None = None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur -= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"CosineAnnealingWarmRestarts.step: expected a non-negative "
                             f"epoch, got {epoch}")
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        self._report()

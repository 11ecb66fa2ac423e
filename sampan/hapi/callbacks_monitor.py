"""Callbacks that watch a monitored metric: EarlyStopping and ReduceLROnPlateau."""
from __future__ import annotations

import os
import warnings

import numpy as np

from .callback_base import Callback, _is_rank0, _scalar


def _monitor_op(mode: str, monitor: str, api: str):
    if mode not in ("auto", "min", "max"):
        warnings.warn(f"{api} mode {mode} is unknown, fallback to auto mode.")
        mode = "auto"
    if mode == "max" or (mode == "auto" and "acc" in monitor):
        return np.greater
    return np.less


class EarlyStopping(Callback):
    """Stops fit when the monitored evaluation value stops improving.

    Checked after every evaluation: the value improves when it beats the best by more
    than `min_delta`; after `patience` evaluations without improvement (immediately for
    patience=0) `model.stop_training` is set. With save_best_model and fit's save_dir the
    best model is saved to save_dir/best_model.

    Args:
        monitor (str): a logged name ("loss" or a metric name). Default "loss".
        mode (str): "auto", "min" or "max"; auto means max when "acc" is in the name.
        patience (int): evaluations without improvement to tolerate. Default 0.
        verbose (int): 1 prints when stopping. Default 1.
        min_delta (float): the smallest change that counts as improvement. Default 0.
        baseline (float, optional): the value to beat at the start.
        save_best_model (bool): save the best model (needs fit's save_dir). Default True.
    """

    def __init__(self, monitor: str = "loss", mode: str = "auto", patience: int = 0,
                 verbose: int = 1, min_delta: float = 0, baseline: float | None = None,
                 save_best_model: bool = True) -> None:
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None
        self.monitor_op = _monitor_op(mode, monitor, "EarlyStopping")
        # NOTE: the delta is added to the current value, so it carries the sign of the goal
        self.min_delta = abs(min_delta) * (1 if self.monitor_op is np.greater else -1)
        self.best_value = None

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.wait_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = np.inf if self.monitor_op is np.less else -np.inf
            self.best_weights = None

    def on_eval_end(self, logs: dict | None = None) -> None:
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of EarlyStopping should be loss or metric name.")
            return
        current = _scalar(logs[self.monitor])
        if current is None:
            return
        if self.best_value is None:
            self.on_train_begin()
        best_path = os.path.join(self.save_dir, "best_model") if self.save_dir else None
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and best_path is not None:
                self.model.save(best_path)
        else:
            self.wait_epoch += 1
        if self.wait_epoch >= self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print(f"Epoch {self.stopped_epoch + 1}: Early stopping.")
                if self.save_best_model and best_path is not None:
                    print(f"Best checkpoint has been saved at {os.path.abspath(best_path)}")
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies a float learning rate by `factor` when the monitored evaluation value
    has not improved for `patience` evaluations.

    Args:
        monitor (str): a logged name. Default "loss".
        factor (float): the multiplier, < 1. Default 0.1.
        patience (int): evaluations without improvement before reducing. Default 10.
        verbose (int): 1 prints each reduction. Default 1.
        mode (str): "auto", "min" or "max". Default "auto".
        min_delta (float): the smallest change that counts as improvement. Default 1e-4.
        cooldown (int): evaluations to wait after a reduction. Default 0.
        min_lr (float): the lower bound of the learning rate. Default 0.
    """

    def __init__(self, monitor: str = "loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 1, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0) -> None:
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.mode = mode
        self.epoch = 0
        self._reset()

    def _reset(self) -> None:
        greater = _monitor_op(self.mode, self.monitor, "ReduceLROnPlateau") is np.greater
        if self.mode not in ("auto", "min", "max"):
            self.mode = "auto"
        if greater:
            self.monitor_op = lambda a, b: np.greater(a, b + self.min_delta)
            self.best = -np.inf
        else:
            self.monitor_op = lambda a, b: np.less(a, b - self.min_delta)
            self.best = np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def on_train_begin(self, logs: dict | None = None) -> None:
        self._reset()

    def on_eval_end(self, logs: dict | None = None) -> None:
        if logs is None or self.monitor not in logs:
            warnings.warn("Monitor of ReduceLROnPlateau should be loss or metric name.")
            return
        opt = getattr(self.model, "_optimizer", None)
        lr = getattr(opt, "_learning_rate", None)
        if not isinstance(lr, float):
            warnings.warn(f"Expected learning_rate be float, bug got {type(lr)}.")
            return
        current = _scalar(logs[self.monitor])
        if current is None:
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                self._reduce(opt)
        self.epoch += 1

    def _reduce(self, opt) -> None:
        old_lr = opt.get_lr()
        if old_lr > np.float32(self.min_lr):
            new_lr = max(old_lr * self.factor, self.min_lr)
            opt.set_lr(float(new_lr))
            if self.verbose > 0 and _is_rank0():
                print(f"\nEpoch {self.epoch + 1}: ReduceLROnPlateau reducing learning "
                      f"rate to {new_lr}.")
            self.cooldown_counter = self.cooldown
            self.wait = 0

"""The base of paddle.callbacks: Callback (every hook), CallbackList, and the callbacks every
Model run gets by default: ProgBarLogger, ModelCheckpoint and LRScheduler.
Imports `optimizer` (for LRScheduler) and `hapi.progressbar`.
"""
from __future__ import annotations

import numbers
import os
import time
from typing import Sequence

import numpy as np

from ..optimizer.lr import LRScheduler as _Scheduler
from .progressbar import ProgressBar

_MODES = ("train", "eval", "predict")


def _is_rank0() -> bool:
    """Only the first trainer logs and saves (PADDLE_TRAINER_ID, as Paddle's ParallelEnv)."""
    return int(os.environ.get("PADDLE_TRAINER_ID", "0")) == 0


def _scalar(value):
    """The number a log entry holds (the first item of a list, like Paddle), else None."""
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.item()
    return value if isinstance(value, numbers.Number) else None


class CallbackList:
    """Calls one hook on every callback, in order."""

    def __init__(self, callbacks: Sequence["Callback"]) -> None:
        self.callbacks = list(callbacks)

    def append(self, callback: "Callback") -> None:
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params: dict) -> None:
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model) -> None:
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name: str, *args) -> None:
        for c in self.callbacks:
            getattr(c, name)(*args)

    @staticmethod
    def _check_mode(mode: str) -> None:
        if mode not in _MODES:
            raise ValueError(f"callbacks: mode should be train, eval or predict, got {mode!r}")

    def on_begin(self, mode: str, logs: dict | None = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_begin", logs)

    def on_end(self, mode: str, logs: dict | None = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_end", logs)

    def on_epoch_begin(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self._call("on_epoch_begin", epoch, logs)

    def on_epoch_end(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self._call("on_epoch_end", epoch, logs)

    def on_batch_begin(self, mode: str, step: int | None = None,
                       logs: dict | None = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_begin", step, logs)

    def on_batch_end(self, mode: str, step: int | None = None,
                     logs: dict | None = None) -> None:
        self._check_mode(mode)
        self._call(f"on_{mode}_batch_end", step, logs)


class Callback:
    """Base class of callbacks: every hook does nothing; override the ones you need.

    `self.model` is the running paddle.Model and `self.params` a dict with batch_size,
    epochs, steps, verbose and metrics (the names logged: "loss" then each metric's).
    Batch-end and epoch-end logs map those names to their current values, plus "step" and
    "batch_size".

    Examples:
        >>> import sampan as paddle
        >>> class Count(paddle.callbacks.Callback):
        ...     def on_train_batch_end(self, step, logs=None):
        ...         self.steps = step + 1
    """

    def __init__(self) -> None:
        self.model = None
        self.params: dict = {}

    def set_params(self, params: dict) -> None:
        """Receive the run's parameters (batch_size, epochs, steps, verbose, metrics)."""
        self.params = params

    def set_model(self, model) -> None:
        """Receive the paddle.Model being run."""
        self.model = model

    def on_train_begin(self, logs: dict | None = None) -> None:
        """Called once at the start of fit."""

    def on_train_end(self, logs: dict | None = None) -> None:
        """Called once at the end of fit with the last logs."""

    def on_eval_begin(self, logs: dict | None = None) -> None:
        """Called before evaluation; logs has "steps" and "metrics"."""

    def on_eval_end(self, logs: dict | None = None) -> None:
        """Called after evaluation with the evaluation logs."""

    def on_predict_begin(self, logs: dict | None = None) -> None:
        """Called before prediction; logs has "steps"."""

    def on_predict_end(self, logs: dict | None = None) -> None:
        """Called after prediction."""

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        """Called at the start of each training epoch (0-based)."""

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        """Called at the end of each training epoch with the epoch's last logs."""

    def on_train_batch_begin(self, step: int, logs: dict | None = None) -> None:
        """Called before each training batch."""

    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None:
        """Called after each training batch with its logs."""

    def on_eval_batch_begin(self, step: int, logs: dict | None = None) -> None:
        """Called before each evaluation batch."""

    def on_eval_batch_end(self, step: int, logs: dict | None = None) -> None:
        """Called after each evaluation batch with its logs."""

    def on_predict_batch_begin(self, step: int, logs: dict | None = None) -> None:
        """Called before each prediction batch."""

    def on_predict_batch_end(self, step: int, logs: dict | None = None) -> None:
        """Called after each prediction batch."""


class ProgBarLogger(Callback):
    """Prints progress and logged values: verbose 0 silent, 1 a progress bar per epoch,
    2 one line every `log_freq` steps (3 adds reader/batch cost and ips).

    Args:
        log_freq (int): print every log_freq steps. Default 1.
        verbose (int): 0, 1, 2 or 3. Default 2.
    """

    def __init__(self, log_freq: int = 1, verbose: int = 2) -> None:
        super().__init__()
        self.epochs = None
        self.steps = None
        self.verbose = verbose
        self.log_freq = max(int(log_freq), 1)

    def _is_print(self) -> bool:
        return bool(self.verbose) and _is_rank0()

    def _start(self, mode: str, steps, metrics) -> None:
        setattr(self, f"{mode}_steps", steps)
        setattr(self, f"{mode}_metrics", metrics)
        setattr(self, f"{mode}_step", 0)
        setattr(self, f"{mode}_samples", 0)
        setattr(self, f"{mode}_progbar", ProgressBar(num=steps, verbose=self.verbose))
        setattr(self, f"_{mode}_timer", {"data": 0.0, "batch": 0.0, "count": 0,
                                         "samples": 0, "mark": time.time()})

    def _updates(self, logs: dict, mode: str) -> None:
        values = [(k, logs[k]) for k in getattr(self, f"{mode}_metrics") if k in logs]
        timer = getattr(self, f"_{mode}_timer")
        if self.verbose == 3:
            cnt = max(timer["count"], 1)
            spent = timer["data"] + timer["batch"]
            values += [("avg_reader_cost", f"{timer['data'] / cnt:.5f} sec"),
                       ("avg_batch_cost", f"{timer['batch'] / cnt:.5f} sec"),
                       ("ips", f"{timer['samples'] / spent if spent else 0.0:.5f} samples/sec")]
            timer.update(data=0.0, batch=0.0, count=0, samples=0)
        getattr(self, f"{mode}_progbar").update(getattr(self, f"{mode}_step"), values)

    def _batch_begin(self, mode: str) -> None:
        timer = getattr(self, f"_{mode}_timer")
        now = time.time()
        timer["data"] += now - timer["mark"]
        timer["mark"] = now

    def _batch_end(self, mode: str, logs: dict | None) -> None:
        logs = logs or {}
        step = getattr(self, f"{mode}_step") + 1
        setattr(self, f"{mode}_step", step)
        samples = logs.get("batch_size", 1)
        setattr(self, f"{mode}_samples", getattr(self, f"{mode}_samples") + samples)
        timer = getattr(self, f"_{mode}_timer")
        now = time.time()
        timer["batch"] += now - timer["mark"]
        timer["count"] += 1
        timer["samples"] += samples
        timer["mark"] = now
        steps = getattr(self, f"{mode}_steps")
        if self._is_print() and step % self.log_freq == 0 and (steps is None or step < steps):
            self._updates(logs, mode)

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epochs = self.params.get("epochs")
        self.train_metrics = self.params.get("metrics", [])
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is "
                  "the average value of previous steps.")

    def on_epoch_begin(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self.steps = self.params.get("steps")
        self.epoch = epoch
        if self.epochs and self._is_print():
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self._start("train", self.steps, self.params.get("metrics", []))

    def on_train_batch_begin(self, step: int, logs: dict | None = None) -> None:
        self._batch_begin("train")

    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None:
        self._batch_end("train", logs)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if self._is_print() and self.steps is not None:
            self._updates(logs or {}, "train")

    def on_eval_begin(self, logs: dict | None = None) -> None:
        logs = logs or {}
        self._start("eval", logs.get("steps"), logs.get("metrics", []))
        if self._is_print():
            print("Eval begin...")

    def on_eval_batch_begin(self, step: int, logs: dict | None = None) -> None:
        self._batch_begin("eval")

    def on_eval_batch_end(self, step: int, logs: dict | None = None) -> None:
        self._batch_end("eval", logs)

    def on_eval_end(self, logs: dict | None = None) -> None:
        if self._is_print() and self.eval_steps is not None:
            self._updates(logs or {}, "eval")
            print(f"Eval samples: {self.eval_samples}")

    def on_predict_begin(self, logs: dict | None = None) -> None:
        logs = logs or {}
        self._start("test", logs.get("steps"), logs.get("metrics", []))
        if self._is_print():
            print("Predict begin...")

    def on_predict_batch_begin(self, step: int, logs: dict | None = None) -> None:
        self._batch_begin("test")

    def on_predict_batch_end(self, step: int, logs: dict | None = None) -> None:
        self._batch_end("test", logs)

    def on_predict_end(self, logs: dict | None = None) -> None:
        if self._is_print():
            if self.test_step % self.log_freq != 0 or self.verbose == 1:
                self._updates(logs or {}, "test")
            print(f"Predict samples: {self.test_samples}")


class ModelCheckpoint(Callback):
    """Saves the model every `save_freq` epochs to `save_dir/<epoch>` and at the end of
    training to `save_dir/final` (each as .pdparams + .pdopt via Model.save).

    Args:
        save_freq (int): epochs between checkpoints. Default 1.
        save_dir (str, optional): where to save; nothing is saved when None.
    """

    def __init__(self, save_freq: int = 1, save_dir: str | None = None) -> None:
        super().__init__()
        self.save_freq = save_freq
        self.save_dir = save_dir
        self.epoch = 0

    def _is_save(self) -> bool:
        return bool(self.model and self.save_dir and _is_rank0())

    def on_epoch_begin(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self.epoch = epoch

    def _save(self, tag) -> None:
        path = f"{self.save_dir}/{tag}"
        print(f"save checkpoint at {os.path.abspath(path)}")
        self.model.save(path)

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if self._is_save() and self.epoch % self.save_freq == 0:
            self._save(epoch)

    def on_train_end(self, logs: dict | None = None) -> None:
        if self._is_save():
            self._save("final")


class LRScheduler(Callback):
    """Steps the optimizer's learning-rate scheduler after each batch (by_step, the
    default) or after each epoch (by_epoch).

    Args:
        by_step (bool): step every training batch. Default True.
        by_epoch (bool): step every epoch. Default False. Exclusive with by_step.
    """

    def __init__(self, by_step: bool = True, by_epoch: bool = False) -> None:
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("by_step option is mutually exclusive with by_epoch")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _step(self) -> None:
        opt = getattr(self.model, "_optimizer", None)
        scheduler = getattr(opt, "_learning_rate", None)
        if isinstance(scheduler, _Scheduler):
            scheduler.step()

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None:
        if self.by_step:
            self._step()

"""paddle.callbacks: the hooks `paddle.Model` calls during fit/evaluate/predict.

Callback (all hooks), ProgBarLogger, ModelCheckpoint, LRScheduler, EarlyStopping,
ReduceLROnPlateau, VisualDL, WandbCallback; `config_callbacks` builds the list Model uses.
Imports `optimizer` (for LRScheduler) and `hapi.progressbar`.
"""
from __future__ import annotations

import json
import numbers
import os
import time
import warnings
from typing import Any, Sequence

import numpy as np

from ..optimizer.lr import LRScheduler as _Scheduler
from .progressbar import ProgressBar

__all__ = ["Callback", "ProgBarLogger", "ModelCheckpoint", "VisualDL", "LRScheduler",
           "EarlyStopping", "ReduceLROnPlateau", "WandbCallback"]

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


def config_callbacks(callbacks=None, model=None, batch_size: int | None = None,
                     epochs: int | None = None, steps: int | None = None, log_freq: int = 2,
                     verbose: int = 2, save_freq: int = 1, save_dir: str | None = None,
                     metrics: list | None = None, mode: str = "train") -> "CallbackList":
    """The CallbackList of a Model run: [ProgBarLogger, *callbacks, ModelCheckpoint,
    LRScheduler], each default added only when the user gave none of that kind."""
    cbks = callbacks or []
    cbks = list(cbks) if isinstance(cbks, (list, tuple)) else [cbks]
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError(f"paddle.Model: callbacks must be paddle.callbacks.Callback "
                            f"instances, got {type(c).__name__}")
    if verbose and not any(isinstance(c, ProgBarLogger) for c in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(c, ModelCheckpoint) for c in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for c in cbks:
        if isinstance(c, EarlyStopping):
            c.save_dir = save_dir
    if not any(isinstance(c, LRScheduler) for c in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    cbk_list.set_params({"batch_size": batch_size, "epochs": epochs, "steps": steps,
                         "verbose": verbose,
                         "metrics": (metrics or []) if mode != "test" else []})
    return cbk_list


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


class _JsonlWriter:
    """A scalar log: one JSON object {"tag", "step", "value"} per line in scalars.jsonl."""

    def __init__(self, log_dir: str) -> None:
        os.makedirs(log_dir, exist_ok=True)
        self._file = open(os.path.join(log_dir, "scalars.jsonl"), "a", encoding="utf-8")

    def add_scalar(self, tag: str, step: int, value) -> None:
        self._file.write(json.dumps({"tag": tag, "step": int(step), "value": float(value)})
                         + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


class VisualDL(Callback):
    """Logs the training and evaluation scalars ("train/loss", "eval/acc", ...): train
    scalars at the global step, eval scalars at the epoch.

    Writes through `visualdl.LogWriter` when the `visualdl` package is installed (as Paddle
    does), else through `sampan.utils.LogWriter`, TensorBoard event files that
    `tensorboard --logdir log_dir` shows (needs `pip install tensorboardX`). With neither
    installed the scalars go to a plain JSON-lines file `log_dir/scalars.jsonl`, one
    {"tag": ..., "step": ..., "value": ...} object per line, and a warning says so.

    Args:
        log_dir (str): the output directory.

    Examples:
        >>> import sampan as paddle
        >>> callback = paddle.callbacks.VisualDL(log_dir='visualdl_log_dir')
        >>> # model.fit(train_dataset, eval_dataset, batch_size=64, callbacks=callback)
    """

    def __init__(self, log_dir: str) -> None:
        super().__init__()
        self.log_dir = log_dir
        self.epochs = None
        self.steps = None
        self.epoch = 0

    def _writer(self):
        if not hasattr(self, "writer"):
            try:
                import visualdl
                self.writer = visualdl.LogWriter(self.log_dir)
            except ImportError:
                self.writer = self._own_writer()
        return self.writer

    def _own_writer(self):
        from ..utils.log_writer import LogWriter
        try:
            return LogWriter(self.log_dir)
        except ImportError:
            warnings.warn(f"paddle.callbacks.VisualDL: neither visualdl nor tensorboardX is "
                          f"installed, so the scalars go to "
                          f"{os.path.join(self.log_dir, 'scalars.jsonl')} (JSON lines); "
                          f"`pip install tensorboardX` writes TensorBoard event files")
            return _JsonlWriter(self.log_dir)

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epochs = self.params.get("epochs")
        self.train_metrics = self.params.get("metrics", [])
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch: int | None = None, logs: dict | None = None) -> None:
        self.steps = self.params.get("steps")
        self.epoch = epoch

    def _updates(self, logs: dict, mode: str) -> None:
        if not _is_rank0():
            return
        step = self.train_step if mode == "train" else self.epoch
        for k in getattr(self, f"{mode}_metrics"):
            value = _scalar(logs.get(k))
            if value is not None:
                self._writer().add_scalar(tag=f"{mode}/{k}", step=step, value=value)

    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None:
        self.train_step += 1
        self._updates(logs or {}, "train")

    def on_eval_begin(self, logs: dict | None = None) -> None:
        self.eval_steps = (logs or {}).get("steps")
        self.eval_metrics = (logs or {}).get("metrics", [])

    def _close(self) -> None:
        if hasattr(self, "writer"):
            self.writer.close()
            del self.writer

    def on_train_end(self, logs: dict | None = None) -> None:
        self._close()

    def on_eval_end(self, logs: dict | None = None) -> None:
        self._updates(logs or {}, "eval")
        if not hasattr(self, "_is_fit"):
            self._close()


class WandbCallback(Callback):
    """Logs training and evaluation scalars to Weights & Biases (needs `wandb`).

    Args:
        project, entity, name, dir, mode, job_type: passed to wandb.init, with **kwargs.

    Raises:
        ImportError: when the wandb package is not installed.
    """

    def __init__(self, project: str | None = None, entity: str | None = None,
                 name: str | None = None, dir: str | None = None, mode: str | None = None,
                 job_type: str | None = None, **kwargs: Any) -> None:
        super().__init__()
        try:
            import wandb
        except ImportError:
            raise ImportError("WandbCallback needs the `wandb` package, which is not "
                              "installed; install it with `pip install wandb`") from None
        self.wandb = wandb
        self.wandb_args = {"project": project, "name": name, "entity": entity, "dir": dir,
                           "mode": mode, "job_type": job_type, **kwargs}
        self._run = None
        _ = self.run

    @property
    def run(self):
        if _is_rank0() and self._run is None:
            if self.wandb.run is not None:
                warnings.warn("There is a wandb run already in progress and newly created "
                              "instances of `WandbCallback` will reuse this run.")
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs: dict | None = None) -> None:
        self.epochs = self.params.get("epochs")
        self.train_metrics = self.params.get("metrics", [])
        self._is_fit = True
        self.train_step = 0
        if _is_rank0():
            self.run.define_metric("train/step")
            self.run.define_metric("train/*", step_metric="train/step")
            self.run.define_metric("epoch")
            self.run.define_metric("eval/*", step_metric="epoch")

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self.steps = self.params.get("steps")
        self.epoch = epoch

    def _updates(self, logs: dict, mode: str) -> None:
        if not _is_rank0():
            return
        values = ({"train/step": self.train_step} if mode == "train"
                  else {"epoch": getattr(self, "epoch", 0)})
        for k in getattr(self, f"{mode}_metrics"):
            value = _scalar(logs.get(k))
            if value is not None:
                values[f"{mode}/{k}"] = value
        self.run.log(values)

    def on_train_batch_end(self, step: int, logs: dict | None = None) -> None:
        self.train_step += 1
        self._updates(logs or {}, "train")

    def on_eval_begin(self, logs: dict | None = None) -> None:
        self.eval_steps = (logs or {}).get("steps")
        self.eval_metrics = (logs or {}).get("metrics", [])

    def on_train_end(self, logs: dict | None = None) -> None:
        if _is_rank0():
            self.run.finish()

    def on_eval_end(self, logs: dict | None = None) -> None:
        self._updates(logs or {}, "eval")
        if not hasattr(self, "_is_fit") and _is_rank0():
            self.run.finish()
